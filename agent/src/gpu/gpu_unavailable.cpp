// The GPU API in a build without CUDA: no device, and every entry point that
// needs one says so with ENODEV.
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

// Never constructed (create() throws); the members exist so that programs
// written against the API link in both builds.
struct GpuBatchCompressor::Impl {};

std::unique_ptr<GpuBatchCompressor> GpuBatchCompressor::create(const GpuBatchConfig&) {
    no_cuda();
}
GpuBatchCompressor::GpuBatchCompressor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuBatchCompressor::~GpuBatchCompressor() = default;
void GpuBatchCompressor::compress(std::span<const std::uint8_t* const>, BatchResult&) {
    no_cuda();
}
void GpuBatchCompressor::compress_into(std::span<const std::uint8_t* const>,
                                       std::span<std::uint8_t* const>, BatchResult&) {
    no_cuda();
}
void GpuBatchCompressor::decompress(const BatchResult&, std::span<std::uint8_t* const>) {
    no_cuda();
}
const GpuDeviceInfo& GpuBatchCompressor::device() const {
    no_cuda();
}
std::uint64_t GpuBatchCompressor::fallback_batches() const {
    no_cuda();
}
bool GpuBatchCompressor::register_host_region(std::span<const std::uint8_t>) {
    no_cuda();
}
bool GpuBatchCompressor::unregister_host_region(const std::uint8_t*) {
    no_cuda();
}
std::uint64_t GpuBatchCompressor::pages_read_in_place() const {
    no_cuda();
}
std::uint64_t GpuBatchCompressor::pages_copied() const {
    no_cuda();
}

}  // namespace ozram
