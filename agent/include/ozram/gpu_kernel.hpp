// The compression kernels the GPU backend carries, by name.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ozram {

enum class GpuCompressKernel : std::uint8_t {
    // The window parse with a hash table of 2^12, 2^11 or 2^10 entries:
    // smaller tables leave room for more warps on a multiprocessor.
    Window12,
    Window11,
    Window10,
    // liblz4's greedy parse, which probes 32 positions again after every
    // match: the baseline that the window parses are measured against.
    Reprobe,
};

inline constexpr std::array ALL_GPU_COMPRESS_KERNELS{
    GpuCompressKernel::Window12, GpuCompressKernel::Window11, GpuCompressKernel::Window10,
    GpuCompressKernel::Reprobe};

// The default: see Documentation/gpu.md for the measurements behind it.
inline constexpr GpuCompressKernel DEFAULT_GPU_COMPRESS_KERNEL = GpuCompressKernel::Window11;

// "window-12", "window-11", "window-10", "reprobe".
[[nodiscard]] constexpr std::string_view to_string(GpuCompressKernel kernel) {
    switch (kernel) {
        case GpuCompressKernel::Window12:
            return "window-12";
        case GpuCompressKernel::Window11:
            return "window-11";
        case GpuCompressKernel::Window10:
            return "window-10";
        case GpuCompressKernel::Reprobe:
            return "reprobe";
    }
    return "?";
}

[[nodiscard]] constexpr std::optional<GpuCompressKernel> parse_gpu_compress_kernel(
    std::string_view name) {
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        if (to_string(kernel) == name)
            return kernel;
    }
    return std::nullopt;
}

}  // namespace ozram
