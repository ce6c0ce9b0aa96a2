// The gather kernel: the device reads pages where they lie in host memory
// registered with the driver (cudaHostRegister, mapped) and lays them out
// PAGE_SIZE apart in device memory for the compression kernel.  It stands in
// for the host copying each page into a pinned buffer and one bulk upload.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ozram::kernels {

inline constexpr unsigned GATHER_WARPS_PER_BLOCK = 8;

// Copies the page at device address sources[i] (16-byte aligned, in mapped
// host memory or on the device) to pages[i * PAGE_SIZE, +PAGE_SIZE), for
// i < count.  Returns the launch error, if any.
cudaError_t launch_gather_pages(const std::uint64_t* sources, std::uint8_t* pages,
                                std::uint32_t count, cudaStream_t stream);

}  // namespace ozram::kernels
