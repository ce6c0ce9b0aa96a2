# GPU tests (GoogleTest): built when CUDA is present, each test skips itself
# when no device is found, and ctest reports that run as skipped, not passed.
# Linked statically (liblz4, GoogleTest, CUDA runtime, libstdc++) so that the
# binaries run on a GPU host without Debian's -dev packages.
if(OZRAM_HAVE_CUDA)
  set(kernel_tests_dir ${PROJECT_SOURCE_DIR}/tests/unit/kernels)
  set(gpu_test_helpers ${kernel_tests_dir}/test_pages.cpp ${kernel_tests_dir}/fuzz_blocks.cpp)

  foreach(binary ozram_gpu_tests ozram_gpu_sanitize_tests)
    if(binary STREQUAL "ozram_gpu_tests")
      add_executable(${binary} ${CMAKE_CURRENT_LIST_DIR}/gpu_codec_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/gpu_pipeline_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/gpu_in_place_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/gpu_fuzz_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/gpu_block_shape_test.cpp
                               ${gpu_test_helpers})
    else()
      add_executable(${binary} ${CMAKE_CURRENT_LIST_DIR}/gpu_sanitize_test.cpp
                               ${gpu_test_helpers})
    endif()
    target_include_directories(${binary} PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${kernel_tests_dir})
    target_link_libraries(${binary} PRIVATE ozram_core ozram_kernel_headers lz4_static
                                            GTest::gtest_main CUDA::cudart_static)
    target_link_options(${binary} PRIVATE -static-libstdc++ -static-libgcc)
    add_test(NAME ${binary} COMMAND ${binary})
    set_tests_properties(${binary} PROPERTIES SKIP_REGULAR_EXPRESSION "no CUDA device found")
  endforeach()
else()
  # Without CUDA the API must still link and report ENODEV.
  add_executable(ozram_gpu_unavailable_tests ${CMAKE_CURRENT_LIST_DIR}/gpu_unavailable_test.cpp)
  target_link_libraries(ozram_gpu_unavailable_tests PRIVATE ozram_core GTest::gtest_main)
  add_test(NAME ozram_gpu_unavailable_tests COMMAND ozram_gpu_unavailable_tests)
endif()
