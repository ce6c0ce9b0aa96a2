// The Device of a real GPU: the CUDA runtime and the kernels of
// kernels/lz4_kernels.cu.
#include "gpu/cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "gpu/gpu_compressor_factory.hpp"
#include "kernels/lz4_kernels.hpp"

namespace ozram::gpu {
namespace {

// The errors after which the CUDA context is unusable for the rest of the
// process: a kernel faulted or the device failed.  CUDA documents these as
// needing the process to end; cudaDeviceReset() would only take every other
// user of the primary context down with this one.
bool sticky(cudaError_t code) {
    switch (code) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorECCUncorrectable:
        case cudaErrorDevicesUnavailable:
        case cudaErrorUnknown:
        case cudaErrorContextIsDestroyed:
            return true;
        default:
            return false;
    }
}

void check(cudaError_t result, const char* call) {
    if (result == cudaSuccess)
        return;
    // A failure that is not sticky must not stay as the thread's last error
    // for the next, unrelated call to find.
    cudaGetLastError();
    throw DeviceFailure(static_cast<int>(result), sticky(result),
                        std::string(call) + ": " + cudaGetErrorName(result) + " (" +
                            cudaGetErrorString(result) + ")");
}

cudaStream_t cuda(Stream stream) {
    return reinterpret_cast<cudaStream_t>(stream);
}
cudaEvent_t cuda(Event event) {
    return reinterpret_cast<cudaEvent_t>(event);
}
template <class T>
T* pointer(DeviceAddress address) {
    return reinterpret_cast<T*>(address);
}

}  // namespace

CudaDevice::CudaDevice(int index) : index_(index) {
    make_current();
}

void CudaDevice::make_current() {
    check(cudaSetDevice(index_), "cudaSetDevice");
}

std::unique_ptr<Device> make_cuda_device(int index) {
    return std::make_unique<CudaDevice>(index);
}

DeviceAddress CudaDevice::allocate(std::size_t bytes) {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    return reinterpret_cast<DeviceAddress>(p);
}

void CudaDevice::release(DeviceAddress address) noexcept {
    cudaFree(pointer<void>(address));
}

std::uint8_t* CudaDevice::allocate_mapped(std::size_t bytes) {
    void* p = nullptr;
    check(cudaHostAlloc(&p, bytes, cudaHostAllocMapped), "cudaHostAlloc");
    return static_cast<std::uint8_t*>(p);
}

void CudaDevice::release_mapped(std::uint8_t* host) noexcept {
    cudaFreeHost(host);
}

DeviceAddress CudaDevice::mapped_address(const std::uint8_t* host) {
    void* device = nullptr;
    check(cudaHostGetDevicePointer(&device, const_cast<std::uint8_t*>(host), 0),
          "cudaHostGetDevicePointer");
    return reinterpret_cast<DeviceAddress>(device);
}

std::optional<DeviceAddress> CudaDevice::register_host(std::span<const std::uint8_t> region,
                                                       bool device_writes, std::string& why) {
    int read_only = 0;
    if (!device_writes &&
        cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, index_) !=
            cudaSuccess) {
        read_only = 0;
    }
    const unsigned flags = cudaHostRegisterMapped | (read_only ? cudaHostRegisterReadOnly : 0u);
    void* host = const_cast<std::uint8_t*>(region.data());
    cudaError_t result = cudaSetDevice(index_);
    if (result == cudaSuccess)
        result = cudaHostRegister(host, region.size(), flags);
    if (result == cudaSuccess) {
        void* device = nullptr;
        result = cudaHostGetDevicePointer(&device, host, 0);
        if (result == cudaSuccess)
            return reinterpret_cast<DeviceAddress>(device);
        cudaHostUnregister(host);
    }
    cudaGetLastError();  // a refusal is not sticky; do not leave it for the next call
    why = std::string(cudaGetErrorName(result)) + " (" + cudaGetErrorString(result) + ")";
    return std::nullopt;
}

void CudaDevice::unregister_host(const std::uint8_t* base) noexcept {
    cudaHostUnregister(const_cast<std::uint8_t*>(base));
    cudaGetLastError();
}

