# A stand-in for ESP-IDF's tools/cmake/toolchain-<chip>.cmake (toolchain-esp32.cmake and the others), which
# project.cmake makes the CMAKE_TOOLCHAIN_FILE: a Generic system (cross-compiling) and the chip's compilers, and no
# CMAKE_FIND_ROOT_PATH or CMAKE_FIND_ROOT_PATH_MODE_*. Here the host compiler stays: the layout is the point.
set(CMAKE_SYSTEM_NAME Generic)
