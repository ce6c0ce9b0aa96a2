// Backend names and the factory of the CPU backends.
#include "ozram/backend.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "cpu/cpu_compressor.hpp"
#include "ozram/error.hpp"

namespace ozram {

std::string_view to_string(Backend backend) {
    switch (backend) {
        case Backend::Gpu:
            return "gpu";
        case Backend::Cpu:
            return "cpu";
        case Backend::Scalar:
            return "scalar";
    }
    return "unknown";
}

namespace {

// liblz4 clamps its acceleration to [1, LZ4_ACCELERATION_MAX = 65537].
constexpr int MAX_LZ4_ACCELERATION = 65537;
// More threads than this is a configuration mistake, not a big machine.
constexpr unsigned MAX_THREADS = 1024;

void check_config(const CpuConfig& config) {
    if (config.threads > MAX_THREADS) {
        throw Error(EINVAL, "threads " + std::to_string(config.threads) + " is above " +
                                std::to_string(MAX_THREADS));
    }
    if (config.huge_threshold == 0 || config.huge_threshold > PAGE_SIZE) {
        throw Error(EINVAL, "huge_threshold " + std::to_string(config.huge_threshold) +
                                " is outside [1, " + std::to_string(PAGE_SIZE) + "]");
    }
    if (config.lz4_acceleration < 1 || config.lz4_acceleration > MAX_LZ4_ACCELERATION) {
        throw Error(EINVAL, "lz4_acceleration " + std::to_string(config.lz4_acceleration) +
                                " is outside [1, " + std::to_string(MAX_LZ4_ACCELERATION) + "]");
    }
}

}  // namespace

std::unique_ptr<PageCompressor> make_cpu_compressor(Backend backend, const CpuConfig& config) {
    if (backend != Backend::Scalar && backend != Backend::Cpu) {
        throw Error(EINVAL, "make_cpu_compressor: " + std::string(to_string(backend)) +
                                " is not a CPU backend (use GpuBatchCompressor)");
    }
    check_config(config);
    CpuConfig resolved = config;
    if (resolved.threads == 0) {
        resolved.threads = std::max(1u, std::thread::hardware_concurrency());
    }
    return std::make_unique<CpuCompressor>(backend, resolved);
}

}  // namespace ozram