Stream CudaDevice::create_stream() {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return reinterpret_cast<Stream>(stream);
}

void CudaDevice::destroy_stream(Stream stream) noexcept {
    cudaStreamDestroy(cuda(stream));
}

void CudaDevice::drain(Stream stream) noexcept {
    cudaStreamSynchronize(cuda(stream));
    cudaGetLastError();
}

Event CudaDevice::create_event() {
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate");
    return reinterpret_cast<Event>(event);
}

void CudaDevice::destroy_event(Event event) noexcept {
    cudaEventDestroy(cuda(event));
}

void CudaDevice::record(Event event, Stream stream) {
    check(cudaEventRecord(cuda(event), cuda(stream)), "cudaEventRecord");
}

bool CudaDevice::done(Event event) {
    const cudaError_t result = cudaEventQuery(cuda(event));
    if (result == cudaErrorNotReady) {
        cudaGetLastError();
        return false;
    }
    check(result, "cudaEventQuery");
    return true;
}

void CudaDevice::wait(Event event) {
    check(cudaEventSynchronize(cuda(event)), "cudaEventSynchronize");
}

std::uint64_t CudaDevice::elapsed_ns(Event from, Event to) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, cuda(from), cuda(to)), "cudaEventElapsedTime");
    return ms > 0 ? static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6) : 0;
}

void CudaDevice::upload(DeviceAddress to, const void* from, std::size_t bytes, Stream stream) {
    check(cudaMemcpyAsync(pointer<void>(to), from, bytes, cudaMemcpyHostToDevice, cuda(stream)),
          "cudaMemcpyAsync (upload)");
}

void CudaDevice::download(void* to, DeviceAddress from, std::size_t bytes, Stream stream) {
    check(cudaMemcpyAsync(to, pointer<void>(from), bytes, cudaMemcpyDeviceToHost, cuda(stream)),
          "cudaMemcpyAsync (download)");
}

void CudaDevice::gather_pages(const GatherLaunch& launch, Stream stream) {
    check(kernels::launch_gather_pages(pointer<const std::uint64_t>(launch.sources),
                                       pointer<std::uint8_t>(launch.pages), launch.count,
                                       cuda(stream)),
          "gather kernel");
}

void CudaDevice::compress_pages(const CompressLaunch& launch, Stream stream) {
    check(
        kernels::launch_compress_pages(
            launch.kernel, pointer<const std::uint8_t>(launch.pages),
            pointer<std::uint8_t>(launch.slots),
            pointer<kernels::PageDescriptor>(launch.descriptors), launch.count,
            launch.huge_threshold, cuda(stream),
            launch.destinations != 0 ? pointer<const std::uint64_t>(launch.destinations) : nullptr,
            launch.raw_kept),
        "compression kernel");
}

void CudaDevice::pack_offsets(const PackLaunch& launch, Stream stream) {
    check(kernels::launch_pack_offsets(pointer<const kernels::PageDescriptor>(launch.descriptors),
                                       launch.count, launch.raw_kept,
                                       pointer<std::uint32_t>(launch.offsets),
                                       pointer<std::uint32_t>(launch.total), cuda(stream)),
          "offsets kernel");
}

void CudaDevice::copy_out(const CopyOutLaunch& launch, Stream stream) {
    check(kernels::launch_copy_out(pointer<const std::uint8_t>(launch.slots),
                                   pointer<const kernels::PageDescriptor>(launch.descriptors),
                                   launch.count, launch.raw_kept, launch.packed,
                                   pointer<const std::uint32_t>(launch.offsets), cuda(stream)),
          "copy-out kernel");
}

void CudaDevice::decompress_pages(const DecompressLaunch& launch, Stream stream) {
    check(kernels::launch_decompress_pages(pointer<const std::uint8_t>(launch.blocks),
                                           pointer<const std::uint32_t>(launch.offsets),
                                           pointer<kernels::PageDescriptor>(launch.descriptors),
                                           pointer<const std::uint64_t>(launch.destinations),
                                           launch.count, cuda(stream)),
          "decompression kernel");
}

}  // namespace ozram::gpu
