// A build without CUDA has no bus to measure.
#include "pcie_bandwidth.hpp"

namespace ozram::bench {

std::optional<CopyBandwidth> measure_pinned_copy(std::size_t, unsigned) {
    return std::nullopt;
}

}  // namespace ozram::bench
