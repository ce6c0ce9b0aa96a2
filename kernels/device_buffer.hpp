// Device memory for code that launches the page kernels directly, below the
// agent's pipeline (which owns its memory through gpu::Device): the
// benchmark's kernel rows and the GPU tests.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace ozram::kernels {

// Throws std::runtime_error naming the failed call, with CUDA's text.
inline void check_cuda(cudaError_t status, const char* call) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

struct CudaFree {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

// Device memory, freed on every path out, a thrown check included.
template <class T>
using DeviceBuffer = std::unique_ptr<T[], CudaFree>;

// Device memory for `count` objects of type T and `pad` bytes past them:
// BUFFER_PAD for a buffer of pages or slots that the kernels read by words.
template <class T>
DeviceBuffer<T> device_alloc(std::size_t count, std::size_t pad = 0) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, count * sizeof(T) + pad), "cudaMalloc");
    return DeviceBuffer<T>(static_cast<T*>(p));
}

}  // namespace ozram::kernels
