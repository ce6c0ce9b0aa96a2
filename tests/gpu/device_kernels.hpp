// Runs the page kernels directly on the device (below the pipeline), so that
// tests can see each page's status.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "kernels/device_buffer.hpp"
#include "kernels/lz4_kernels.hpp"
#include "kernels/page_copy.cuh"
#include "ozram/backend.hpp"
#include "test_pages.hpp"

namespace ozram::testing {

using kernels::check_cuda;
using kernels::device_alloc;

struct DeviceDecoded {
    kernels::PageStatus status;
    Page page;
};

// Decodes each block as one LZ4 page on the device.  Pages are prefilled
// with 0xee so that a kernel writing a page it rejects is seen.
inline std::vector<DeviceDecoded> decode_on_device(
    const std::vector<std::vector<std::uint8_t>>& blocks) {
    const std::size_t n = blocks.size();
    std::vector<std::uint8_t> slots(n * PAGE_SIZE);
    std::vector<kernels::PageDescriptor> descriptors(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::copy(blocks[i].begin(), blocks[i].end(), slots.begin() + i * PAGE_SIZE);
        descriptors[i] = {0, static_cast<std::uint32_t>(blocks[i].size()), PageEncoding::Lz4, 0xff,
                          0};
    }
    const auto device_slots = device_alloc<std::uint8_t>(slots.size());
    const auto device_pages = device_alloc<std::uint8_t>(slots.size());
    const auto device_descriptors = device_alloc<kernels::PageDescriptor>(n);
    const auto device_offsets = device_alloc<std::uint32_t>(n);
    const auto device_destinations = device_alloc<std::uint64_t>(n);
    std::vector<std::uint32_t> offsets(n);
    std::vector<std::uint64_t> destinations(n);
    for (std::size_t i = 0; i < n; ++i) {
        offsets[i] = static_cast<std::uint32_t>(i * PAGE_SIZE);
        destinations[i] = reinterpret_cast<std::uint64_t>(device_pages.get() + i * PAGE_SIZE);
    }
    check_cuda(cudaMemcpy(device_slots.get(), slots.data(), slots.size(), cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(cudaMemset(device_pages.get(), 0xee, slots.size()), "cudaMemset");
    check_cuda(cudaMemcpy(device_descriptors.get(), descriptors.data(),
                          n * sizeof(kernels::PageDescriptor), cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(device_offsets.get(), offsets.data(), n * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(device_destinations.get(), destinations.data(), n * sizeof(std::uint64_t),
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(kernels::launch_decompress_pages(device_slots.get(), device_offsets.get(),
                                                device_descriptors.get(), device_destinations.get(),
                                                static_cast<std::uint32_t>(n), nullptr),
               "launch_decompress_pages");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::vector<std::uint8_t> pages(slots.size());
    check_cuda(cudaMemcpy(pages.data(), device_pages.get(), pages.size(), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(descriptors.data(), device_descriptors.get(),
                          n * sizeof(kernels::PageDescriptor), cudaMemcpyDeviceToHost),
               "cudaMemcpy");

    std::vector<DeviceDecoded> decoded(n);
    for (std::size_t i = 0; i < n; ++i) {
        decoded[i].status = static_cast<kernels::PageStatus>(descriptors[i].status);
        std::copy_n(pages.begin() + i * PAGE_SIZE, PAGE_SIZE, decoded[i].page.begin());
    }
    return decoded;
}

struct DeviceCompressed {
    kernels::PageDescriptor descriptor;
    std::vector<std::uint8_t> bytes;  // descriptor.size bytes of the slot
};

// Compresses each page on the device with `kernel`, in blocks of
// warps_per_block warps (0: the shape the backend launches).
inline std::vector<DeviceCompressed> compress_on_device(const std::vector<Page>& pages,
                                                        kernels::CompressKernel kernel,
                                                        unsigned warps_per_block) {
    const std::size_t n = pages.size();
    const auto device_pages = device_alloc<std::uint8_t>(n * PAGE_SIZE);
    const auto device_slots = device_alloc<std::uint8_t>(n * PAGE_SIZE, kernels::BUFFER_PAD);
    const auto device_descriptors = device_alloc<kernels::PageDescriptor>(n);
    for (std::size_t i = 0; i < n; ++i)
        check_cuda(cudaMemcpy(device_pages.get() + i * PAGE_SIZE, pages[i].data(), PAGE_SIZE,
                              cudaMemcpyHostToDevice),
                   "cudaMemcpy");
    check_cuda(cudaMemset(device_descriptors.get(), 0xee, n * sizeof(kernels::PageDescriptor)),
               "cudaMemset");
    check_cuda(
        kernels::launch_compress_pages(kernel, device_pages.get(), device_slots.get(),
                                       device_descriptors.get(), static_cast<std::uint32_t>(n),
                                       static_cast<std::uint32_t>(DEFAULT_HUGE_THRESHOLD), nullptr,
                                       nullptr, false, warps_per_block),
        "launch_compress_pages");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::vector<std::uint8_t> slots(n * PAGE_SIZE);
    std::vector<kernels::PageDescriptor> descriptors(n);
    check_cuda(cudaMemcpy(slots.data(), device_slots.get(), slots.size(), cudaMemcpyDeviceToHost),
               "cudaMemcpy");
    check_cuda(cudaMemcpy(descriptors.data(), device_descriptors.get(),
                          n * sizeof(kernels::PageDescriptor), cudaMemcpyDeviceToHost),
               "cudaMemcpy");

    std::vector<DeviceCompressed> compressed(n);
    for (std::size_t i = 0; i < n; ++i) {
        compressed[i].descriptor = descriptors[i];
        const std::size_t size = std::min<std::size_t>(descriptors[i].size, PAGE_SIZE);
        compressed[i].bytes.assign(slots.begin() + i * PAGE_SIZE,
                                   slots.begin() + i * PAGE_SIZE + size);
    }
    return compressed;
}

}  // namespace ozram::testing
