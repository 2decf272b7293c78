# A stand-in for ESP-IDF's tools/cmake/project.cmake (ESP-IDF is not installed here), doing what the toolkit relies
# on: project() finds the components (main/ and each folder of EXTRA_COMPONENT_DIRS), reads their requirements in
# CMake script mode as ESP-IDF's early expansion does (idf_component_register returns there), includes every
# component's project_include.cmake, adds each component (idf_component_register makes its ${COMPONENT_LIB}) and
# links ${CMAKE_PROJECT_NAME}.elf with a map. The host compiler links it: the layout is the point.
set(IDF_PATH "${CMAKE_CURRENT_LIST_DIR}/../..")
set(_idf_stand_in_dir "${CMAKE_CURRENT_LIST_DIR}")

function(idf_build_get_property variable property)
  if(property STREQUAL "PYTHON")
    set(${variable} "${PYTHON}" PARENT_SCOPE)
  endif()
endfunction()

macro(idf_component_register)
  cmake_parse_arguments(_idf "" "" "SRCS;INCLUDE_DIRS;REQUIRES;PRIV_REQUIRES" ${ARGN})
  get_filename_component(COMPONENT_NAME "${CMAKE_CURRENT_LIST_DIR}" NAME)
  set(COMPONENT_LIB "__idf_${COMPONENT_NAME}")
  if(_idf_SRCS)
    add_library(${COMPONENT_LIB} STATIC ${_idf_SRCS})
  else()
    add_library(${COMPONENT_LIB} INTERFACE)
  endif()
  set_property(GLOBAL APPEND PROPERTY IDF_STAND_IN_LIBS ${COMPONENT_LIB})
endmacro()

macro(project name)
  set(CMAKE_TOOLCHAIN_FILE "${_idf_stand_in_dir}/toolchain-host.cmake")  # toolchain-${IDF_TARGET}.cmake
  _project(${name} CXX)
  set(_idf_components "${CMAKE_SOURCE_DIR}/main")
  foreach(_idf_dir IN LISTS EXTRA_COMPONENT_DIRS)
    file(GLOB _idf_found LIST_DIRECTORIES true "${_idf_dir}/*")
    foreach(_idf_component IN LISTS _idf_found)
      if(EXISTS "${_idf_component}/CMakeLists.txt")
        list(APPEND _idf_components "${_idf_component}")
      endif()
    endforeach()
  endforeach()
  foreach(_idf_component IN LISTS _idf_components)  # early expansion: script mode, as ESP-IDF reads requirements
    execute_process(COMMAND "${CMAKE_COMMAND}" -DCOMPONENT_DIR=${_idf_component}
                            -P "${_idf_stand_in_dir}/early_expansion.cmake" RESULT_VARIABLE _idf_status)
    if(NOT _idf_status EQUAL 0)
      message(FATAL_ERROR "early expansion of ${_idf_component} failed")
    endif()
  endforeach()
  foreach(_idf_component IN LISTS _idf_components)
    if(EXISTS "${_idf_component}/project_include.cmake")
      include("${_idf_component}/project_include.cmake")
    endif()
  endforeach()
  foreach(_idf_component IN LISTS _idf_components)
    get_filename_component(_idf_name "${_idf_component}" NAME)
    add_subdirectory("${_idf_component}" "${CMAKE_BINARY_DIR}/esp-idf/${_idf_name}")
  endforeach()
  get_property(_idf_libs GLOBAL PROPERTY IDF_STAND_IN_LIBS)
  add_executable(${name}.elf "${_idf_stand_in_dir}/app_startup.cc")
  target_link_libraries(${name}.elf PRIVATE ${_idf_libs} "-Wl,-Map=${CMAKE_BINARY_DIR}/${name}.map")
endmacro()
