# The size check tflm_size_check() adds (TflmSizeToolkit.cmake), run as a CMake script:
#
#   cmake -DSETTINGS=<file> -DMODE=link|step -P TflmSizeCheck.cmake
#
# SETTINGS is a file tflm_size_check() generates (file(GENERATE)), so that the command line stays a few hundred
# characters whatever the paths and options: it sets SIZE_REPORT, BINARY, BUDGET, REPORTS (folder/base), NAME (the
# target), and optionally MAP, BASELINE, MODELS (a list), TIES (--embedded-model/--header options, a list), TFLM_DIR,
# VERDICT (the file the link's run leaves for the step), STAMP (written only when the check passed) and FAIL_IN_LINK.
# The -D form of each of them is taken too (-DSIZE_REPORT=... without SETTINGS).
#
# `size-report check` (the budget) and, with MODELS, `size-report fit` (the ops and the arena the models need) both
# run even when the first fails, so the console shows every failed rule and the models' verdict, one line each
# (their --reasons).
#
# MODE=link: a post-build step of the firmware target: runs the check, prints what it says and keeps it in VERDICT.
#   It fails only with FAIL_IN_LINK (Makefile generators, whose failed step prints one short line); under Ninja a
#   failure here would print the whole link command first, so it passes and the step below fails.
# MODE=step: the check as a step of its own (<target>_size_check, in ALL): replays VERDICT when the link's run left
#   one for this binary (only its FAIL lines: the rest was printed at the link), else runs the check. Exits non-zero
#   when it failed, with one summary line; STAMP is written only when it passed, so a failed check is never taken as
#   done.
cmake_minimum_required(VERSION 3.16)

if(SETTINGS)
  include("${SETTINGS}")
endif()
if(NOT MODE)
  set(MODE step)
endif()

# Runs size-report check (and fit), sets <status> (the failed ones, "" when passed), <reports> (the report files a
# failure names) and <output> (stdout and stderr as printed, in order).
function(_tflm_run_check status reports output)
  set(map_option)
  if(MAP)
    set(map_option --map "${MAP}")
  endif()
  set(baseline_option)
  if(BASELINE)
    set(baseline_option --baseline "${BASELINE}")
  endif()
  set(tflm_option)
  if(TFLM_DIR)
    set(tflm_option --tflm "${TFLM_DIR}")
  endif()
  execute_process(
    COMMAND "${SIZE_REPORT}" check "${BINARY}" --budget "${BUDGET}" ${map_option} ${baseline_option} ${TIES}
            --summary "${REPORTS}.size.md" --summary-json "${REPORTS}.size.json" --reasons
    RESULT_VARIABLE check_status OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(all_text "${text}")
  # Exit 1: a rule failed, the report says which; 2: bad input, its one line above says what.
  set(failed)
  set(files)
  if(NOT check_status EQUAL 0)
    list(APPEND failed check)
    if(check_status EQUAL 1)
      get_filename_component(name "${REPORTS}.size.md" NAME)
      list(APPEND files "${name}")
    endif()
  endif()
  if(MODELS)
    execute_process(
      COMMAND "${SIZE_REPORT}" fit "${BINARY}" ${MODELS} ${map_option} ${tflm_option} --format markdown
              -o "${REPORTS}.models.md" --reasons
      RESULT_VARIABLE fit_status OUTPUT_VARIABLE text ERROR_VARIABLE text)
    string(APPEND all_text "${text}")
    if(NOT fit_status EQUAL 0)
      list(APPEND failed fit)
      if(fit_status EQUAL 1)
        get_filename_component(name "${REPORTS}.models.md" NAME)
        list(APPEND files "${name}")
      endif()
    endif()
  endif()
  set(${status} "${failed}" PARENT_SCOPE)
  set(${reports} "${files}" PARENT_SCOPE)
  set(${output} "${all_text}" PARENT_SCOPE)
endfunction()

function(_tflm_print text)
  string(REGEX REPLACE "\n$" "" text "${text}")
  if(NOT text STREQUAL "")
    message(NOTICE "${text}")
  endif()
endfunction()

function(_tflm_fail failed reports)
  # Short, as CMake wraps a long message: the reasons are the lines above, from size-report itself.
  list(JOIN failed " and " failed)
  set(summary "tflm_size_check(${NAME}) FAILED: size-report ${failed}")
  if(reports)
    list(JOIN reports ", " reports)
    string(APPEND summary " (${reports})")
  endif()
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
    message(NOTICE "${summary}")
    cmake_language(EXIT 1)
  endif()
  message(FATAL_ERROR "${summary}")
endfunction()

set(replayed FALSE)
if(MODE STREQUAL "step" AND VERDICT AND EXISTS "${VERDICT}" AND NOT "${BINARY}" IS_NEWER_THAN "${VERDICT}")
  # The link's run checked this very binary: its verdict, and only the FAIL lines again (the rest is above).
  include("${VERDICT}")  # sets verdict_failed, verdict_reports, verdict_output
  set(failed "${verdict_failed}")
  set(reports "${verdict_reports}")
  if(failed)
    string(REPLACE "\n" ";" lines "${verdict_output}")
    set(kept)
    foreach(line IN LISTS lines)
      if(line MATCHES "^size-report [a-z]+: FAIL " OR line MATCHES "^size-report: ")
        string(APPEND kept "${line}\n")
      endif()
    endforeach()
    _tflm_print("${kept}")
  endif()
  set(replayed TRUE)
else()
  _tflm_run_check(failed reports output)
  _tflm_print("${output}")
endif()

if(MODE STREQUAL "link" AND VERDICT)
  # A CMake script the step includes: bracket arguments keep the text as it is.
  set(equals "====")
  while(output MATCHES "\\]${equals}\\]")
    string(APPEND equals "=")
  endwhile()
  file(WRITE "${VERDICT}"
       "set(verdict_failed \"${failed}\")\nset(verdict_reports \"${reports}\")\n"
       "set(verdict_output [${equals}[${output}]${equals}])\n")
endif()

if(NOT failed)
  if(STAMP AND MODE STREQUAL "step")
    file(TOUCH "${STAMP}")
  endif()
  return()
endif()
if(MODE STREQUAL "link" AND NOT FAIL_IN_LINK)
  message(NOTICE "tflm_size_check(${NAME}): the check failed; `cmake --build` (all) and the target ${NAME}_size_check "
                 "fail on it")
  return()
endif()
_tflm_fail("${failed}" "${reports}")
