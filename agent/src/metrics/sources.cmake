# ozram_metrics: the Prometheus text exposition format (version 0.0.4), one
# writer shared by ozramctl and ozramd's metrics endpoint.
add_library(ozram_metrics STATIC ${CMAKE_CURRENT_LIST_DIR}/exposition.cpp)
# Included as "metrics/...".
target_include_directories(ozram_metrics PUBLIC ${PROJECT_SOURCE_DIR}/agent/src)
