# A stand-in for Zephyr's CMake package (Zephyr is not installed here), doing what the toolkit relies on: it defines
# the `app` library and the final link of ${ZEPHYR_BINARY_DIR}/${CONFIG_KERNEL_BIN_NAME}.elf (with a map), and adds
# each module of ZEPHYR_EXTRA_MODULES whose zephyr/module.yml has `build: cmake: <dir>` with
# add_subdirectory(<module>/<dir>), setting ZEPHYR_CURRENT_MODULE_DIR, before the app's CMakeLists.txt goes on.
# The host compiler links it: the layout is the point, not the target.
# As Zephyr's target toolchain set-up (cmake/modules/FindTargetTools.cmake) before project(): a Generic system
# (cross-compiling), and no CMAKE_FIND_ROOT_PATH_MODE_* (Zephyr dropped them in 2018, zephyr PR #12193; before that,
# PROGRAM NEVER and LIBRARY/INCLUDE/PACKAGE ONLY). (Zephyr also forces its compilers, skipping CMake's checks; the
# host compiler here is checked, so that the app's target_compile_features works.)
set(CMAKE_SYSTEM_NAME Generic)
project(Zephyr-Kernel CXX)
set(ZEPHYR_BINARY_DIR "${CMAKE_BINARY_DIR}/zephyr")
set(CONFIG_KERNEL_BIN_NAME zephyr)
add_library(app STATIC)  # the app adds its sources
add_library(zephyr STATIC "${CMAKE_CURRENT_LIST_DIR}/kernel.cc")  # the kernel library Zephyr also names `zephyr`
foreach(module IN LISTS ZEPHYR_EXTRA_MODULES)
  file(READ "${module}/zephyr/module.yml" module_yml)
  if(module_yml MATCHES "\n  cmake: *([^\n]+)")
    string(STRIP "${CMAKE_MATCH_1}" module_cmake)
    get_filename_component(module_name "${module}" NAME)
    set(ZEPHYR_CURRENT_MODULE_DIR "${module}")
    add_subdirectory("${module}/${module_cmake}" "${CMAKE_BINARY_DIR}/modules/${module_name}")
  endif()
endforeach()
add_executable(zephyr_final "${CMAKE_CURRENT_LIST_DIR}/isr_tables.cc")
set_target_properties(zephyr_final PROPERTIES OUTPUT_NAME "${CONFIG_KERNEL_BIN_NAME}" SUFFIX .elf
                      RUNTIME_OUTPUT_DIRECTORY "${ZEPHYR_BINARY_DIR}")
target_link_libraries(zephyr_final PRIVATE app zephyr
                      "-Wl,-Map=${ZEPHYR_BINARY_DIR}/${CONFIG_KERNEL_BIN_NAME}.map")
set(Zephyr_FOUND TRUE)
