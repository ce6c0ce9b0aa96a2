#include "kernel_bench.hpp"

#include <exception>
#include <iostream>
#include <string>

#include "kernel_timing.hpp"
#include "median.hpp"
#include "ozram/gpu.hpp"

namespace ozram::bench {

namespace {

// The default kernel also runs in blocks of this many warps: a row that
// compares its shape with the one that keeps the most warps resident.
constexpr unsigned COMPARED_WARPS_PER_BLOCK = 4;

Measurement kernel_row(std::span<const std::uint8_t* const> pages, GpuCompressKernel kernel,
                       unsigned repeats, std::uint32_t huge_threshold, unsigned warps_per_block) {
    KernelRun run =
        run_kernel(kernel, pages.data(), pages.size(), repeats, huge_threshold, warps_per_block);
    Measurement row;
    row.backend = "kernel-" + std::string(to_string(kernel));
    if (warps_per_block != 0)
        row.backend += "-blocks-" + std::to_string(warps_per_block);
    std::cerr << "ozram-bench: " << row.backend << ": blocks of " << run.warps_per_block
              << " warps, " << run.resident_warps << " warps resident a multiprocessor\n";
    row.pages = pages.size();
    row.batch = pages.size();
    row.repeats = repeats;
    row.bytes_in = pages.size() * PAGE_SIZE;
    row.bytes_out = run.bytes_out;
    row.raw_pages = run.raw_pages;
    row.same_filled_pages = run.same_filled_pages;
    row.mismatches = run.mismatches;
    row.verified_pages = pages.size() - run.mismatches;
    row.compress_gbps = median(run.compress_gbps);
    row.decompress_gbps = median(run.decompress_gbps);
    row.compress_by_pass = std::move(run.compress_gbps);
    row.decompress_by_pass = std::move(run.decompress_gbps);
    return row;
}

}  // namespace

std::vector<Measurement> measure_kernels(std::span<const std::uint8_t* const> pages,
                                         std::span<const GpuCompressKernel> kernels,
                                         unsigned repeats, std::uint32_t huge_threshold) {
    std::vector<Measurement> rows;
    if (pages.empty() || !gpu_available()) {
        std::cerr << "ozram-bench: kernel rows: left out: no usable CUDA device (or built "
                     "without CUDA)\n";
        return rows;
    }
    try {
        for (const GpuCompressKernel kernel : kernels) {
            rows.push_back(kernel_row(pages, kernel, repeats, huge_threshold, 0));
            if (kernel == DEFAULT_GPU_COMPRESS_KERNEL)
                rows.push_back(
                    kernel_row(pages, kernel, repeats, huge_threshold, COMPARED_WARPS_PER_BLOCK));
        }
    } catch (const std::exception& e) {
        std::cerr << "ozram-bench: kernel rows: " << e.what() << "\n";
        rows.clear();
    }
    return rows;
}

}  // namespace ozram::bench
