// The device as the GPU backend's host half sees it: memory, streams,
// events, copies and the page kernels, behind an interface with two
// implementations.  CudaDevice (cuda_device.cpp) is the real one;
// EmulatedDevice (emulated_device.hpp) runs the same kernel source on the
// host through the emulated warp and can be told to fail, so that the
// pipeline, its recovery and its bookkeeping are tested without a GPU.
//
// Work is enqueued on a stream and runs in stream order; its failure shows
// when an event recorded after it is asked about (done(), wait()), as with
// CUDA.  Every call may throw DeviceFailure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/compress_kernel.hpp"
#include "kernels/page_codec.cuh"

namespace ozram::gpu {

// An address the device can use: device memory, or host memory mapped into
// the device (pinned by the device, or registered with it).
using DeviceAddress = std::uint64_t;

// A failure of the device or of a call into it.  A sticky failure leaves the
// process's device context unusable: nothing on the device works again in
// this process.  Any other failure spoils only the stream it happened on.
class DeviceFailure : public std::runtime_error {
  public:
    DeviceFailure(int code, bool sticky, const std::string& what)
        : std::runtime_error(what), code_(code), sticky_(sticky) {}
    [[nodiscard]] int code() const { return code_; }
    [[nodiscard]] bool sticky() const { return sticky_; }

  private:
    int code_;
    bool sticky_;
};

struct StreamTag;
struct EventTag;
using Stream = StreamTag*;
using Event = EventTag*;

// What a kernel launch needs.  Counts are pages; every array holds `count`
// entries, in device memory.
struct GatherLaunch {
    DeviceAddress sources;  // DeviceAddress per page: where it lies (16-byte aligned)
    DeviceAddress pages;    // page i goes to pages + i * PAGE_SIZE
    std::uint32_t count;
};

struct CompressLaunch {
    kernels::CompressKernel kernel;
    DeviceAddress pages;        // page i at pages + i * PAGE_SIZE
    DeviceAddress slots;        // its block, or the page when raw, at slots + i * PAGE_SIZE
    DeviceAddress descriptors;  // kernels::PageDescriptor per page
    std::uint32_t count;
    std::uint32_t huge_threshold;
    // DeviceAddress per page, or 0: where each page's stored bytes also go
    // (raw pages only when raw_kept), as whole 16-byte vectors.
    DeviceAddress destinations = 0;
    bool raw_kept = false;
};

struct PackLaunch {
    DeviceAddress descriptors;
    std::uint32_t count;
    bool raw_kept;          // a raw page's bytes are part of the output
    DeviceAddress offsets;  // std::uint32_t per page: where it goes in the packed output
    DeviceAddress total;    // one std::uint32_t: the packed output's size
};

struct CopyOutLaunch {
    DeviceAddress slots;
    DeviceAddress descriptors;
    std::uint32_t count;
    bool raw_kept;
    DeviceAddress packed;   // page i's bytes go to packed + offsets[i]
    DeviceAddress offsets;  // std::uint32_t per page
};

struct DecompressLaunch {
    DeviceAddress blocks;        // page i's block at blocks + offsets[i]
    DeviceAddress offsets;       // std::uint32_t per page
    DeviceAddress descriptors;   // in: encoding, size, fill word; out: status
    DeviceAddress destinations;  // DeviceAddress per page: PAGE_SIZE bytes, 16-byte aligned
    std::uint32_t count;
};

class Device {
  public:
    virtual ~Device() = default;

    // Makes the device the calling thread's current one (CUDA keeps the
    // current device per thread; the agent's threads take turns).
    virtual void make_current() = 0;

    // Device memory.
    [[nodiscard]] virtual DeviceAddress allocate(std::size_t bytes) = 0;
    virtual void release(DeviceAddress address) noexcept = 0;
    // Host memory that is pinned and mapped into the device: DMA runs from
    // and to it at the bus's speed, and kernels address it.
    [[nodiscard]] virtual std::uint8_t* allocate_mapped(std::size_t bytes) = 0;
    virtual void release_mapped(std::uint8_t* host) noexcept = 0;
    [[nodiscard]] virtual DeviceAddress mapped_address(const std::uint8_t* host) = 0;
    // Registers host memory the caller owns so that kernels address it:
    // read-only unless `device_writes`.  Returns the device address of its
    // first byte, or nothing with the driver's reason in `why` (some
    // mappings cannot be pinned); never throws for a refusal.
    [[nodiscard]] virtual std::optional<DeviceAddress> register_host(
        std::span<const std::uint8_t> region, bool device_writes, std::string& why) = 0;
    virtual void unregister_host(const std::uint8_t* base) noexcept = 0;

    [[nodiscard]] virtual Stream create_stream() = 0;
    virtual void destroy_stream(Stream stream) noexcept = 0;
    // Waits until nothing of the stream's work is left running, whatever its
    // outcome: after a failure, before its buffers are used again.
    virtual void drain(Stream stream) noexcept = 0;
    [[nodiscard]] virtual Event create_event() = 0;
    virtual void destroy_event(Event event) noexcept = 0;
    virtual void record(Event event, Stream stream) = 0;
    // Whether the work before the event is done (throws its failure).
    [[nodiscard]] virtual bool done(Event event) = 0;
    // Waits for the work before the event (throws its failure).
    virtual void wait(Event event) = 0;
    // Device time between two events that are done; 0 if `to` came first.
    [[nodiscard]] virtual std::uint64_t elapsed_ns(Event from, Event to) = 0;

    // Work, in stream order.  Host memory given to upload() and download()
    // must be mapped memory from allocate_mapped() or registered memory.
    virtual void upload(DeviceAddress to, const void* from, std::size_t bytes, Stream stream) = 0;
    virtual void download(void* to, DeviceAddress from, std::size_t bytes, Stream stream) = 0;
    virtual void gather_pages(const GatherLaunch& launch, Stream stream) = 0;
    virtual void compress_pages(const CompressLaunch& launch, Stream stream) = 0;
    virtual void pack_offsets(const PackLaunch& launch, Stream stream) = 0;
    virtual void copy_out(const CopyOutLaunch& launch, Stream stream) = 0;
    virtual void decompress_pages(const DecompressLaunch& launch, Stream stream) = 0;
};

}  // namespace ozram::gpu
