# The GPU backend.  Its host half (the pipeline over a Device, the
# compressor, the supported-device rule and the host-region lookup) is built
# in every build, so that its tests run on the emulated device without a
# GPU.  With CUDA: the kernels (kernels/lz4_kernels.cu), the CUDA device and
# the device queries, linked with the static CUDA runtime.  Without: device
# queries that report ENODEV.
target_sources(ozram_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_batch_compressor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_regions.cpp)
target_link_libraries(ozram_core PRIVATE ozram_kernel_headers)
if(OZRAM_HAVE_CUDA)
  target_sources(ozram_core PRIVATE
    $<TARGET_OBJECTS:ozram_lz4_kernels>
    ${CMAKE_CURRENT_LIST_DIR}/cuda_device.cpp
    ${CMAKE_CURRENT_LIST_DIR}/device_info.cpp)
  target_link_libraries(ozram_core PUBLIC CUDA::cudart_static)
  target_compile_definitions(ozram_core PUBLIC OZRAM_HAVE_CUDA=1)
else()
  target_sources(ozram_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu_unavailable.cpp)
endif()
