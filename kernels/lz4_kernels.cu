// The __global__ wrappers of the page operations: block b's warp w handles
// page b * warps + w.  The compressors' scratch is dynamic shared memory,
// sized per kernel (more than the 48 KiB of static shared memory a block
// may have).
#include <cub/block/block_scan.cuh>

#include "lz4_compress.cuh"
#include "lz4_decompress.cuh"
#include "lz4_kernels.hpp"
#include "page_copy.cuh"

namespace ozram::kernels {
namespace {

constexpr std::uint32_t COMPRESS_THREADS = COMPRESS_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t DECOMPRESS_THREADS = DECOMPRESS_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t COPY_THREADS = COPY_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t SCAN_THREADS = 1024;

// The page this warp handles, in a block of `warps` warps.
__device__ std::uint64_t page_of_warp(unsigned warps) {
    return std::uint64_t{blockIdx.x} * warps + threadIdx.x / WARP_SIZE;
}

std::uint32_t blocks_for(std::uint32_t count, std::uint32_t warps_per_block) {
    return (count + warps_per_block - 1) / warps_per_block;
}

__device__ std::uint8_t* at_address(std::uint64_t address) {
    return reinterpret_cast<std::uint8_t*>(address);
}

__global__ void __launch_bounds__(COPY_THREADS)
    gather_pages_kernel(const std::uint64_t* __restrict__ sources, std::uint8_t* __restrict__ pages,
                        std::uint32_t count) {
    const std::uint64_t page = page_of_warp(COPY_WARPS_PER_BLOCK);
    if (page >= count)
        return;  // the whole warp leaves together
    gather_page(Warp{}, at_address(sources[page]), pages + page * PAGE_SIZE);
}

// With destinations, each warp also copies its page's stored bytes to the
// page's own buffer (host memory mapped into the device) as soon as they
// are in its slot.  A separate copy-out kernel would wait for the
// multiprocessors behind the compression kernels of the other batches in
// flight, and hold its batch's completion back.
template <CompressKernel Kernel>
__global__ void __launch_bounds__(COMPRESS_THREADS)
    compress_pages_kernel(const std::uint8_t* __restrict__ pages, std::uint8_t* __restrict__ slots,
                          PageDescriptor* __restrict__ descriptors, std::uint32_t count,
                          std::uint32_t huge_threshold,
                          const std::uint64_t* __restrict__ destinations, bool raw_kept) {
    extern __shared__ uint4 shared_words[];
    auto* scratch = reinterpret_cast<CompressScratch<Kernel>*>(shared_words);
    const std::uint64_t page = page_of_warp(COMPRESS_WARPS_PER_BLOCK);
    if (page >= count)
        return;
    const Warp warp;
    std::uint8_t* const slot = slots + page * PAGE_SIZE;
    const PageDescriptor result =
        compress_page<Kernel>(warp, scratch[threadIdx.x / WARP_SIZE], pages + page * PAGE_SIZE,
                              slot, descriptors[page], huge_threshold);
    if (destinations == nullptr)
        return;
    const std::uint32_t bytes = stored_bytes(result, raw_kept);
    if (bytes == 0)
        return;
    warp.sync();  // the lanes' writes to the slot, before any lane reads them
    copy_block(warp, slot, at_address(destinations[page]), bytes);
}

template <CompressKernel Kernel>
cudaError_t launch_compress(const std::uint8_t* pages, std::uint8_t* slots,
                            PageDescriptor* descriptors, std::uint32_t count,
                            std::uint32_t huge_threshold, const std::uint64_t* destinations,
                            bool raw_kept, cudaStream_t stream) {
    constexpr std::size_t shared_bytes = sizeof(CompressScratch<Kernel>) * COMPRESS_WARPS_PER_BLOCK;
    // Above 48 KiB a kernel must ask for its dynamic shared memory, once per
    // function: not on every launch, so that no launch waits on the driver
    // for it.
    if constexpr (shared_bytes > 48 * 1024) {
        static const cudaError_t granted = cudaFuncSetAttribute(
            compress_pages_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(shared_bytes));
        if (granted != cudaSuccess)
            return granted;
    }
    compress_pages_kernel<Kernel>
        <<<blocks_for(count, COMPRESS_WARPS_PER_BLOCK), COMPRESS_THREADS, shared_bytes, stream>>>(
            pages, slots, descriptors, count, huge_threshold, destinations, raw_kept);
    return cudaGetLastError();
}

// One block scans the whole batch, SCAN_THREADS pages a step.
__global__ void __launch_bounds__(SCAN_THREADS)
    pack_offsets_kernel(const PageDescriptor* __restrict__ descriptors, std::uint32_t count,
                        bool raw_kept, std::uint32_t* __restrict__ offsets,
                        std::uint32_t* __restrict__ total) {
    using Scan = cub::BlockScan<std::uint32_t, SCAN_THREADS>;
    __shared__ typename Scan::TempStorage scan_storage;
    std::uint32_t carried = 0;  // every thread keeps the same running sum
    for (std::uint32_t base = 0; base < count; base += SCAN_THREADS) {
        const std::uint32_t i = base + threadIdx.x;
        const std::uint32_t bytes = i < count ? stored_bytes(descriptors[i], raw_kept) : 0;
        std::uint32_t before = 0;
        std::uint32_t step_total = 0;
        Scan(scan_storage).ExclusiveSum(bytes, before, step_total);
        if (i < count)
            offsets[i] = carried + before;
        carried += step_total;
        __syncthreads();  // the scan's storage is reused by the next step
    }
    if (threadIdx.x == 0)
        *total = carried;
}

__global__ void __launch_bounds__(COPY_THREADS)
    copy_out_kernel(const std::uint8_t* __restrict__ slots,
                    const PageDescriptor* __restrict__ descriptors, std::uint32_t count,
                    bool raw_kept, std::uint64_t packed,
                    const std::uint32_t* __restrict__ offsets) {
    const std::uint64_t page = page_of_warp(COPY_WARPS_PER_BLOCK);
    if (page >= count)
        return;
    const std::uint32_t bytes = stored_bytes(descriptors[page], raw_kept);
    if (bytes == 0)
        return;
    copy_to_unaligned(Warp{}, slots + page * PAGE_SIZE, at_address(packed + offsets[page]), bytes);
}

__global__ void __launch_bounds__(DECOMPRESS_THREADS)
    decompress_pages_kernel(const std::uint8_t* __restrict__ blocks,
                            const std::uint32_t* __restrict__ offsets,
                            PageDescriptor* __restrict__ descriptors,
                            const std::uint64_t* __restrict__ destinations, std::uint32_t count) {
    __shared__ DecompressScratch scratch[DECOMPRESS_WARPS_PER_BLOCK];
    const std::uint64_t page = page_of_warp(DECOMPRESS_WARPS_PER_BLOCK);
    if (page >= count)
        return;
    decompress_page(Warp{}, scratch[threadIdx.x / WARP_SIZE], blocks + offsets[page],
                    descriptors[page], at_address(destinations[page]));
}

}  // namespace

cudaError_t launch_gather_pages(const std::uint64_t* sources, std::uint8_t* pages,
                                std::uint32_t count, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    gather_pages_kernel<<<blocks_for(count, COPY_WARPS_PER_BLOCK), COPY_THREADS, 0, stream>>>(
        sources, pages, count);
    return cudaGetLastError();
}

cudaError_t launch_compress_pages(CompressKernel kernel, const std::uint8_t* pages,
                                  std::uint8_t* slots, PageDescriptor* descriptors,
                                  std::uint32_t count, std::uint32_t huge_threshold,
                                  cudaStream_t stream, const std::uint64_t* destinations,
                                  bool raw_kept) {
    if (count == 0)
        return cudaSuccess;
    switch (kernel) {
        case CompressKernel::Window12:
            return launch_compress<CompressKernel::Window12>(
                pages, slots, descriptors, count, huge_threshold, destinations, raw_kept, stream);
        case CompressKernel::Window11:
            return launch_compress<CompressKernel::Window11>(
                pages, slots, descriptors, count, huge_threshold, destinations, raw_kept, stream);
        case CompressKernel::Window10:
            return launch_compress<CompressKernel::Window10>(
                pages, slots, descriptors, count, huge_threshold, destinations, raw_kept, stream);
        case CompressKernel::Reprobe:
            return launch_compress<CompressKernel::Reprobe>(
                pages, slots, descriptors, count, huge_threshold, destinations, raw_kept, stream);
    }
    return cudaErrorInvalidValue;
}

cudaError_t launch_pack_offsets(const PageDescriptor* descriptors, std::uint32_t count,
                                bool raw_kept, std::uint32_t* offsets, std::uint32_t* total,
                                cudaStream_t stream) {
    pack_offsets_kernel<<<1, SCAN_THREADS, 0, stream>>>(descriptors, count, raw_kept, offsets,
                                                        total);
    return cudaGetLastError();
}

cudaError_t launch_copy_out(const std::uint8_t* slots, const PageDescriptor* descriptors,
                            std::uint32_t count, bool raw_kept, std::uint64_t packed,
                            const std::uint32_t* offsets, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    copy_out_kernel<<<blocks_for(count, COPY_WARPS_PER_BLOCK), COPY_THREADS, 0, stream>>>(
        slots, descriptors, count, raw_kept, packed, offsets);
    return cudaGetLastError();
}

cudaError_t launch_decompress_pages(const std::uint8_t* blocks, const std::uint32_t* offsets,
                                    PageDescriptor* descriptors, const std::uint64_t* destinations,
                                    std::uint32_t count, cudaStream_t stream) {
    if (count == 0)
        return cudaSuccess;
    decompress_pages_kernel<<<blocks_for(count, DECOMPRESS_WARPS_PER_BLOCK), DECOMPRESS_THREADS, 0,
                              stream>>>(blocks, offsets, descriptors, destinations, count);
    return cudaGetLastError();
}

}  // namespace ozram::kernels
