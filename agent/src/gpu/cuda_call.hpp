// CUDA runtime failures as exceptions, so that the pipeline's code reads
// straight and one handler decides what a failure means (see
// Documentation/gpu.md, "Error handling").
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace ozram::gpu {

class CudaFailure : public std::runtime_error {
  public:
    CudaFailure(cudaError_t code, const char* call)
        : std::runtime_error(std::string(call) + ": " + cudaGetErrorName(code) + " (" +
                             cudaGetErrorString(code) + ")"),
          code_(code) {}
    [[nodiscard]] cudaError_t code() const { return code_; }

  private:
    cudaError_t code_;
};

// Throws CudaFailure unless `result` is cudaSuccess; `call` names what failed.
inline void cuda_check(cudaError_t result, const char* call) {
    if (result != cudaSuccess)
        throw CudaFailure(result, call);
}

}  // namespace ozram::gpu
