// The __global__ wrappers of the page operations: block b's warp w handles
// page b * warps + w.  The compressors' scratch is dynamic shared memory,
// sized per kernel and block shape (more than the 48 KiB of static shared
// memory a block may have).
#include <algorithm>
#include <atomic>
#include <cub/block/block_scan.cuh>

#include "lz4_compress.cuh"
#include "lz4_decompress.cuh"
#include "lz4_kernels.hpp"
#include "page_copy.cuh"

namespace ozram::kernels {
namespace {

constexpr std::uint32_t DECOMPRESS_THREADS = DECOMPRESS_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t COPY_THREADS = COPY_WARPS_PER_BLOCK * WARP_SIZE;
constexpr std::uint32_t SCAN_THREADS = 1024;

// Registers a compression thread may take.  At 48, shared memory alone
// limits the warps a multiprocessor keeps, for every window kernel
// (window-10's 36 would allow 56).  Left to itself, for blocks of up to 32
// warps, the compiler takes 64, which would hold window-10 to 32 warps.  The
// build refuses a kernel that spills under the cap (kernels/CMakeLists.txt).
constexpr int COMPRESS_REGISTERS = 48;

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
__global__ void __maxnreg__(COMPRESS_REGISTERS)
    compress_pages_kernel(const std::uint8_t* __restrict__ pages, std::uint8_t* __restrict__ slots,
                          PageDescriptor* __restrict__ descriptors, std::uint32_t count,
                          std::uint32_t huge_threshold,
                          const std::uint64_t* __restrict__ destinations, bool raw_kept) {
    extern __shared__ uint4 shared_words[];
    auto* scratch = reinterpret_cast<CompressScratch<Kernel>*>(shared_words);
    const std::uint64_t page = page_of_warp(blockDim.x / WARP_SIZE);
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

// Block shapes found, by device and kernel: warps_per_block << 8 |
// warps_per_multiprocessor, 0 until found.  A process drives at most a few
// devices; one past the table is asked again at each launch.
constexpr int SHAPE_DEVICES = 64;
std::atomic<std::uint32_t> found_shapes[SHAPE_DEVICES][ALL_COMPRESS_KERNELS.size()];

// The most warps a block of `Kernel` may hold on `device`: as many as the
// shared memory a block may take has scratch for, at most 32.
template <CompressKernel Kernel>
cudaError_t max_warps_on(int device, unsigned& max_warps) {
    int block_bytes = 0;
    const cudaError_t status =
        cudaDeviceGetAttribute(&block_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    max_warps =
        std::min<unsigned>(MAX_COMPRESS_WARPS_PER_BLOCK,
                           static_cast<unsigned>(block_bytes) / sizeof(CompressScratch<Kernel>));
    return status;
}

template <CompressKernel Kernel>
cudaError_t find_shape(int device, BlockShape& shape) {
    constexpr std::size_t scratch_bytes = sizeof(CompressScratch<Kernel>);
    unsigned max_warps = 0;
    cudaError_t status = max_warps_on<Kernel>(device, max_warps);
    if (status != cudaSuccess)
        return status;
    // Above 48 KiB a kernel must ask for its dynamic shared memory: once
    // for the largest block, here, not on every launch, so that no launch
    // waits on the driver for it.
    status = cudaFuncSetAttribute(compress_pages_kernel<Kernel>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(max_warps * scratch_bytes));
    if (status != cudaSuccess)
        return status;
    shape = most_resident_shape(max_warps, [&](unsigned warps) {
        int blocks = 0;
        if (status == cudaSuccess)
            status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, compress_pages_kernel<Kernel>, static_cast<int>(warps * WARP_SIZE),
                warps * scratch_bytes);
        return status == cudaSuccess ? blocks : 0;
    });
    if (status == cudaSuccess && shape.warps_per_block == 0)
        status = cudaErrorInvalidConfiguration;  // not even one warp's scratch fits
    return status;
}

// The shape that keeps the most warps resident, found once per device.
template <CompressKernel Kernel>
cudaError_t most_resident(BlockShape& shape) {
    int device = 0;
    if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess)
        return status;
    std::atomic<std::uint32_t>* const slot =
        device < SHAPE_DEVICES ? &found_shapes[device][static_cast<std::size_t>(Kernel)] : nullptr;
    if (slot != nullptr) {
        if (const std::uint32_t found = slot->load(std::memory_order_relaxed); found != 0) {
            shape = {found >> 8, found & 0xffu};
            return cudaSuccess;
        }
    }
    const cudaError_t status = find_shape<Kernel>(device, shape);
    if (status == cudaSuccess && slot != nullptr)  // two threads store the same shape
        slot->store(shape.warps_per_block << 8 | shape.warps_per_multiprocessor,
                    std::memory_order_relaxed);
    return status;
}

// Blocks of `warps` warps, or the most resident shape for 0.
template <CompressKernel Kernel>
cudaError_t shape_of(unsigned warps, BlockShape& shape) {
    // The most resident shape is found first, whatever the size asked
    // for: finding it also grants the shared memory of the largest block.
    if (const cudaError_t status = most_resident<Kernel>(shape);
        status != cudaSuccess || warps == 0 || warps == shape.warps_per_block)
        return status;
    if (warps > MAX_COMPRESS_WARPS_PER_BLOCK)
        return cudaErrorInvalidValue;
    int device = 0;
    unsigned max_warps = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess)
        status = max_warps_on<Kernel>(device, max_warps);
    if (status != cudaSuccess || warps > max_warps) {
        shape = {warps, 0};  // more scratch than a block may have: none fits
        return status;
    }
    int blocks = 0;
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, compress_pages_kernel<Kernel>,
                                                           static_cast<int>(warps * WARP_SIZE),
                                                           warps * sizeof(CompressScratch<Kernel>));
    shape = {warps, warps * static_cast<unsigned>(blocks)};
    return status;
}

