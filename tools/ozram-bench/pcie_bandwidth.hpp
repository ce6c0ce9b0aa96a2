// Pinned host<->device copy bandwidth: the bus the GPU backend's batches cross.
#pragma once

#include <cstddef>
#include <optional>

namespace ozram::bench {

struct CopyBandwidth {
    double h2d_gbps = 0;  // medians, 10^9 bytes/s
    double d2h_gbps = 0;
};

// Copies `bytes` between cudaMallocHost memory and device memory with
// cudaMemcpyAsync, timed with CUDA events, `repeats` times each way.  nullopt
// in a build without CUDA or when no device answers.
[[nodiscard]] std::optional<CopyBandwidth> measure_pinned_copy(std::size_t bytes, unsigned repeats);

}  // namespace ozram::bench
