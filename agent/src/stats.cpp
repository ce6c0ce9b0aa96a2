// CompressorStats: running totals and the rates derived from them.
#include "ozram/stats.hpp"

#include <limits>

namespace ozram {

double CompressorStats::compression_ratio() const {
    if (total_bytes_in == 0) {
        return 0.0;
    }
    if (total_bytes_out == 0) {
        // Only same-filled pages so far: they store nothing.
        return std::numeric_limits<double>::infinity();
    }
    return static_cast<double>(total_bytes_in) / static_cast<double>(total_bytes_out);
}

double CompressorStats::throughput_gbps() const {
    if (total_time_ns == 0) {
        return 0.0;
    }
    return static_cast<double>(total_bytes_in) / static_cast<double>(total_time_ns);
}

void CompressorStats::add(std::uint64_t pages, std::uint64_t bytes_in, std::uint64_t bytes_out,
                          std::uint64_t time_ns) {
    pages_compressed += pages;
    total_bytes_in += bytes_in;
    total_bytes_out += bytes_out;
    total_time_ns += time_ns;
}

}  // namespace ozram
