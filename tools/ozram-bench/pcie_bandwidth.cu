// Pinned copy bandwidth with the CUDA runtime: what one batch's transfer costs.
#include <cuda_runtime.h>

#include <iostream>
#include <vector>

#include "median.hpp"
#include "pcie_bandwidth.hpp"

namespace ozram::bench {
namespace {

// Frees whatever was allocated, on every path out.
struct CopyResources {
    void* host = nullptr;
    void* device = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;

    ~CopyResources() {
        if (stop != nullptr) {
            cudaEventDestroy(stop);
        }
        if (start != nullptr) {
            cudaEventDestroy(start);
        }
        if (stream != nullptr) {
            cudaStreamDestroy(stream);
        }
        if (device != nullptr) {
            cudaFree(device);
        }
        if (host != nullptr) {
            cudaFreeHost(host);
        }
    }
};

bool check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::cerr << "ozram-bench: " << what << ": " << cudaGetErrorString(status) << "\n";
        return false;
    }
    return true;
}

// One timed copy in GB/s, or a negative value on error.
double timed_copy(CopyResources& r, std::size_t bytes, cudaMemcpyKind kind) {
    void* dst = kind == cudaMemcpyHostToDevice ? r.device : r.host;
    const void* src = kind == cudaMemcpyHostToDevice ? r.host : r.device;
    if (!check(cudaEventRecord(r.start, r.stream), "cudaEventRecord") ||
        !check(cudaMemcpyAsync(dst, src, bytes, kind, r.stream), "cudaMemcpyAsync") ||
        !check(cudaEventRecord(r.stop, r.stream), "cudaEventRecord") ||
        !check(cudaEventSynchronize(r.stop), "cudaEventSynchronize")) {
        return -1.0;
    }
    float ms = 0;
    if (!check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime") || ms <= 0) {
        return -1.0;
    }
    return static_cast<double>(bytes) / (static_cast<double>(ms) * 1e6);
}

std::optional<double> median_copy(CopyResources& r, std::size_t bytes, cudaMemcpyKind kind,
                                  unsigned repeats) {
    if (timed_copy(r, bytes, kind) < 0) {  // warm-up: first-touch and lazy init
        return std::nullopt;
    }
    std::vector<double> samples;
    for (unsigned i = 0; i < repeats; ++i) {
        const double sample = timed_copy(r, bytes, kind);
        if (sample < 0) {
            return std::nullopt;
        }
        samples.push_back(sample);
    }
    return median(samples);
}

}  // namespace

std::optional<CopyBandwidth> measure_pinned_copy(std::size_t bytes, unsigned repeats) {
    int devices = 0;
    if (bytes == 0 || cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        return std::nullopt;
    }
    CopyResources r;
    if (!check(cudaMallocHost(&r.host, bytes), "cudaMallocHost") ||
        !check(cudaMalloc(&r.device, bytes), "cudaMalloc") ||
        !check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
        !check(cudaEventCreate(&r.start), "cudaEventCreate") ||
        !check(cudaEventCreate(&r.stop), "cudaEventCreate") ||
        !check(cudaMemset(r.device, 0, bytes), "cudaMemset")) {
        return std::nullopt;
    }
    const auto h2d = median_copy(r, bytes, cudaMemcpyHostToDevice, repeats);
    const auto d2h = median_copy(r, bytes, cudaMemcpyDeviceToHost, repeats);
    if (!h2d || !d2h) {
        return std::nullopt;
    }
    return CopyBandwidth{.h2d_gbps = *h2d, .d2h_gbps = *d2h};
}

}  // namespace ozram::bench
