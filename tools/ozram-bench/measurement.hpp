// What the benchmark reports: one row per codec (or per copy direction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec.hpp"
#include "median.hpp"

namespace ozram::bench {

struct Measurement {
    std::string backend;  // cpu, scalar, gpu, liblz4-1, liblz4-N, pcie-h2d, pcie-d2h
    unsigned threads = 0;
    std::size_t batch = 0;  // pages per batch
    unsigned repeats = 0;
    std::uint64_t pages = 0;
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;  // stored bytes
    std::uint64_t raw_pages = 0;  // of the last pass; liblz4 rows store none raw
    std::uint64_t same_filled_pages = 0;
    double compress_gbps = 0;  // medians over the repeats, 10^9 input bytes/s
    double decompress_gbps = 0;
    double copy_gbps = 0;  // pcie rows only: pinned copy bandwidth
    // GPU rows only (0 elsewhere): input bytes over the device time of the
    // compression kernel alone, without copies or host work; median.
    double kernel_gbps = 0;
    // steps-* rows only: warp-steps a page in the host emulation.
    double warp_steps_per_page = 0;
    std::uint64_t verified_pages = 0;  // pages right in every repeat
    std::uint64_t mismatches = 0;      // pages wrong in at least one repeat
    // GB/s of each pass, in order: passes of different codecs with the same
    // index ran back to back, so their ratios compare them under the same load.
    std::vector<double> compress_by_pass;
    std::vector<double> decompress_by_pass;

    // bytes_in / bytes_out; +infinity when nothing was stored, 0 for no input.
    [[nodiscard]] double ratio() const;
};

// Runs `repeats` passes of every codec over the pages.  The repeats are
// interleaved (codec A, B, C, then A, B, C again) so that a burst of load from
// elsewhere on the machine does not fall on one codec only.
[[nodiscard]] std::vector<Measurement> measure_codecs(std::span<Codec* const> codecs,
                                                      std::span<const std::uint8_t* const> pages,
                                                      std::size_t batch, unsigned repeats);

}  // namespace ozram::bench
