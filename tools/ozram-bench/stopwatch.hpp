// The one clock of the benchmark: steady, so that timings never jump.
#pragma once

#include <chrono>
#include <cstdint>

namespace ozram::bench {

using Clock = std::chrono::steady_clock;

[[nodiscard]] inline std::uint64_t elapsed_ns(Clock::time_point since) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
}

}  // namespace ozram::bench
