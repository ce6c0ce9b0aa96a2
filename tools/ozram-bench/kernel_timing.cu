#include <cuda_runtime.h>
#include <lz4.h>

#include <cstring>

#include "kernel_timing.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/lz4_kernels.hpp"
#include "kernels/page_copy.cuh"
#include "ozram/page.hpp"

namespace ozram::bench {
namespace {

using kernels::PageDescriptor;

using kernels::check_cuda;
using kernels::device_alloc;

struct Timer {
    cudaEvent_t start = nullptr, stop = nullptr;
    Timer() {
        check_cuda(cudaEventCreate(&start), "cudaEventCreate");
        check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    }
    ~Timer() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    template <class Launch>
    double gbps(std::uint64_t bytes, Launch&& launch) {
        check_cuda(cudaEventRecord(start), "cudaEventRecord");
        check_cuda(launch(), "kernel launch");
        check_cuda(cudaEventRecord(stop), "cudaEventRecord");
        check_cuda(cudaEventSynchronize(stop), "kernel");
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        return static_cast<double>(bytes) / (static_cast<double>(ms) * 1e6);
    }
};

KernelRun measure_one(GpuCompressKernel kernel, const std::uint8_t* const* pages,
                      std::uint32_t count, const std::uint8_t* device_pages, unsigned repeats,
                      std::uint32_t threshold, unsigned warps_per_block) {
    const std::uint64_t bytes = std::uint64_t{count} * PAGE_SIZE;
    const auto slots = device_alloc<std::uint8_t>(bytes, kernels::BUFFER_PAD);
    const auto descriptors = device_alloc<PageDescriptor>(count);
    const auto restored = device_alloc<std::uint8_t>(bytes, kernels::BUFFER_PAD);
    const auto restore_descriptors = device_alloc<PageDescriptor>(count);
    const auto offsets = device_alloc<std::uint32_t>(count);
    const auto destinations = device_alloc<std::uint64_t>(count);
    std::vector<std::uint32_t> host_offsets(count);
    std::vector<std::uint64_t> host_destinations(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        host_offsets[i] = i * PAGE_SIZE;
        host_destinations[i] =
            reinterpret_cast<std::uint64_t>(restored.get() + std::size_t{i} * PAGE_SIZE);
    }
    check_cuda(cudaMemcpy(offsets.get(), host_offsets.data(), count * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(destinations.get(), host_destinations.data(),
                          count * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
               "cudaMemcpy");

    Timer timer;
    const auto compress = [&] {
        return kernels::launch_compress_pages(kernel, device_pages, slots.get(), descriptors.get(),
                                              count, threshold, nullptr, nullptr, false,
                                              warps_per_block);
    };
    const auto decompress = [&] {
        return kernels::launch_decompress_pages(slots.get(), offsets.get(),
                                                restore_descriptors.get(), destinations.get(),
                                                count, nullptr);
    };
    KernelRun row;
    kernels::BlockShape shape;
    check_cuda(kernels::compress_block_shape(kernel, shape, warps_per_block), "block shape");
    row.warps_per_block = shape.warps_per_block;
    row.resident_warps = shape.warps_per_multiprocessor;
    timer.gbps(bytes, compress);  // warm-up: module load, first launch
    for (unsigned r = 0; r < repeats; ++r)
        row.compress_gbps.push_back(timer.gbps(bytes, compress));

    std::vector<PageDescriptor> host_descriptors(count);
    check_cuda(cudaMemcpy(host_descriptors.data(), descriptors.get(),
                          count * sizeof(PageDescriptor), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    for (unsigned r = 0; r <= repeats; ++r) {
        // Each decode sets the statuses: start from the compressor's own.
        check_cuda(cudaMemcpy(restore_descriptors.get(), descriptors.get(),
                              count * sizeof(PageDescriptor), cudaMemcpyDeviceToDevice),
                   "cudaMemcpy");
        const double gbps = timer.gbps(bytes, decompress);
        if (r > 0)  // the first is the warm-up
            row.decompress_gbps.push_back(gbps);
    }

    // Every result, checked on the host.
    std::vector<std::uint8_t> blocks(bytes);
    std::vector<std::uint8_t> rebuilt(bytes);
    std::vector<PageDescriptor> statuses(count);
    check_cuda(cudaMemcpy(blocks.data(), slots.get(), bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check_cuda(cudaMemcpy(rebuilt.data(), restored.get(), bytes, cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(statuses.data(), restore_descriptors.get(),
                          count * sizeof(PageDescriptor), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    Page decoded;
    for (std::uint32_t i = 0; i < count; ++i) {
        const PageDescriptor& d = host_descriptors[i];
        const std::uint8_t* block = blocks.data() + std::size_t{i} * PAGE_SIZE;
        bool ok =
            d.status == kernels::PAGE_OK && statuses[i].status == kernels::PAGE_OK &&
            std::memcmp(rebuilt.data() + std::size_t{i} * PAGE_SIZE, pages[i], PAGE_SIZE) == 0;
        switch (d.encoding) {
            case PageEncoding::Lz4:
                ok = ok && d.size <= threshold &&
                     LZ4_decompress_safe(reinterpret_cast<const char*>(block),
                                         reinterpret_cast<char*>(decoded.data()),
                                         static_cast<int>(d.size),
                                         PAGE_SIZE) == static_cast<int>(PAGE_SIZE) &&
                     std::memcmp(decoded.data(), pages[i], PAGE_SIZE) == 0;
                row.bytes_out += d.size;
                break;
            case PageEncoding::Raw:
                ok = ok && std::memcmp(block, pages[i], PAGE_SIZE) == 0;
                row.bytes_out += PAGE_SIZE;
                ++row.raw_pages;
                break;
            case PageEncoding::SameFilled:
                ++row.same_filled_pages;
                break;
            default:
                ok = false;
        }
        row.mismatches += ok ? 0 : 1;
    }
    return row;
}

}  // namespace

KernelRun run_kernel(GpuCompressKernel kernel, const std::uint8_t* const* pages, std::size_t count,
                     unsigned repeats, std::uint32_t huge_threshold, unsigned warps_per_block) {
    const std::uint64_t bytes = std::uint64_t{count} * PAGE_SIZE;
    const auto device_pages = device_alloc<std::uint8_t>(bytes, kernels::BUFFER_PAD);
    std::vector<std::uint8_t> contiguous(bytes);
    for (std::size_t i = 0; i < count; ++i)
        std::memcpy(contiguous.data() + i * PAGE_SIZE, pages[i], PAGE_SIZE);
    check_cuda(cudaMemcpy(device_pages.get(), contiguous.data(), bytes, cudaMemcpyHostToDevice),
               "cudaMemcpy");
    return measure_one(kernel, pages, static_cast<std::uint32_t>(count), device_pages.get(),
                       repeats, huge_threshold, warps_per_block);
}

}  // namespace ozram::bench
