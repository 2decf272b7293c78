# CMake functions of the TFLM size toolkit: regenerate a MicroMutableOpResolver header from .tflite models at build
# time, gate the build on a size budget after the link, and add rom/ram/stack report targets as Zephyr does.
#
#   tflm_op_resolver(<target> MODELS a.tflite|model_data.cc[:ARRAY] ... [HEADER ops.h] [NAME n] [REDUCE_TYPES]
#                    [ARENA [KERNELS reference|cmsis_nn|esp_nn] [SHORT_ENUMS]] [TFLM_DIR dir])
#   tflm_size_check(<target> [BUDGET size-budget.toml] [MAP file.map] [BASELINE report.json|db:DB@BRANCH]
#                   [MODELS a.tflite ...] [ELF file.elf]
#                   [EMBEDDED_MODELS a.tflite ...] [HEADER ops.h [HEADER_ARGS --name n ...]] [TFLM_DIR dir])
#   tflm_size_report(<target> [MAP file.map] [MODELS a.tflite ...] [ELF file.elf])
#
# tflm_size_check is a step of its own, <target>_size_check in ALL, after <target>'s link (TflmSizeCheck.cmake): a
# failure prints its reasons under that step's short command, never under the link's. It is also a post-build step of
# <target>, so that building <target> alone prints the reasons (and fails, with Makefile generators).
# ELF names the binary when <target> does not link it itself (Zephyr: `zephyr` with ELF zephyr/zephyr.elf); the check
# is then only the step of its own, and the targets added are named after <target> all the same
# (zephyr_size_check, zephyr_rom_report, ...).
#
# Loaded by find_package(TflmSizeToolkit) (TflmSizeToolkitConfig.cmake, in the folder `gen-resolver --cmake-dir`
# prints: pass it as -DTflmSizeToolkit_DIR, which cross toolchain files do not re-root), by the Zephyr module (zephyr/CMakeLists.txt) and by the ESP-IDF component (project_include.cmake).
# The tools are found once, in the cache variables TFLM_GEN_RESOLVER and TFLM_SIZE_REPORT (set them to override):
# next to the Python that installed this package, next to the build's Python (Python3_EXECUTABLE, PYTHON_EXECUTABLE,
# ESP-IDF's PYTHON), then on PATH. See docs/cmake.md.

include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.16)
  message(FATAL_ERROR "TflmSizeToolkit needs CMake 3.16 or newer (this is ${CMAKE_VERSION})")
endif()

