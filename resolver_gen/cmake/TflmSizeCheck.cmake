# The size check tflm_size_check() adds (TflmSizeToolkit.cmake), run as a CMake script after each link of the target:
#
#   cmake -DSIZE_REPORT=<size-report> -DBINARY=<elf> -DBUDGET=<toml> -DREPORTS=<folder/base> -DNAME=<target>
#         [-DMAP=<map>] [-DBASELINE=<report|db:DB@BRANCH>] [-DMODELS=<a.tflite;b.tflite>] [-DSTAMP=<file>]
#         [-DTIES=<--embedded-model;m.tflite;--header;ops.h;--header-args=...>]
#         -P TflmSizeCheck.cmake
#
# `size-report check` (the budget) and, with MODELS, `size-report fit` (the ops and the arena the models need) both
# run even when the first fails, so the console shows every failed rule and the models' verdict, one line each
# (their --reasons). Exit status non-zero when either failed; STAMP (the ELF form's output) is written only when both
# passed, so a failed check is never taken as done.
cmake_minimum_required(VERSION 3.16)

set(map_option)
if(MAP)
  set(map_option --map "${MAP}")
endif()
set(baseline_option)
if(BASELINE)
  set(baseline_option --baseline "${BASELINE}")
endif()

execute_process(
  COMMAND "${SIZE_REPORT}" check "${BINARY}" --budget "${BUDGET}" ${map_option} ${baseline_option} ${TIES}
          --summary "${REPORTS}.size.md" --summary-json "${REPORTS}.size.json" --reasons
  RESULT_VARIABLE check_status)
# Exit 1: a rule failed, the report says which; 2: bad input, its one line above says what.
set(failed)
set(reports)
if(NOT check_status EQUAL 0)
  list(APPEND failed check)
  if(check_status EQUAL 1)
    get_filename_component(name "${REPORTS}.size.md" NAME)
    list(APPEND reports "${name}")
  endif()
endif()
if(MODELS)
  execute_process(
    COMMAND "${SIZE_REPORT}" fit "${BINARY}" ${MODELS} ${map_option} --format markdown -o "${REPORTS}.models.md"
            --reasons
    RESULT_VARIABLE fit_status)
  if(NOT fit_status EQUAL 0)
    list(APPEND failed fit)
    if(fit_status EQUAL 1)
      get_filename_component(name "${REPORTS}.models.md" NAME)
      list(APPEND reports "${name}")
    endif()
  endif()
endif()

if(NOT failed)
  if(STAMP)
    file(TOUCH "${STAMP}")
  endif()
  return()
endif()
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
