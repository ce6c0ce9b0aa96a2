# Sources of ozram_core proper: the batch types, the CPU backends and the
# cost model.  The GPU backend adds its own in src/gpu/sources.cmake.
target_sources(ozram_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/page_compressor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/batch_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/batch_result.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/algorithm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/block_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/codec_lz4.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/codec_lzo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/codec_zstd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/cpu_compressor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/page_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/same_filled.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/thread_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model/calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model/cost_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model/cost_model_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model/linear_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model/synthetic_pages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sized_thread.cpp
)
# Headers shared between the library's own sources (not part of the API).
target_include_directories(ozram_core PRIVATE ${CMAKE_CURRENT_LIST_DIR})