# Functions are global but variables are not (the Zephyr module includes this file from its own directory scope):
# the package's location is kept in a global property.
set_property(GLOBAL PROPERTY TFLM_SIZE_TOOLKIT_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(_tflm_find_tool variable program)
  if(${variable})
    return()
  endif()
  get_property(package_dir GLOBAL PROPERTY TFLM_SIZE_TOOLKIT_CMAKE_DIR)
  # A wheel install puts this folder at <prefix>/lib/pythonX.Y/site-packages/resolver_gen/cmake and the scripts in
  # <prefix>/bin (Windows: <prefix>/Lib/site-packages/... and <prefix>/Scripts).
  set(hints "${package_dir}/../../../../../bin" "${package_dir}/../../../../Scripts")
  foreach(python IN ITEMS "${Python3_EXECUTABLE}" "${PYTHON_EXECUTABLE}" "${PYTHON}")
    if(python)
      get_filename_component(python_dir "${python}" DIRECTORY)
      list(APPEND hints "${python_dir}")
    endif()
  endforeach()
  # A host program: NO_CMAKE_FIND_ROOT_PATH keeps a cross toolchain file's CMAKE_FIND_ROOT_PATH_MODE_PROGRAM ONLY
  # from looking for it in the target's root only.
  find_program(${variable} NAMES ${program} HINTS ${hints} NO_CMAKE_FIND_ROOT_PATH
               DOC "The ${program} command of the TFLM size toolkit (pip install tflm-size-toolkit)")
  if(NOT ${variable})
    message(FATAL_ERROR "TflmSizeToolkit: ${program} not found next to the Python that installed this package nor "
                        "on PATH: pip install tflm-size-toolkit into the build's Python, or set -D${variable}=/path/to/${program}")
  endif()
endfunction()

function(_tflm_generator_files out)
  get_property(package_dir GLOBAL PROPERTY TFLM_SIZE_TOOLKIT_CMAKE_DIR)
  get_filename_component(python_root "${package_dir}/../.." ABSOLUTE)
  # The Python packages whose code decides what gen-resolver writes: a header is regenerated when one of their files
  # changes (an upgrade, or an edit in an editable install). tests/integrations/test_cmake_package.py checks that
  # this list covers every package gen-resolver imports.
  set(generator_packages resolver_gen tflm_facts tflm_model)
  set(globs)
  foreach(package IN LISTS generator_packages)
    list(APPEND globs "${python_root}/${package}/*.py" "${python_root}/${package}/*.j2")
  endforeach()
  file(GLOB_RECURSE files ${globs})
  list(FILTER files EXCLUDE REGEX "/__pycache__/")
  list(SORT files)
  set(${out} ${TFLM_GEN_RESOLVER} ${files} PARENT_SCOPE)
endfunction()

# One line naming the function and the argument, as every bad input of the toolkit is reported.
function(_tflm_check_arguments function target)
  if(ARG_UNPARSED_ARGUMENTS)
    list(GET ARG_UNPARSED_ARGUMENTS 0 first)
    message(FATAL_ERROR "${function}(${target}): unknown argument '${first}' (expected ${ARGN})")
  endif()
  if(ARG_KEYWORDS_MISSING_VALUES)
    list(GET ARG_KEYWORDS_MISSING_VALUES 0 first)
    message(FATAL_ERROR "${function}(${target}): ${first} needs a value")
  endif()
endfunction()

# Absolute paths of existing input files (relative ones are relative to the calling CMakeLists.txt), in <out>, and
# the files themselves in <out>_files (what the commands depend on). A model is a .tflite, a C/C++ file holding model
# arrays, or FILE:NAME, one array of a C/C++ file: split at the last colon before a C identifier when the whole is no
# file, as gen-resolver splits it (so C:/m.cc is a file).
function(_tflm_input_files function target keyword out)
  set(paths)
  set(files)
  foreach(path IN LISTS ARGN)
    set(array)
    get_filename_component(absolute "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(keyword STREQUAL "MODELS" AND NOT EXISTS "${absolute}" AND path MATCHES "^(.+):([A-Za-z_][A-Za-z0-9_]*)$")
      set(array ":${CMAKE_MATCH_2}")
      get_filename_component(absolute "${CMAKE_MATCH_1}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
    if(NOT EXISTS "${absolute}" AND path MATCHES "^[A-Z][A-Z0-9_]*$")  # a misspelt keyword after a list
      message(FATAL_ERROR "${function}(${target}): unknown argument '${path}' (after ${keyword})")
    elseif(NOT EXISTS "${absolute}" OR IS_DIRECTORY "${absolute}")
      message(FATAL_ERROR "${function}(${target}): ${keyword}: no such file: ${absolute}")
    endif()
    list(APPEND paths "${absolute}${array}")
    list(APPEND files "${absolute}")
  endforeach()
  set(${out} ${paths} PARENT_SCOPE)
  set(${out}_files ${files} PARENT_SCOPE)
endfunction()

function(tflm_op_resolver target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "REDUCE_TYPES;ARENA;SHORT_ENUMS" "HEADER;NAME;KERNELS;TFLM_DIR;TFLM_REVISION"
                        "MODELS")
  _tflm_check_arguments(tflm_op_resolver "${target}" MODELS HEADER NAME REDUCE_TYPES ARENA KERNELS SHORT_ENUMS
                        TFLM_DIR TFLM_REVISION)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tflm_op_resolver(${target}): no target named ${target} (call it after add_executable/add_library)")
  endif()
  if(NOT ARG_MODELS)
    message(FATAL_ERROR "tflm_op_resolver(${target}): MODELS: at least one model (.tflite or C array) is needed")
  endif()
  if((ARG_KERNELS OR ARG_SHORT_ENUMS OR ARG_TFLM_REVISION) AND NOT ARG_ARENA)
    message(FATAL_ERROR "tflm_op_resolver(${target}): KERNELS, SHORT_ENUMS and TFLM_REVISION set the arena estimate: "
                        "add ARENA")
  endif()
  if(ARG_KERNELS AND NOT ARG_KERNELS MATCHES "^(reference|cmsis_nn|esp_nn)$")
    message(FATAL_ERROR "tflm_op_resolver(${target}): KERNELS: '${ARG_KERNELS}' is not reference, cmsis_nn or esp_nn")
  endif()
  _tflm_input_files(tflm_op_resolver "${target}" MODELS models ${ARG_MODELS})
  _tflm_find_tool(TFLM_GEN_RESOLVER gen-resolver)
  _tflm_generator_files(tool_files)

  if(NOT ARG_HEADER)
    set(ARG_HEADER ops.h)
  endif()
  if(IS_ABSOLUTE "${ARG_HEADER}")
    set(header "${ARG_HEADER}")
    get_filename_component(include_dir "${header}" DIRECTORY)
  else()  # its own folder per target, so that `#include "ops.h"` finds this target's header and no other file
    set(include_dir "${CMAKE_CURRENT_BINARY_DIR}/tflm_generated/${target}")
    set(header "${include_dir}/${ARG_HEADER}")
  endif()
  get_filename_component(header_dir "${header}" DIRECTORY)

  set(options)
  if(ARG_NAME)
    list(APPEND options --name "${ARG_NAME}")
  endif()
  if(ARG_REDUCE_TYPES)
    list(APPEND options --reduce-types)
  endif()
  if(ARG_ARENA)
    list(APPEND options --arena)
    if(ARG_KERNELS)
      list(APPEND options --kernels "${ARG_KERNELS}")
    endif()
    if(ARG_SHORT_ENUMS)
      list(APPEND options --short-enums)
    endif()
    if(ARG_TFLM_REVISION)  # the allocator generation, when TFLM_DIR cannot tell it (gen-resolver --tflm-revision)
      list(APPEND options --tflm-revision "${ARG_TFLM_REVISION}")
    endif()
  endif()
  if(ARG_TFLM_DIR)  # only the methods and registrations that tree declares; an op it lacks fails the build
    get_filename_component(tflm_dir "${ARG_TFLM_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND options --tflm "${tflm_dir}")
    set_property(TARGET ${target} PROPERTY TFLM_SIZE_TOOLKIT_TFLM_DIR "${tflm_dir}")  # for tflm_size_check
  endif()
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${header}")
  # gen-resolver -o replaces the header atomically and only on success: a failed run leaves no half-written file.
  # It leaves a header whose text would not change untouched, timestamp included: the header itself is the OUTPUT
  # (no stamp), so Ninja's restat sees it unchanged and recompiles nothing, and records that, so the next build runs
  # nothing. (A stamp OUTPUT with the header as BYPRODUCTS would make Makefile generators touch the header.)
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${header_dir}"
    COMMAND "${TFLM_GEN_RESOLVER}" ${models} -o "${header}" ${options}
    DEPENDS ${models_files} ${tool_files}
    COMMENT "gen-resolver: ${shown}"
    VERBATIM)
  string(MAKE_C_IDENTIFIER "${target}_tflm_${ARG_HEADER}" generate_target)
  add_custom_target(${generate_target} DEPENDS "${header}")
  add_dependencies(${target} ${generate_target})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE "${include_dir}")
  else()
    target_include_directories(${target} PRIVATE "${include_dir}")
  endif()
endfunction()

# The binary of <target> (or ELF), and the folder and base name its reports get.
function(_tflm_binary function target elf out_binary out_base)
  if(elf)
    get_filename_component(binary "${elf}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    get_filename_component(directory "${binary}" DIRECTORY)
    get_filename_component(name "${binary}" NAME_WE)
    set(${out_base} "${directory}/${name}" PARENT_SCOPE)
  elseif(TARGET ${target})
    set(binary "$<TARGET_FILE:${target}>")
    set(${out_base} "$<TARGET_FILE_DIR:${target}>/$<TARGET_FILE_BASE_NAME:${target}>" PARENT_SCOPE)
  else()
    message(FATAL_ERROR "${function}(${target}): no target named ${target} (or give ELF <file>)")
  endif()
  set(${out_binary} "${binary}" PARENT_SCOPE)
endfunction()

function(tflm_size_check target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "BUDGET;MAP;BASELINE;ELF;HEADER;TFLM_DIR"
                        "MODELS;EMBEDDED_MODELS;HEADER_ARGS")
  _tflm_check_arguments(tflm_size_check "${target}" BUDGET MAP BASELINE MODELS ELF EMBEDDED_MODELS HEADER HEADER_ARGS
                        TFLM_DIR)
  _tflm_binary(tflm_size_check "${target}" "${ARG_ELF}" binary base)
  _tflm_find_tool(TFLM_SIZE_REPORT size-report)
  get_property(package_dir GLOBAL PROPERTY TFLM_SIZE_TOOLKIT_CMAKE_DIR)
  string(MAKE_C_IDENTIFIER "${target}" stamp_name)
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/tflm_generated")
  set(inputs)  # the files besides the binary whose change reruns the check
  if(ARG_BUDGET)
    _tflm_input_files(tflm_size_check "${target}" BUDGET budget "${ARG_BUDGET}")
    list(APPEND inputs "${budget}")
  else()  # no rules: the check only writes the summary (totals)
    set(budget "${generated}/no-rules.toml")
    file(WRITE "${budget}" "# tflm_size_check without BUDGET: no rules, the summary gives the totals\n")
  endif()
  # The settings go into a file the check script reads, so that its command line (which Ninja prints above a failed
  # step's output) stays short whatever the paths and options.
  string(CONCAT settings "set(SIZE_REPORT [==[${TFLM_SIZE_REPORT}]==])\nset(BINARY [==[${binary}]==])\n"
                "set(BUDGET [==[${budget}]==])\nset(REPORTS [==[${base}]==])\nset(NAME [==[${target}]==])\n")
  if(ARG_MAP)
    get_filename_component(map "${ARG_MAP}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    string(APPEND settings "set(MAP [==[${map}]==])\n")
  endif()
  if(ARG_BASELINE)
    if(ARG_BASELINE MATCHES "^db:")
      string(APPEND settings "set(BASELINE [==[${ARG_BASELINE}]==])\n")
    else()
      _tflm_input_files(tflm_size_check "${target}" BASELINE baseline "${ARG_BASELINE}")
      string(APPEND settings "set(BASELINE [==[${baseline}]==])\n")
      list(APPEND inputs "${baseline}")
    endif()
  endif()
  if(ARG_MODELS)  # size-report fit: fails when the firmware lacks an op a model needs or its arena is too small
    _tflm_input_files(tflm_size_check "${target}" MODELS models ${ARG_MODELS})
    list(APPEND inputs ${models_files})
    string(APPEND settings "set(MODELS [==[${models}]==])\n")
  endif()
  # TFLM_DIR (or the one tflm_op_resolver got for this target): the suggestions name only what that tree declares.
  if(ARG_TFLM_DIR)
    get_filename_component(tflm_dir "${ARG_TFLM_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    string(APPEND settings "set(TFLM_DIR [==[${tflm_dir}]==])\n")
  elseif(TARGET ${target})  # read when the build files are written, so tflm_op_resolver may come after this call
    string(APPEND settings "set(TFLM_DIR [==[$<TARGET_PROPERTY:${target},TFLM_SIZE_TOOLKIT_TFLM_DIR>]==])\n")
  endif()
  # EMBEDDED_MODELS / HEADER: the check fails when the model linked in is not the given model byte for byte, or
  # the header is not what gen-resolver writes for it (HEADER_ARGS: the options it was made with).
  set(tie_options)
  if(ARG_EMBEDDED_MODELS)
    _tflm_input_files(tflm_size_check "${target}" EMBEDDED_MODELS embedded ${ARG_EMBEDDED_MODELS})
    list(APPEND inputs ${embedded_files})
    foreach(model IN LISTS embedded)
      list(APPEND tie_options --embedded-model "${model}")
    endforeach()
  endif()
  if(ARG_HEADER_ARGS AND NOT ARG_HEADER)
    message(FATAL_ERROR "tflm_size_check(${target}): HEADER_ARGS go with HEADER")
  endif()
  if(ARG_HEADER)
    get_filename_component(header "${ARG_HEADER}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND inputs "${header}")
    list(JOIN ARG_HEADER_ARGS " " header_args)
    list(APPEND tie_options --header "${header}" "--header-args=${header_args}")
  endif()
  if(tie_options)
    string(APPEND settings "set(TIES [==[${tie_options}]==])\n")
  endif()
  set(stamp "${generated}/${stamp_name}.size-check.stamp")
  set(verdict "${generated}/${stamp_name}.size-check.verdict.cmake")
  string(APPEND settings "set(STAMP [==[${stamp}]==])\n")
  if(NOT ARG_ELF)
    string(APPEND settings "set(VERDICT [==[${verdict}]==])\n")
    if(NOT CMAKE_GENERATOR MATCHES "Ninja")  # a failed post-build step prints one short line there
      string(APPEND settings "set(FAIL_IN_LINK TRUE)\n")
    endif()
  endif()
  # One file per configuration (multi-config generators), named the same in the command.
  set(settings_file "${generated}/${stamp_name}.size-check$<$<BOOL:$<CONFIG>>:-$<CONFIG>>.cmake")
  file(GENERATE OUTPUT "${settings_file}" CONTENT "${settings}")
  set(script "${package_dir}/TflmSizeCheck.cmake")

  # The check as a step of its own, in ALL, after the binary: a failure shows its FAIL lines under this short
  # command, never under the link's. The stamp is written only when the check passed, so a failed check fails every
  # build until it passes.
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DSETTINGS=${settings_file}" -DMODE=step -P "${script}"
    DEPENDS "${binary}" ${inputs} "${TFLM_SIZE_REPORT}" "${script}"
    COMMENT "size-report check: ${target}"
    VERBATIM)
  add_custom_target(${target}_size_check ALL DEPENDS "${stamp}")
  if(ARG_ELF)  # the file another target links (Zephyr's zephyr.elf), which Ninja builds first
    return()
  endif()

  get_target_property(target_dir ${target} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "tflm_size_check(${target}): call it in ${target_dir}/CMakeLists.txt, where ${target} is "
                        "added (its check is a post-build step of ${target}), or give ELF <file>")
  endif()
  add_dependencies(${target}_size_check ${target})
  # And a post-build step of the target itself, so that `cmake --build --target ${target}` checks every link too: it
  # prints the reasons and leaves its verdict for the step above. Under Ninja it does not fail (a failed link step
  # prints the whole link command first); Makefile generators fail it there too. The link depends on the budget,
  # baseline and models, so a change to one of them relinks and rechecks.
  add_custom_command(TARGET ${target} POST_BUILD
                     COMMAND "${CMAKE_COMMAND}" "-DSETTINGS=${settings_file}" -DMODE=link -P "${script}"
                     BYPRODUCTS "${verdict}"
                     COMMENT "size-report check: ${target}" VERBATIM)
  if(inputs)
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${inputs})
  endif()
endfunction()

function(tflm_size_report target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MAP;ELF" "MODELS")
  _tflm_check_arguments(tflm_size_report "${target}" MAP MODELS ELF)
  _tflm_binary(tflm_size_report "${target}" "${ARG_ELF}" binary base)
  _tflm_find_tool(TFLM_SIZE_REPORT size-report)
  if(ARG_ELF)
    set(depends "${binary}")
  else()
    set(depends ${target})
  endif()
  set(map_option)
  if(ARG_MAP)
    get_filename_component(map "${ARG_MAP}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    set(map_option --map "${map}")
  endif()
  set(model_options)
  if(ARG_MODELS)  # the stack walk follows calls through TFLM registrations to these models' kernels only
    _tflm_input_files(tflm_size_report "${target}" MODELS models ${ARG_MODELS})
    foreach(model IN LISTS models)
      list(APPEND model_options --model "${model}")
    endforeach()
  endif()
  # As Zephyr's rom_report and ram_report: print the tree, by directory, file and symbol.
  add_custom_target(${target}_rom_report
    COMMAND "${TFLM_SIZE_REPORT}" "${binary}" ${map_option}
    DEPENDS ${depends} USES_TERMINAL VERBATIM)
  add_custom_target(${target}_ram_report
    COMMAND "${TFLM_SIZE_REPORT}" "${binary}" ${map_option} --ram
    DEPENDS ${depends} USES_TERMINAL VERBATIM)
  add_custom_target(${target}_stack_report
    COMMAND "${TFLM_SIZE_REPORT}" stack "${binary}" ${model_options}
    DEPENDS ${depends} USES_TERMINAL VERBATIM)
endfunction()
