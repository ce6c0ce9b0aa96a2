// One warp per page.  Each lane issues all of its 16-byte loads before its
// first store, so that a warp keeps a whole page of reads in flight across
// the bus: mapped host memory answers in microseconds, not nanoseconds, and
// the bandwidth of the gather is the number of bytes in flight over that
// latency.  The loads are streaming (__ldcs): each byte is read once, and
// the same host addresses hold other pages in the next batch.
#include "page_codec.cuh"
#include "page_gather.hpp"
#include "warp.cuh"

namespace ozram::kernels {
namespace {

constexpr std::uint32_t GATHER_THREADS = GATHER_WARPS_PER_BLOCK * WARP_SIZE;
constexpr unsigned VECTORS_PER_PAGE = PAGE_SIZE / sizeof(uint4);
constexpr unsigned VECTORS_PER_LANE = VECTORS_PER_PAGE / WARP_SIZE;
static_assert(VECTORS_PER_LANE * WARP_SIZE * sizeof(uint4) == PAGE_SIZE);

__global__ void __launch_bounds__(GATHER_THREADS)
    gather_pages_kernel(const std::uint64_t* __restrict__ sources, std::uint8_t* __restrict__ pages,
                        std::uint32_t count) {
    const unsigned warp = threadIdx.x / WARP_SIZE;
    const unsigned lane = threadIdx.x % WARP_SIZE;
    const std::uint64_t page = std::uint64_t{blockIdx.x} * GATHER_WARPS_PER_BLOCK + warp;
    if (page >= count)
        return;
    const auto* from = reinterpret_cast<const uint4*>(sources[page]);
    auto* to = reinterpret_cast<uint4*>(pages + page * PAGE_SIZE);
    uint4 in_flight[VECTORS_PER_LANE];
#pragma unroll
    for (unsigned k = 0; k < VECTORS_PER_LANE; ++k)
        in_flight[k] = __ldcs(from + k * WARP_SIZE + lane);  // 512 contiguous bytes a warp
#pragma unroll
    for (unsigned k = 0; k < VECTORS_PER_LANE; ++k)
        to[k * WARP_SIZE + lane] = in_flight[k];
}

}  // namespace

cudaError_t launch_gather_pages(const std::uint64_t* sources, std::uint8_t* pages,
                                std::uint32_t count, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    const std::uint32_t blocks = (count + GATHER_WARPS_PER_BLOCK - 1) / GATHER_WARPS_PER_BLOCK;
    gather_pages_kernel<<<blocks, GATHER_THREADS, 0, stream>>>(sources, pages, count);
    return cudaGetLastError();
}

}  // namespace ozram::kernels
