// The kernels alone need CUDA: in a build without it there is none to time.
#include <stdexcept>

#include "kernel_timing.hpp"

namespace ozram::bench {

KernelRun run_kernel(GpuCompressKernel, const std::uint8_t* const*, std::size_t, unsigned,
                     std::uint32_t, unsigned) {
    throw std::runtime_error("built without CUDA");
}

}  // namespace ozram::bench
