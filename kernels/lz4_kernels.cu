// The __global__ wrappers: block b's warp w handles page b * warps + w, with
// its scratch in the block's static shared memory.
#include "lz4_compress.cuh"
#include "lz4_decompress.cuh"
#include "lz4_kernels.hpp"

namespace ozram::kernels {
namespace {

constexpr std::uint32_t COMPRESS_THREADS = COMPRESS_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t DECOMPRESS_THREADS = DECOMPRESS_WARPS_PER_BLOCK * WARP_SIZE;

__global__ void __launch_bounds__(COMPRESS_THREADS)
    compress_pages_kernel(const std::uint8_t* __restrict__ pages, std::uint8_t* __restrict__ slots,
                          PageDescriptor* __restrict__ descriptors, std::uint32_t count,
                          std::uint32_t huge_threshold) {
    __shared__ CompressScratch scratch[COMPRESS_WARPS_PER_BLOCK];
    const unsigned warp = threadIdx.x / WARP_SIZE;
    const std::uint64_t page = std::uint64_t{blockIdx.x} * COMPRESS_WARPS_PER_BLOCK + warp;
    if (page >= count)
        return;  // the whole warp leaves together
    compress_page(Warp{}, scratch[warp], pages + page * PAGE_SIZE, slots + page * PAGE_SIZE,
                  descriptors[page], huge_threshold);
}

__global__ void __launch_bounds__(DECOMPRESS_THREADS)
    decompress_pages_kernel(const std::uint8_t* __restrict__ slots,
                            PageDescriptor* __restrict__ descriptors,
                            std::uint8_t* __restrict__ pages, std::uint32_t count) {
    __shared__ DecompressScratch scratch[DECOMPRESS_WARPS_PER_BLOCK];
    const unsigned warp = threadIdx.x / WARP_SIZE;
    const std::uint64_t page = std::uint64_t{blockIdx.x} * DECOMPRESS_WARPS_PER_BLOCK + warp;
    if (page >= count)
        return;
    decompress_page(Warp{}, scratch[warp], slots + page * PAGE_SIZE, descriptors[page],
                    pages + page * PAGE_SIZE);
}

std::uint32_t blocks_for(std::uint32_t count, std::uint32_t warps_per_block) {
    return (count + warps_per_block - 1) / warps_per_block;
}

}  // namespace

cudaError_t launch_compress_pages(const std::uint8_t* pages, std::uint8_t* slots,
                                  PageDescriptor* descriptors, std::uint32_t count,
                                  std::uint32_t huge_threshold, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    compress_pages_kernel<<<blocks_for(count, COMPRESS_WARPS_PER_BLOCK), COMPRESS_THREADS, 0,
                            stream>>>(pages, slots, descriptors, count, huge_threshold);
    return cudaGetLastError();
}

cudaError_t launch_decompress_pages(const std::uint8_t* slots, PageDescriptor* descriptors,
                                    std::uint8_t* pages, std::uint32_t count, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    decompress_pages_kernel<<<blocks_for(count, DECOMPRESS_WARPS_PER_BLOCK), DECOMPRESS_THREADS, 0,
                              stream>>>(slots, descriptors, pages, count);
    return cudaGetLastError();
}

}  // namespace ozram::kernels
