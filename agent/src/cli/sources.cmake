# ozram_cli: what ozramd and the tools share on their command lines: the
# usage error, integer options, the argument walk, --help and exit status.
add_library(ozram_cli STATIC
  ${CMAKE_CURRENT_LIST_DIR}/arguments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/getopt_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/integer_option.cpp
  ${CMAKE_CURRENT_LIST_DIR}/usage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/usage_error.cpp)
# Included as "cli/...".
target_include_directories(ozram_cli PUBLIC ${PROJECT_SOURCE_DIR}/agent/src)
