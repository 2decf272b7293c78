# ESP-IDF includes this file before any component's CMakeLists.txt: the TFLM size toolkit's functions are then
# defined for every component (tflm_op_resolver(${COMPONENT_LIB} ...)) and for the project's CMakeLists.txt after
# project() (tflm_size_check(${CMAKE_PROJECT_NAME}.elf ...)).
if(NOT COMMAND tflm_op_resolver)
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../resolver_gen/cmake/TflmSizeToolkit.cmake")
    # A checkout of the repository (EXTRA_COMPONENT_DIRS, or a git dependency with its path).
    include("${CMAKE_CURRENT_LIST_DIR}/../../resolver_gen/cmake/TflmSizeToolkit.cmake")
  else()
    # Only this folder was copied (managed_components/): the pip package carries the CMake package.
    idf_build_get_property(_tflm_python PYTHON)
    get_filename_component(_tflm_python_dir "${_tflm_python}" DIRECTORY)
    find_program(TFLM_GEN_RESOLVER NAMES gen-resolver HINTS "${_tflm_python_dir}" NO_CMAKE_FIND_ROOT_PATH
                 DOC "The gen-resolver command of the TFLM size toolkit (pip install tflm-size-toolkit)")
    if(NOT TFLM_GEN_RESOLVER)
      message(FATAL_ERROR "tflm_size_toolkit: gen-resolver not found next to ${_tflm_python} nor on PATH: "
                          "pip install tflm-size-toolkit into ESP-IDF's Python environment")
    endif()
    execute_process(COMMAND "${TFLM_GEN_RESOLVER}" --cmake-dir OUTPUT_VARIABLE _tflm_cmake_dir
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _tflm_status)
    if(NOT _tflm_status EQUAL 0)
      message(FATAL_ERROR "tflm_size_toolkit: ${TFLM_GEN_RESOLVER} --cmake-dir failed (${_tflm_status})")
    endif()
    include("${_tflm_cmake_dir}/TflmSizeToolkit.cmake")
  endif()
endif()
