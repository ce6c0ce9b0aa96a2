// What the CUDA runtime says about the devices (built with CUDA only).
#include <cuda_runtime_api.h>

#include <string>

#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram {

bool gpu_available() {
    int count = 0;
    // No driver, no device, or a driver older than the runtime: all mean no GPU.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    for (int index = 0; index < count; ++index) {
        try {
            if (GpuDeviceInfo::query(index).is_supported())
                return true;
        } catch (const Error&) {
            // A device that cannot describe itself is not usable.
        }
    }
    return false;
}

GpuDeviceInfo GpuDeviceInfo::query(int index) {
    int count = 0;
    if (const cudaError_t result = cudaGetDeviceCount(&count); result != cudaSuccess) {
        cudaGetLastError();
        throw Error(ENODEV, std::string("no CUDA device: ") + cudaGetErrorString(result));
    }
    if (index < 0 || index >= count) {
        throw Error(ENODEV, "no CUDA device " + std::to_string(index) + " (" +
                                std::to_string(count) + " found)");
    }
    cudaDeviceProp properties{};
    if (const cudaError_t result = cudaGetDeviceProperties(&properties, index);
        result != cudaSuccess) {
        throw Error(ENODEV,
                    "CUDA device " + std::to_string(index) + ": " + cudaGetErrorString(result));
    }
    GpuDeviceInfo info;
    info.name = properties.name;
    info.compute_capability = {properties.major, properties.minor};
    return info;
}

}  // namespace ozram
