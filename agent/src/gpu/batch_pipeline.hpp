// The GPU backend's host half: batches in flight on a device, each in a slot
// of its own with its own stream, buffers and events, so that one batch's
// upload, kernels and download overlap the others' and a failure spoils
// only its own stream.
//
//   slot k's stream:   [pages in] [compress] [bytes out, descriptors] | finish on the host
//   slot k+1's stream:        [pages in] [compress] [bytes out] ...
//
// Pages come in without a host copy when they lie in registered memory (the
// gather kernel reads them over the bus), else through a pinned buffer.
// Only compressed bytes go out: straight into each page's own buffer when
// that lies in memory registered for the device to write (the ring's output
// area), else packed back to back (a prefix sum over the sizes on the
// device) into a pinned buffer the host takes them from.  Decompression
// uploads only compressed bytes.  See Documentation/gpu.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/device.hpp"
#include "gpu/host_regions.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/gpu.hpp"
#include "ozram/gpu_kernel.hpp"

namespace ozram::gpu {

struct PipelineConfig {
    std::size_t batch_pages = 4096;  // pages a slot holds: the largest batch
    std::size_t slots = 4;           // batches in flight
    GpuCompressKernel kernel = DEFAULT_GPU_COMPRESS_KERNEL;
    std::uint32_t huge_threshold = PAGE_SIZE;  // largest LZ4 block kept
};

// Device time of one batch's stages.
struct StageTimes {
    std::uint64_t h2d_ns = 0;     // pages (or blocks) in
    std::uint64_t kernel_ns = 0;  // the compression (or decompression) kernel
    std::uint64_t d2h_ns = 0;     // bytes (or pages) and descriptors out
};

// What the host half did itself (ozram/gpu.hpp).
using HostWork = GpuHostWork;

using Ticket = std::uint64_t;

// A batch to compress: page i of `pages` goes to result->pages[first + i].
// With `outputs` (one PAGE_SIZE buffer per page), a page's bytes go to its
// buffer, a raw page's only when raw_kept; without, the batch's bytes are
// appended to result->payload, packed, raw pages included.
struct CompressJob {
    std::span<const std::uint8_t* const> pages;
    std::span<std::uint8_t* const> outputs;
    bool raw_kept = false;
    BatchResult* result = nullptr;
    std::size_t first = 0;
};

// A batch to restore: input->pages[first + i] into pages[i] (PAGE_SIZE each).
// The caller has checked that every page's bytes lie in input->payload with
// a size its encoding allows.
struct DecompressJob {
    const BatchResult* input = nullptr;
    std::size_t first = 0;
    std::span<std::uint8_t* const> pages;
};

struct FinishedBatch {
    StageTimes times;
    // Decompression: the first page (index into the job) whose block the
    // device found corrupt; its destination is untouched.
    std::optional<std::size_t> first_corrupt;
};

// A result no correct kernel produces: handled as a failure of the device.
class ImpossibleResult : public DeviceFailure {
  public:
    explicit ImpossibleResult(const std::string& what) : DeviceFailure(-1, false, what) {}
};

class BatchPipeline {
  public:
    // Allocates every slot's device memory and streams now: a batch then
    // allocates nothing but pinned buffers the first batch that needs them.
    BatchPipeline(Device& device, const PipelineConfig& config);
    ~BatchPipeline();
    BatchPipeline(const BatchPipeline&) = delete;
    BatchPipeline& operator=(const BatchPipeline&) = delete;

    [[nodiscard]] const PipelineConfig& config() const { return config_; }
    [[nodiscard]] bool has_free_slot() const;
    [[nodiscard]] std::size_t in_flight() const;

    // Host memory the device may read (and, with device_writes, write) where
    // it lies.  False, with the driver's reason, when it refuses; throws
    // Error(EEXIST) for a region that overlaps a registered one.
    bool add_region(std::span<const std::uint8_t> region, bool device_writes, std::string& why);
    bool remove_region(const std::uint8_t* base);
    [[nodiscard]] const HostRegions& regions() const { return regions_; }

    // Starts a batch of 1..batch_pages pages in a free slot; throws
    // Error(EBUSY) when none is free, Error(EINVAL) for a bad size.  The
    // job's memory must stay valid until the batch is finished or abandoned.
    Ticket submit(const CompressJob& job);
    Ticket submit(const DecompressJob& job);
    // Whether finish() would not wait.
    [[nodiscard]] bool ready(Ticket ticket);
    // Waits for the batch and writes its results.  On a DeviceFailure the
    // batch is lost: call abandon(), then redo it elsewhere.
    FinishedBatch finish(Ticket ticket);
    // Forgets a batch that failed (or that the caller gives up) and makes
    // its slot usable again with a new stream.  Throws DeviceFailure when the
    // device cannot give a new stream (after a sticky failure).
    void abandon(Ticket ticket);
    // The tickets in flight, oldest first.
    [[nodiscard]] std::vector<Ticket> tickets() const;

    [[nodiscard]] const HostWork& host_work() const { return host_work_; }
    // Timeline notes of the batches finished from now on (ozram/gpu.hpp).
    void keep_timeline(bool keep);
    [[nodiscard]] std::vector<GpuTimelineEntry> take_timeline();

  private:
    struct Slot;

    Slot& free_slot();
    // Enqueues a batch's work on its slot's stream between the start event
    // and the descriptors' download and end event, and gives it a ticket;
    // on a failure the slot gets a new stream.
    template <class Enqueue>
    Ticket start(Slot& slot, int kind, std::uint32_t count, Enqueue&& enqueue);
    Slot& slot_of(Ticket ticket);
    const std::uint8_t* staging_pages(Slot& slot);
    std::uint8_t* packed_buffer(Slot& slot);
    void copy_on_host(void* to, const void* from, std::size_t bytes);
    void bring_pages_in(Slot& slot, std::span<const std::uint8_t* const> pages);
    void finish_compress(Slot& slot);
    std::optional<std::size_t> finish_decompress(Slot& slot);
    void make_stream(Slot& slot);
    void drop_stream(Slot& slot) noexcept;
    void release_all() noexcept;

    Device& device_;
    PipelineConfig config_;
    HostRegions regions_;
    std::vector<Slot> slots_;
    Ticket next_ticket_ = 1;
    HostWork host_work_;
    // The timeline's origin, recorded by keep_timeline(true), and its notes.
    Event origin_ = nullptr;
    bool keep_timeline_ = false;
    std::vector<GpuTimelineEntry> timeline_;
};

}  // namespace ozram::gpu
