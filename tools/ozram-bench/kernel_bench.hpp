// The GPU kernels alone: each compression kernel and the decompression
// kernel over the corpus held in device memory, timed with CUDA events, no
// copy to or from the host in the timed section.  Every page's result is
// checked afterwards: its LZ4 block decoded with LZ4_decompress_safe, and the
// page the decompression kernel rebuilt compared with the corpus.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "measurement.hpp"
#include "ozram/gpu_kernel.hpp"

namespace ozram::bench {

// One row per kernel, named "kernel-<name>" (compress_gbps: the compression
// kernel; decompress_gbps: the decompression kernel on that kernel's
// blocks; medians of `repeats` launches over every page), in the block shape
// the agent launches; the default kernel also in blocks of 4 warps,
// "kernel-<name>-blocks-4".  Each row's shape goes to stderr.  Empty, with
// the reason on stderr, without a GPU or in a build without CUDA.
[[nodiscard]] std::vector<Measurement> measure_kernels(std::span<const std::uint8_t* const> pages,
                                                       std::span<const GpuCompressKernel> kernels,
                                                       unsigned repeats,
                                                       std::uint32_t huge_threshold);

}  // namespace ozram::bench
