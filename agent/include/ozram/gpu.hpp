// The GPU batch compressor and what the library knows about the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ozram/backend.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/gpu_kernel.hpp"
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
    std::size_t batch_size = 4096;  // pages a batch slot holds (larger batches are split)
    // Batches in flight at once, each with its own stream; false: one, each
    // waited for before the next (for comparison).
    bool async_dma = true;
    std::size_t ring_buffer_slots = 4;                    // batches in flight
    std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD;  // largest LZ4 block kept
    GpuCompressKernel kernel = DEFAULT_GPU_COMPRESS_KERNEL;
};

// What the host did for the GPU's batches, summed over those the device
// finished: the CPU's share of the GPU's work.
struct GpuHostWork {
    std::uint64_t bytes_copied = 0;      // memcpy by the host: pages in, bytes out
    std::uint64_t descriptor_bytes = 0;  // per-page descriptors read back (16 a page)
    std::uint64_t pages_in_place = 0;    // pages the device read where they lay
    std::uint64_t pages_copied = 0;      // pages the host copied into a pinned buffer first
    std::uint64_t outputs_in_place = 0;  // pages whose bytes the device wrote to their buffer
    std::uint64_t outputs_copied = 0;    // pages whose bytes the host copied out
};

// One batch (or chunk of a batch) as the device ran it, for a timeline of
// the streams: device time, in ns since the compressor's pipeline started,
// at which its stream began the stage (pages or blocks in), the kernel,
// and the stage out (bytes or pages and descriptors out), and when all was
// done.  Stages of one stream follow each other; streams overlap.
struct GpuTimelineEntry {
    std::uint32_t stream = 0;  // the pipeline's slot: one stream each
    std::uint32_t pages = 0;
    bool decompress = false;
    std::uint64_t start_ns = 0;
    std::uint64_t uploaded_ns = 0;
    std::uint64_t computed_ns = 0;
    std::uint64_t end_ns = 0;
};

namespace gpu {
class Device;
}

// Compresses batches of pages with LZ4 on a CUDA device.  A PageCompressor,
// so the agent drives it like the CPU backends, batches in flight included.
// In a build without CUDA, create() throws Error(ENODEV, "built without
// CUDA support").
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
    Ticket submit(std::span<const std::uint8_t* const> pages,
                  std::span<std::uint8_t* const> outputs, BatchResult& out) override;
    [[nodiscard]] bool poll(Ticket ticket) override;
    void complete(Ticket ticket) override;
    [[nodiscard]] std::size_t max_in_flight() const override;
    [[nodiscard]] std::size_t max_batch_pages() const override;

    [[nodiscard]] const GpuDeviceInfo& device() const;
    // Batches (compress or decompress) that a GPU failure handed to the CPU;
    // each kind of failure is also logged to stderr once.
    [[nodiscard]] std::uint64_t fallback_batches() const;
    // Failures after which a batch's stream was replaced and the GPU kept.
    [[nodiscard]] std::uint64_t stream_recoveries() const;
    // Whether the GPU is still in use (false after a failure that lost its
    // context: every batch goes to the CPU from then on).
    [[nodiscard]] bool gpu_in_use() const;

    // Lets the device read the pages that lie in `region` where they are,
    // over the bus, instead of the host first copying each into a pinned
    // buffer.  The region is registered with the CUDA driver (page-locked,
    // mapped, read-only where the device allows) until unregistered or the
    // compressor ends; the caller keeps it mapped until then.  Returns
    // false, and logs the driver's reason, when the driver refuses it (some
    // mappings cannot be pinned); its pages are then copied as before.
    // Throws Error(EEXIST) when it overlaps a registered region.
    bool register_host_region(std::span<const std::uint8_t> region);
    // The same for memory the device writes: compress_into() outputs (or
    // decompress() destinations) that lie in it get their bytes straight from
    // the device, with no copy on the host (the ring's output area).
    bool register_output_region(std::span<std::uint8_t> region);
    // Gives a region back to the driver; false if `base` starts none.  The
    // batches in flight finish their device part first (complete() then
    // returns at once), since any of them may use the region.
    bool unregister_host_region(const std::uint8_t* base);
    // Pages the device read in place, and pages the host copied first (a
    // batch is read in place only if all of its pages are in registered
    // regions, 16-byte aligned), of the batches the device finished.
    [[nodiscard]] std::uint64_t pages_read_in_place() const;
    [[nodiscard]] std::uint64_t pages_copied() const;
    [[nodiscard]] GpuHostWork host_work() const;
    // From keep_timeline(true) on, each batch the device finishes is noted
    // (one entry per chunk); take_timeline() hands the notes over.  For
    // benchmarks: a note costs three event queries a chunk.
    void keep_timeline(bool keep);
    [[nodiscard]] std::vector<GpuTimelineEntry> take_timeline();

    struct Impl;

  private:
    explicit GpuBatchCompressor(std::unique_ptr<Impl> impl);
    friend std::unique_ptr<GpuBatchCompressor> make_gpu_compressor(const GpuBatchConfig&,
                                                                   std::shared_ptr<gpu::Device>,
                                                                   GpuDeviceInfo);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ozram
