# CMake functions of the TFLM size toolkit: regenerate a MicroMutableOpResolver header from .tflite models at build
# time, gate the build on a size budget after the link, and add rom/ram/stack report targets as Zephyr does.
#
#   tflm_op_resolver(<target> MODELS a.tflite ... [HEADER ops.h] [NAME n] [REDUCE_TYPES]
#                    [ARENA [KERNELS reference|cmsis_nn] [SHORT_ENUMS]] [TFLM_DIR dir])
#   tflm_size_check(<target> [BUDGET size-budget.toml] [MAP file.map] [BASELINE report.json|db:DB@BRANCH]
#                   [MODELS a.tflite ...] [ELF file.elf])
#   tflm_size_report(<target> [MAP file.map] [MODELS a.tflite ...] [ELF file.elf])
#
# ELF names the binary when <target> does not link it itself (Zephyr: `zephyr` with ELF zephyr/zephyr.elf); the
# targets added are then named after <target> all the same (zephyr_size_check, zephyr_rom_report, ...).
#
# Loaded by find_package(TflmSizeToolkit) (TflmSizeToolkitConfig.cmake, in the folder `gen-resolver --cmake-dir`
# prints), by the Zephyr module (zephyr/CMakeLists.txt) and by the ESP-IDF component (project_include.cmake).
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
  find_program(${variable} NAMES ${program} HINTS ${hints}
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

# Absolute paths of existing input files (relative ones are relative to the calling CMakeLists.txt).
function(_tflm_input_files function target keyword out)
  set(paths)
  foreach(path IN LISTS ARGN)
    get_filename_component(absolute "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${absolute}" AND path MATCHES "^[A-Z][A-Z0-9_]*$")  # a misspelt keyword after a list
      message(FATAL_ERROR "${function}(${target}): unknown argument '${path}' (after ${keyword})")
    elseif(NOT EXISTS "${absolute}" OR IS_DIRECTORY "${absolute}")
      message(FATAL_ERROR "${function}(${target}): ${keyword}: no such file: ${absolute}")
    endif()
    list(APPEND paths "${absolute}")
  endforeach()
  set(${out} ${paths} PARENT_SCOPE)
endfunction()

function(tflm_op_resolver target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "REDUCE_TYPES;ARENA;SHORT_ENUMS" "HEADER;NAME;KERNELS;TFLM_DIR" "MODELS")
  _tflm_check_arguments(tflm_op_resolver "${target}" MODELS HEADER NAME REDUCE_TYPES ARENA KERNELS SHORT_ENUMS
                        TFLM_DIR)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tflm_op_resolver(${target}): no target named ${target} (call it after add_executable/add_library)")
  endif()
  if(NOT ARG_MODELS)
    message(FATAL_ERROR "tflm_op_resolver(${target}): MODELS: at least one .tflite model is needed")
  endif()
  if((ARG_KERNELS OR ARG_SHORT_ENUMS) AND NOT ARG_ARENA)
    message(FATAL_ERROR "tflm_op_resolver(${target}): KERNELS and SHORT_ENUMS set the arena estimate: add ARENA")
  endif()
  if(ARG_KERNELS AND NOT ARG_KERNELS MATCHES "^(reference|cmsis_nn)$")
    message(FATAL_ERROR "tflm_op_resolver(${target}): KERNELS: '${ARG_KERNELS}' is not reference or cmsis_nn")
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
  endif()
  if(ARG_TFLM_DIR)  # only the methods and registrations that tree declares; an op it lacks fails the build
    get_filename_component(tflm_dir "${ARG_TFLM_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND options --tflm "${tflm_dir}")
  endif()
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${header}")
  # gen-resolver -o replaces the header atomically and only on success: a failed run leaves no half-written file.
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${header_dir}"
    COMMAND "${TFLM_GEN_RESOLVER}" ${models} -o "${header}" ${options}
    DEPENDS ${models} ${tool_files}
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
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "BUDGET;MAP;BASELINE;ELF" "MODELS")
  _tflm_check_arguments(tflm_size_check "${target}" BUDGET MAP BASELINE MODELS ELF)
  _tflm_binary(tflm_size_check "${target}" "${ARG_ELF}" binary base)
  _tflm_find_tool(TFLM_SIZE_REPORT size-report)
  set(depends "${TFLM_SIZE_REPORT}")
  if(ARG_ELF)  # the file another target links (Zephyr's zephyr.elf): Ninja builds it first
    list(APPEND depends "${binary}")
  else()  # target-level, and file-level on its binary: the check reruns after each link
    list(APPEND depends ${target})
  endif()
  if(ARG_BUDGET)
    _tflm_input_files(tflm_size_check "${target}" BUDGET budget "${ARG_BUDGET}")
  else()  # no rules: the check only writes the summary (totals)
    set(budget "${CMAKE_CURRENT_BINARY_DIR}/tflm_generated/no-rules.toml")
    file(WRITE "${budget}" "# tflm_size_check without BUDGET: no rules, the summary gives the totals\n")
  endif()
  list(APPEND depends "${budget}")
  set(map_option)
  if(ARG_MAP)
    get_filename_component(map "${ARG_MAP}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    set(map_option --map "${map}")
  endif()
  set(baseline_option)
  if(ARG_BASELINE)
    if(ARG_BASELINE MATCHES "^db:")
      set(baseline_option --baseline "${ARG_BASELINE}")
    else()
      _tflm_input_files(tflm_size_check "${target}" BASELINE baseline "${ARG_BASELINE}")
      set(baseline_option --baseline "${baseline}")
      list(APPEND depends "${baseline}")
    endif()
  endif()
  set(model_command)
  if(ARG_MODELS)
    _tflm_input_files(tflm_size_check "${target}" MODELS models ${ARG_MODELS})
    list(APPEND depends ${models})
    # size-report fit: exit 1 when the firmware lacks an op a model needs or its tensor arena is too small.
    set(model_command COMMAND "${TFLM_SIZE_REPORT}" fit "${binary}" ${models} ${map_option}
                              --format markdown -o "${base}.models.md")
  endif()
  string(MAKE_C_IDENTIFIER "${target}" stamp_name)
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/tflm_generated/${stamp_name}.size-check.stamp")
  # The stamp is written only when every command passed, so a failed check fails every build until it passes.
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${TFLM_SIZE_REPORT}" check "${binary}" --budget "${budget}" ${map_option} ${baseline_option}
            --summary "${base}.size.md" --summary-json "${base}.size.json" --reasons
    ${model_command}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${depends}
    COMMENT "size-report check: ${target}"
    VERBATIM)
  add_custom_target(${target}_size_check ALL DEPENDS "${stamp}")
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
