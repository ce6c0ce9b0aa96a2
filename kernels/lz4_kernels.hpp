// Host entry points of the GPU backend's kernels (lz4_kernels.cu), in the
// order a batch runs them.  One warp a page; pages and compressed slots lie
// PAGE_SIZE apart in device memory; other addresses are device addresses
// (std::uint64_t) of device memory or of host memory mapped into the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "block_shape.hpp"
#include "compress_kernel.hpp"
#include "page_codec.cuh"

namespace ozram::kernels {

// Warps (pages) per block.  A compression kernel's blocks take the shape
// that keeps the most of its warps on a multiprocessor (block_shape.hpp),
// found on the device: for the window kernels on an H100, whose 228 KiB of
// shared memory per multiprocessor also hold 1 KiB per block, blocks of 4
// warps keep 24 of window-11 (8 KiB each) where blocks of 14 keep 28.
inline constexpr unsigned MAX_COMPRESS_WARPS_PER_BLOCK = 32;
inline constexpr unsigned DECOMPRESS_WARPS_PER_BLOCK = 4;
inline constexpr unsigned COPY_WARPS_PER_BLOCK = 8;

// Copies the page at sources[i] (16-byte aligned) to pages + i * PAGE_SIZE.
cudaError_t launch_gather_pages(const std::uint64_t* sources, std::uint8_t* pages,
                                std::uint32_t count, cudaStream_t stream);

// The block shape of `kernel` on the current device, found once per device
// with the CUDA occupancy calculator: of 1 to 32 warps a block, the size that
// keeps the most warps on a multiprocessor, the smallest of those.  With
// warps_per_block, the warps that blocks of that size keep resident (0 when
// such a block does not fit).
cudaError_t compress_block_shape(CompressKernel kernel, BlockShape& shape,
                                 unsigned warps_per_block = 0);

// Compresses pages + i * PAGE_SIZE into slots + i * PAGE_SIZE and
// descriptors[i] with `kernel`; an LZ4 block longer than huge_threshold bytes
// is stored raw (the page copied to its slot).  With `destinations`, page i's
// stored bytes (stored_bytes() with raw_kept) also go to destinations[i], a
// buffer of whole 16-byte vectors (16-byte aligned, rounded up).  Blocks of
// compress_block_shape()'s size, or of warps_per_block warps when it is not
// 0 (for measurements of other shapes).
cudaError_t launch_compress_pages(CompressKernel kernel, const std::uint8_t* pages,
                                  std::uint8_t* slots, PageDescriptor* descriptors,
                                  std::uint32_t count, std::uint32_t huge_threshold,
                                  cudaStream_t stream, const std::uint64_t* destinations = nullptr,
                                  bool raw_kept = false, unsigned warps_per_block = 0);

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
