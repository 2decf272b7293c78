# find_package(TflmSizeToolkit) with -DTflmSizeToolkit_DIR=<this folder> (`gen-resolver --cmake-dir` prints it):
# defines tflm_op_resolver(), tflm_size_check() and tflm_size_report(). See TflmSizeToolkit.cmake and docs/cmake.md.
include("${CMAKE_CURRENT_LIST_DIR}/TflmSizeToolkit.cmake")
set(TflmSizeToolkit_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
