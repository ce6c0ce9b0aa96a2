# The GPU backend.  With CUDA: the LZ4 page kernels (the objects of
# kernels/lz4_kernels.cu), the slot pipeline and the device queries, linked
# with the static CUDA runtime.  Without: a stub whose entry points report
# ENODEV.  The supported-device rule and the host-region lookup are shared by
# both, so that their tests run in either build.
target_sources(ozram_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/device_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_regions.cpp)
if(OZRAM_HAVE_CUDA)
  target_sources(ozram_core PRIVATE
    $<TARGET_OBJECTS:ozram_lz4_kernels>
    ${CMAKE_CURRENT_LIST_DIR}/device_info.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gpu_batch_compressor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/slot_pipeline.cpp)
  target_link_libraries(ozram_core PRIVATE ozram_kernel_headers)
  target_link_libraries(ozram_core PUBLIC CUDA::cudart_static)
  target_compile_definitions(ozram_core PUBLIC OZRAM_HAVE_CUDA=1)
else()
  target_sources(ozram_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu_unavailable.cpp)
endif()
