// Host entry points of the GPU backend's kernels (lz4_kernels.cu), in the
// order a batch runs them.  One warp a page; pages and compressed slots lie
// PAGE_SIZE apart in device memory; other addresses are device addresses
// (std::uint64_t) of device memory or of host memory mapped into the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "compress_kernel.hpp"
#include "page_codec.cuh"

namespace ozram::kernels {

// Warps (pages) per block.  Small blocks let a multiprocessor fill its shared
// memory in fine steps: with 4 warps of 6 to 12 KiB of compressor scratch
// each, an H100's 228 KiB hold 4 to 8 blocks.
inline constexpr unsigned COMPRESS_WARPS_PER_BLOCK = 4;
inline constexpr unsigned DECOMPRESS_WARPS_PER_BLOCK = 4;
inline constexpr unsigned COPY_WARPS_PER_BLOCK = 8;

// Copies the page at sources[i] (16-byte aligned) to pages + i * PAGE_SIZE.
cudaError_t launch_gather_pages(const std::uint64_t* sources, std::uint8_t* pages,
                                std::uint32_t count, cudaStream_t stream);

// Compresses pages + i * PAGE_SIZE into slots + i * PAGE_SIZE and
// descriptors[i] with `kernel`; an LZ4 block longer than huge_threshold bytes
// is stored raw (the page copied to its slot).  With `destinations`, page i's
// stored bytes (stored_bytes() with raw_kept) also go to destinations[i], a
// buffer of whole 16-byte vectors (16-byte aligned, rounded up).
cudaError_t launch_compress_pages(CompressKernel kernel, const std::uint8_t* pages,
                                  std::uint8_t* slots, PageDescriptor* descriptors,
                                  std::uint32_t count, std::uint32_t huge_threshold,
                                  cudaStream_t stream, const std::uint64_t* destinations = nullptr,
                                  bool raw_kept = false);

// offsets[i] = the sum of stored_bytes() of the pages before i, and *total
// the sum of all: where each page lies in a packed output.
cudaError_t launch_pack_offsets(const PageDescriptor* descriptors, std::uint32_t count,
                                bool raw_kept, std::uint32_t* offsets, std::uint32_t* total,
                                cudaStream_t stream);

// Copies each page's stored bytes from its slot to packed + offsets[i]
// (exactly).  Slots are padded by BUFFER_PAD.
cudaError_t launch_copy_out(const std::uint8_t* slots, const PageDescriptor* descriptors,
                            std::uint32_t count, bool raw_kept, std::uint64_t packed,
                            const std::uint32_t* offsets, cudaStream_t stream);

// Restores page i from the block at blocks + offsets[i] (descriptors[i].size
// bytes) into the PAGE_SIZE bytes at destinations[i] (16-byte aligned), and
// sets descriptors[i].status.  On an error the destination is untouched.
cudaError_t launch_decompress_pages(const std::uint8_t* blocks, const std::uint32_t* offsets,
                                    PageDescriptor* descriptors, const std::uint64_t* destinations,
                                    std::uint32_t count, cudaStream_t stream);

}  // namespace ozram::kernels
