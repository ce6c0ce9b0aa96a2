// The GPU batch compressor and what the library knows about the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "ozram/backend.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram {

// Whether a usable CUDA device is present (false in a build without CUDA).
[[nodiscard]] bool gpu_available();

// A CUDA device as the backend sees it.
struct GpuDeviceInfo {
    std::string name;
    std::pair<int, int> compute_capability{0, 0};

    // Read from the device.  Throws Error(ENODEV) when there is none.
    [[nodiscard]] static GpuDeviceInfo query(int index = 0);

    // Compute capability 9.0 or newer: the devices the build carries code for.
    [[nodiscard]] bool is_supported() const;
};

struct GpuBatchConfig {
    int device_index = 0;
    std::size_t batch_size = 4096;      // pages per batch (larger batches are split)
    bool async_dma = true;              // pinned buffers and streams; false: synchronous copies
    std::size_t ring_buffer_slots = 4;  // batches in flight
    std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD;  // largest LZ4 block kept
};

// Compresses batches of pages with LZ4 on a CUDA device.  A PageCompressor,
// so the agent drives it like the CPU backends.  In a build without CUDA,
// create() throws Error(ENODEV, "built without CUDA support").
class GpuBatchCompressor : public PageCompressor {
  public:
    // Throws Error(ENODEV) with no usable device, Error(EINVAL) on a bad config.
    [[nodiscard]] static std::unique_ptr<GpuBatchCompressor> create(const GpuBatchConfig& config);
    ~GpuBatchCompressor() override;

    // PageCompressor
    [[nodiscard]] Backend backend() const override { return Backend::Gpu; }
    void compress(std::span<const std::uint8_t* const> pages, BatchResult& out) override;
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, BatchResult& out) override;
    void decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) override;

    [[nodiscard]] const GpuDeviceInfo& device() const;
    // Batches (compress or decompress) that a GPU failure handed to the CPU;
    // each kind of failure is also logged to stderr once.
    [[nodiscard]] std::uint64_t fallback_batches() const;

    // Lets the device read the pages that lie in `region` where they are,
    // over the bus, instead of the host first copying each into a pinned
    // buffer.  The region is registered with the CUDA driver (page-locked,
    // mapped, read-only where the device allows) until unregistered or the
    // compressor ends; the caller keeps it mapped until then.  Returns
    // false, and logs the driver's reason, when the driver refuses it (some
    // mappings cannot be pinned); its pages are then copied as before.
    // Throws Error(EEXIST) when it overlaps a registered region.
    bool register_host_region(std::span<const std::uint8_t> region);
    // Gives a region back to the driver; false if `base` starts none.
    bool unregister_host_region(const std::uint8_t* base);
    // Compressed pages the device read in place, and pages the host copied
    // into pinned buffers first (a chunk is read in place only if all of its
    // pages are in registered regions, 16-byte aligned).
    [[nodiscard]] std::uint64_t pages_read_in_place() const;
    [[nodiscard]] std::uint64_t pages_copied() const;

    struct Impl;

  private:
    explicit GpuBatchCompressor(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ozram
