# Script mode, as ESP-IDF's component_get_requirements.cmake: idf_component_register records and returns, so
# nothing after it runs, and nothing before it may need a project (targets, languages).
set(CMAKE_BUILD_EARLY_EXPANSION 1)
macro(idf_component_register)
  return()
endmacro()
include("${COMPONENT_DIR}/CMakeLists.txt")
