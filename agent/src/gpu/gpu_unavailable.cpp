// The device queries in a build without CUDA: no device, and every entry
// point that needs one says so with ENODEV.  GpuBatchCompressor itself is
// built in both (its host half runs on the emulated device in the tests).
#include "gpu/gpu_compressor_factory.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram {

namespace {

[[noreturn]] void no_cuda() {
    throw Error(ENODEV, "built without CUDA support");
}

}  // namespace

bool gpu_available() {
    return false;
}

GpuDeviceInfo GpuDeviceInfo::query(int) {
    no_cuda();
}

std::unique_ptr<gpu::Device> gpu::make_cuda_device(int) {
    no_cuda();
}

}  // namespace ozram
