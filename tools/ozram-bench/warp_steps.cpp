#include "warp_steps.hpp"

#include <lz4.h>

#include <cstring>
#include <memory>
#include <string>

#include "kernels/lz4_compress.cuh"
#include "ozram/page.hpp"

namespace ozram::bench {
namespace {

struct Counted {
    std::uint64_t steps = 0;
    std::uint64_t bytes = 0;
    bool right = false;
    PageEncoding encoding = PageEncoding::Raw;
};

template <kernels::CompressKernel Kernel>
Counted count(const std::uint8_t* page, std::uint32_t threshold) {
    auto scratch = std::make_unique<kernels::CompressScratch<Kernel>>();
    std::vector<std::uint8_t> slot(PAGE_SIZE);
    kernels::PageDescriptor descriptor{};
    const kernels::Warp warp;
    kernels::compress_page<Kernel>(warp, *scratch, page, slot.data(), descriptor, threshold);
    Counted counted{warp.steps(), descriptor.size, false, descriptor.encoding};
    Page decoded{};
    switch (descriptor.encoding) {
        case PageEncoding::Lz4:
            counted.right = descriptor.size <= threshold &&
                            LZ4_decompress_safe(reinterpret_cast<const char*>(slot.data()),
                                                reinterpret_cast<char*>(decoded.data()),
                                                static_cast<int>(descriptor.size),
                                                PAGE_SIZE) == static_cast<int>(PAGE_SIZE) &&
                            std::memcmp(decoded.data(), page, PAGE_SIZE) == 0;
            break;
        case PageEncoding::Raw:
            counted.right = std::memcmp(slot.data(), page, PAGE_SIZE) == 0;
            break;
        case PageEncoding::SameFilled:
            counted.right = true;
            for (std::size_t i = 0; i < PAGE_SIZE; i += 8)
                counted.right =
                    counted.right && std::memcmp(page + i, &descriptor.fill_word, 8) == 0;
            break;
        default:
            break;
    }
    return counted;
}

Counted count(GpuCompressKernel kernel, const std::uint8_t* page, std::uint32_t threshold) {
    switch (kernel) {
        case GpuCompressKernel::Window12:
            return count<GpuCompressKernel::Window12>(page, threshold);
        case GpuCompressKernel::Window11:
            return count<GpuCompressKernel::Window11>(page, threshold);
        case GpuCompressKernel::Window10:
            return count<GpuCompressKernel::Window10>(page, threshold);
        case GpuCompressKernel::Reprobe:
            break;
    }
    return count<GpuCompressKernel::Reprobe>(page, threshold);
}

}  // namespace

std::vector<Measurement> measure_warp_steps(std::span<const std::uint8_t* const> pages,
                                            std::uint32_t huge_threshold) {
    std::vector<Measurement> rows;
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        Measurement row;
        row.backend = "steps-" + std::string(to_string(kernel));
        row.pages = pages.size();
        row.batch = 1;
        row.repeats = 1;
        row.bytes_in = pages.size() * PAGE_SIZE;
        std::uint64_t steps = 0;
        for (const std::uint8_t* page : pages) {
            const Counted counted = count(kernel, page, huge_threshold);
            steps += counted.steps;
            row.bytes_out += counted.bytes;
            row.raw_pages += counted.encoding == PageEncoding::Raw;
            row.same_filled_pages += counted.encoding == PageEncoding::SameFilled;
            row.mismatches += counted.right ? 0 : 1;
        }
        row.verified_pages = row.pages - row.mismatches;
        row.warp_steps_per_page =
            pages.empty() ? 0.0 : static_cast<double>(steps) / static_cast<double>(pages.size());
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace ozram::bench
