// How a GpuBatchCompressor is made over a given Device: create() gives it
// the CUDA device; the tests give it the host emulation.
#pragma once

#include <memory>

#include "gpu/device.hpp"
#include "ozram/gpu.hpp"

namespace ozram {

// Checks the config as create() does (Error(EINVAL)), then builds the
// pipeline on `device`, which compressors may share (Error(ENOMEM) when its
// memory cannot be had, Error(ENODEV) for any other failure of the device).
[[nodiscard]] std::unique_ptr<GpuBatchCompressor> make_gpu_compressor(
    const GpuBatchConfig& config, std::shared_ptr<gpu::Device> device, GpuDeviceInfo info);

namespace gpu {
// The CUDA device `index` (Error(ENODEV) in a build without CUDA).
[[nodiscard]] std::unique_ptr<Device> make_cuda_device(int index);
}  // namespace gpu

}  // namespace ozram
