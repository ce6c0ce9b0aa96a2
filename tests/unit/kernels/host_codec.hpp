// The page kernels run on the host through the emulated warp (warp.cuh built
// without nvcc), with buffers sized exactly so that the address sanitizer
// build catches any access out of bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/lz4_compress.cuh"
#include "kernels/lz4_decompress.cuh"
#include "test_pages.hpp"

namespace ozram::testing {

struct HostCompressed {
    kernels::PageDescriptor descriptor;
    std::vector<std::uint8_t> bytes;  // descriptor.size bytes of the slot
    std::uint64_t warp_steps = 0;     // of the emulated warp, for the whole page
};

template <kernels::CompressKernel Kernel>
HostCompressed compress_on_host_with(const Page& page, std::uint32_t huge_threshold,
                                     kernels::LaneOrder order) {
    auto scratch = std::make_unique<kernels::CompressScratch<Kernel>>();
    std::vector<std::uint8_t> slot(PAGE_SIZE, 0xa5);
    kernels::PageDescriptor descriptor{0xbad, 0xbad, static_cast<PageEncoding>(0xff), 0xff, 0};
    const kernels::Warp warp{order};
    kernels::compress_page<Kernel>(warp, *scratch, page.data(), slot.data(), descriptor,
                                   huge_threshold);
    slot.resize(descriptor.size <= slot.size() ? descriptor.size : slot.size());
    return {descriptor, slot, warp.steps()};
}

// Compresses `page` with `kernel` through the emulated warp.
inline HostCompressed compress_on_host(
    const Page& page, std::uint32_t huge_threshold,
    kernels::LaneOrder order = kernels::LaneOrder::Ascending,
    kernels::CompressKernel kernel = kernels::DEFAULT_COMPRESS_KERNEL) {
    switch (kernel) {
        case kernels::CompressKernel::Window12:
            return compress_on_host_with<kernels::CompressKernel::Window12>(page, huge_threshold,
                                                                            order);
        case kernels::CompressKernel::Window11:
            return compress_on_host_with<kernels::CompressKernel::Window11>(page, huge_threshold,
                                                                            order);
        case kernels::CompressKernel::Window10:
            return compress_on_host_with<kernels::CompressKernel::Window10>(page, huge_threshold,
                                                                            order);
        case kernels::CompressKernel::Reprobe:
            break;
    }
    return compress_on_host_with<kernels::CompressKernel::Reprobe>(page, huge_threshold, order);
}

// Decompresses `in` (exactly the bytes the descriptor claims) into `out`.
inline kernels::PageStatus decompress_on_host(
    std::span<const std::uint8_t> in, kernels::PageDescriptor descriptor, Page& out,
    kernels::LaneOrder order = kernels::LaneOrder::Ascending) {
    auto scratch = std::make_unique<kernels::DecompressScratch>();
    // An exact-size heap copy: reading past in.size() is a sanitizer error.
    auto input = std::make_unique<std::uint8_t[]>(in.size() == 0 ? 1 : in.size());
    std::copy(in.begin(), in.end(), input.get());
    descriptor.size = static_cast<std::uint32_t>(in.size());
    descriptor.status = 0xff;
    kernels::decompress_page(kernels::Warp{order}, *scratch, input.get(), descriptor, out.data());
    return static_cast<kernels::PageStatus>(descriptor.status);
}

inline kernels::PageStatus decompress_lz4_on_host(std::span<const std::uint8_t> in, Page& out) {
    return decompress_on_host(in, {0, 0, PageEncoding::Lz4, 0, 0}, out);
}

}  // namespace ozram::testing
