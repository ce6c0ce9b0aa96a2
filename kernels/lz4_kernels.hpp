// Host entry points of the LZ4 page kernels (lz4_kernels.cu): one warp per
// page, pages and slots PAGE_SIZE apart in device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "page_codec.cuh"

namespace ozram::kernels {

// Warps (pages) per block.  4 warps x 12 KiB of compressor scratch is the 48
// KiB of static shared memory a block may have; whether more, smaller blocks
// or dynamic shared memory up to 228 KiB per SM keep an H100 busier is still
// to be measured.
inline constexpr unsigned COMPRESS_WARPS_PER_BLOCK = 4;
inline constexpr unsigned DECOMPRESS_WARPS_PER_BLOCK = 4;

// Compresses pages[i * PAGE_SIZE, +PAGE_SIZE) into slots[i * PAGE_SIZE, ...)
// and descriptors[i], for i < count; an LZ4 block longer than huge_threshold
// bytes is stored raw.  Returns the launch error, if any.
cudaError_t launch_compress_pages(const std::uint8_t* pages, std::uint8_t* slots,
                                  PageDescriptor* descriptors, std::uint32_t count,
                                  std::uint32_t huge_threshold, cudaStream_t stream);

// Restores pages[i] from slots[i] and descriptors[i] (encoding, size, fill_word)
// and sets descriptors[i].status, for i < count.
cudaError_t launch_decompress_pages(const std::uint8_t* slots, PageDescriptor* descriptors,
                                    std::uint8_t* pages, std::uint32_t count, cudaStream_t stream);

}  // namespace ozram::kernels
