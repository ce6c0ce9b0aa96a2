// BatchResult: sizes, rates and the offload verdict of one compressed batch.
#include "ozram/batch_result.hpp"

#include <limits>

namespace ozram {

std::size_t BatchResult::stored_bytes() const {
    std::size_t total = 0;
    for (const CompressedPage& page : pages) {
        total += page.stored_size();
    }
    return total;
}

double BatchResult::throughput_bytes_per_sec(std::size_t input_bytes) const {
    if (total_time_ns == 0) {
        return 0.0;
    }
    return static_cast<double>(input_bytes) * 1e9 / static_cast<double>(total_time_ns);
}

double BatchResult::compression_ratio() const {
    if (pages.empty()) {
        return 0.0;
    }
    const std::size_t stored = stored_bytes();
    if (stored == 0) {
        return std::numeric_limits<double>::infinity();
    }
    return static_cast<double>(input_bytes()) / static_cast<double>(stored);
}

bool BatchResult::pcie_rule_satisfied() const {
    // Without an estimate there is nothing to beat: say no rather than guess.
    return cpu_estimate_ns != 0 && total_time_ns < cpu_estimate_ns;
}

void BatchResult::reset(std::size_t n) {
    // clear() + resize() keep the capacity, so a result reused for batches of
    // the same size never allocates again.
    pages.clear();
    pages.resize(n);
    payload.resize(n * PAGE_SIZE);
    h2d_time_ns = 0;
    kernel_time_ns = 0;
    d2h_time_ns = 0;
    total_time_ns = 0;
    cpu_estimate_ns = 0;
}

}  // namespace ozram
