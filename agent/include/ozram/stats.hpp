// Running totals of a compressor.
#pragma once

#include <cstdint>

namespace ozram {

struct CompressorStats {
    std::uint64_t pages_compressed = 0;
    std::uint64_t total_bytes_in = 0;
    std::uint64_t total_bytes_out = 0;
    std::uint64_t total_time_ns = 0;

    // bytes in / bytes out; 0 when nothing was compressed, +infinity when
    // every page so far was same-filled (nothing stored).
    [[nodiscard]] double compression_ratio() const;
    // bytes in per nanosecond == GB/s (10^9 bytes); 0 when no time was taken.
    [[nodiscard]] double throughput_gbps() const;

    void add(std::uint64_t pages, std::uint64_t bytes_in, std::uint64_t bytes_out,
             std::uint64_t time_ns);
};

}  // namespace ozram
