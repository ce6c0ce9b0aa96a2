#include "kernel_bench.hpp"

#include <exception>
#include <iostream>
#include <string>

#include "kernel_timing.hpp"
#include "median.hpp"
#include "ozram/gpu.hpp"

namespace ozram::bench {

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
            KernelRun run = run_kernel(kernel, pages.data(), pages.size(), repeats, huge_threshold);
            Measurement row;
            row.backend = "kernel-" + std::string(to_string(kernel));
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
            rows.push_back(std::move(row));
        }
    } catch (const std::exception& e) {
        std::cerr << "ozram-bench: kernel rows: " << e.what() << "\n";
        rows.clear();
    }
    return rows;
}

}  // namespace ozram::bench
