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
};

// Runs `kernel` over pages[0..count) (each PAGE_SIZE bytes) held in device
// memory.  Throws std::runtime_error on a CUDA error.
[[nodiscard]] KernelRun run_kernel(GpuCompressKernel kernel, const std::uint8_t* const* pages,
                                   std::size_t count, unsigned repeats,
                                   std::uint32_t huge_threshold);

}  // namespace ozram::bench