template <CompressKernel Kernel>
cudaError_t launch_compress(unsigned warps_per_block, const std::uint8_t* pages,
                            std::uint8_t* slots, PageDescriptor* descriptors, std::uint32_t count,
                            std::uint32_t huge_threshold, const std::uint64_t* destinations,
                            bool raw_kept, cudaStream_t stream) {
    BlockShape shape;
    if (const cudaError_t status = most_resident<Kernel>(shape); status != cudaSuccess)
        return status;
    const unsigned warps = warps_per_block != 0 ? warps_per_block : shape.warps_per_block;
    if (warps > MAX_COMPRESS_WARPS_PER_BLOCK)
        return cudaErrorInvalidValue;
    compress_pages_kernel<Kernel>
        <<<blocks_for(count, warps), warps * WARP_SIZE, warps * sizeof(CompressScratch<Kernel>),
           stream>>>(pages, slots, descriptors, count, huge_threshold, destinations, raw_kept);
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

cudaError_t compress_block_shape(CompressKernel kernel, BlockShape& shape,
                                 unsigned warps_per_block) {
    switch (kernel) {
        case CompressKernel::Window12:
            return shape_of<CompressKernel::Window12>(warps_per_block, shape);
        case CompressKernel::Window11:
            return shape_of<CompressKernel::Window11>(warps_per_block, shape);
        case CompressKernel::Window10:
            return shape_of<CompressKernel::Window10>(warps_per_block, shape);
        case CompressKernel::Reprobe:
            return shape_of<CompressKernel::Reprobe>(warps_per_block, shape);
    }
    return cudaErrorInvalidValue;
}

cudaError_t launch_compress_pages(CompressKernel kernel, const std::uint8_t* pages,
                                  std::uint8_t* slots, PageDescriptor* descriptors,
                                  std::uint32_t count, std::uint32_t huge_threshold,
                                  cudaStream_t stream, const std::uint64_t* destinations,
                                  bool raw_kept, unsigned warps_per_block) {
    if (count == 0)
        return cudaSuccess;
    switch (kernel) {
        case CompressKernel::Window12:
            return launch_compress<CompressKernel::Window12>(warps_per_block, pages, slots,
                                                             descriptors, count, huge_threshold,
                                                             destinations, raw_kept, stream);
        case CompressKernel::Window11:
            return launch_compress<CompressKernel::Window11>(warps_per_block, pages, slots,
                                                             descriptors, count, huge_threshold,
                                                             destinations, raw_kept, stream);
        case CompressKernel::Window10:
            return launch_compress<CompressKernel::Window10>(warps_per_block, pages, slots,
                                                             descriptors, count, huge_threshold,
                                                             destinations, raw_kept, stream);
        case CompressKernel::Reprobe:
            return launch_compress<CompressKernel::Reprobe>(warps_per_block, pages, slots,
                                                            descriptors, count, huge_threshold,
                                                            destinations, raw_kept, stream);
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
