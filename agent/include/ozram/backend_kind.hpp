// The ways to compress a batch.
#pragma once

#include <cstdint>
#include <string_view>

namespace ozram {

// to_string() gives the name that logs, statistics, options and the cost
// model's text use: "gpu", "cpu", "scalar".
enum class Backend : std::uint8_t {
    Gpu,     // GpuBatchCompressor
    Cpu,     // liblz4 on a thread pool over every core (vectorized same-fill scan)
    Scalar,  // liblz4 on the calling thread
};

[[nodiscard]] std::string_view to_string(Backend backend);

}  // namespace ozram
