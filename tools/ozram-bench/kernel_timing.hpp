// The GPU kernels alone, timed on the device (kernel_bench.cu, built by
// nvcc as C++17: the types here are plain).  kernel_bench.hpp turns a run
// into a benchmark row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ozram/gpu_kernel.hpp"

namespace ozram::bench {

struct KernelRun {
    std::vector<double> compress_gbps;  // one per launch, warm-up left out
    std::vector<double> decompress_gbps;
    std::uint64_t bytes_out = 0;  // stored bytes (raw pages whole)
    std::uint64_t raw_pages = 0;
    std::uint64_t same_filled_pages = 0;
    std::uint64_t mismatches = 0;  // pages wrong by liblz4 or after decompression
    unsigned warps_per_block = 0;  // of the compression kernel's blocks
    unsigned resident_warps = 0;   // warps a multiprocessor keeps, in blocks of that size
};

// Runs `kernel` over pages[0..count) (each PAGE_SIZE bytes) held in device
// memory, in blocks of the shape the agent launches, or of warps_per_block
// warps when it is not 0.  Throws std::runtime_error on a CUDA error.
[[nodiscard]] KernelRun run_kernel(GpuCompressKernel kernel, const std::uint8_t* const* pages,
                                   std::size_t count, unsigned repeats,
                                   std::uint32_t huge_threshold, unsigned warps_per_block = 0);

}  // namespace ozram::bench
