// The compression kernels by name (ozram/gpu_kernel.hpp), and what the device
// code needs to know of each.
#pragma once

#include "ozram/gpu_kernel.hpp"

namespace ozram::kernels {

using CompressKernel = GpuCompressKernel;
inline constexpr auto ALL_COMPRESS_KERNELS = ALL_GPU_COMPRESS_KERNELS;
inline constexpr CompressKernel DEFAULT_COMPRESS_KERNEL = DEFAULT_GPU_COMPRESS_KERNEL;

// Entries of the kernel's hash table, as a power of two.
[[nodiscard]] constexpr unsigned hash_log(CompressKernel kernel) {
    switch (kernel) {
        case CompressKernel::Window11:
            return 11;
        case CompressKernel::Window10:
            return 10;
        case CompressKernel::Window12:
        case CompressKernel::Reprobe:
            break;
    }
    return 12;
}

// The same as a constant, for device code (which cannot call a host
// function, constexpr or not).
template <CompressKernel Kernel>
inline constexpr unsigned HASH_LOG_OF = hash_log(Kernel);

}  // namespace ozram::kernels
