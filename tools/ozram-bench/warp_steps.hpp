// The compression kernels counted before they run: each kernel's source
// compresses the corpus through the host emulation of the warp
// (kernels/warp.cuh), which counts warp-steps (every warp-wide operation).
// One row per kernel, "steps-<name>", with its stored bytes and every block
// checked with LZ4_decompress_safe.  No GPU is needed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "measurement.hpp"

namespace ozram::bench {

[[nodiscard]] std::vector<Measurement> measure_warp_steps(
    std::span<const std::uint8_t* const> pages, std::uint32_t huge_threshold);

}  // namespace ozram::bench
