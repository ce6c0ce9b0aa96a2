// The Device of a real GPU (built with CUDA only).
#pragma once

#include "gpu/device.hpp"

namespace ozram::gpu {

class CudaDevice final : public Device {
  public:
    // Makes CUDA device `index` the calling thread's current one.
    explicit CudaDevice(int index);

    void make_current() override;

    DeviceAddress allocate(std::size_t bytes) override;
    void release(DeviceAddress address) noexcept override;
    std::uint8_t* allocate_mapped(std::size_t bytes) override;
    void release_mapped(std::uint8_t* host) noexcept override;
    DeviceAddress mapped_address(const std::uint8_t* host) override;
    std::optional<DeviceAddress> register_host(std::span<const std::uint8_t> region,
                                               bool device_writes, std::string& why) override;
    void unregister_host(const std::uint8_t* base) noexcept override;
    Stream create_stream() override;
    void destroy_stream(Stream stream) noexcept override;
    void drain(Stream stream) noexcept override;
    Event create_event() override;
    void destroy_event(Event event) noexcept override;
    void record(Event event, Stream stream) override;
    bool done(Event event) override;
    void wait(Event event) override;
    std::uint64_t elapsed_ns(Event from, Event to) override;
    void upload(DeviceAddress to, const void* from, std::size_t bytes, Stream stream) override;
    void download(void* to, DeviceAddress from, std::size_t bytes, Stream stream) override;
    void gather_pages(const GatherLaunch& launch, Stream stream) override;
    void compress_pages(const CompressLaunch& launch, Stream stream) override;
    void pack_offsets(const PackLaunch& launch, Stream stream) override;
    void copy_out(const CopyOutLaunch& launch, Stream stream) override;
    void decompress_pages(const DecompressLaunch& launch, Stream stream) override;

  private:
    int index_;
};

}  // namespace ozram::gpu
