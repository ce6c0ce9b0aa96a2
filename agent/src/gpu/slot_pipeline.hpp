// The ring of batch slots that keeps copies in both directions overlapping
// kernels: a batch is cut into chunks of at most batch_pages pages, chunk k
// uses slot k mod slots, and each slot's work runs on three streams
//
//   h2d stream:     [upload k]        [upload k+1]      ...
//   compute stream:          [kernel k]         [kernel k+1]
//   d2h stream:                       [download k]         [download k+1]
//
// ordered by events, while the host packs chunk k+1 into its pinned slot.
// A chunk whose pages all lie in registered host memory is not packed: its
// upload is the gather kernel, which reads the pages in place.
// A slot is reused only after its download finished.  See Documentation/gpu.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/cuda_resources.hpp"
#include "kernels/lz4_kernels.hpp"
#include "kernels/page_gather.hpp"

namespace ozram::gpu {

using kernels::PageDescriptor;

struct Slot {
    Slot(std::size_t pages, bool pinned);

    HostBuffer<std::uint8_t> host_in;   // pages, or compressed slots
    HostBuffer<std::uint8_t> host_out;  // compressed slots, or pages
    HostBuffer<PageDescriptor> host_descriptors;
    HostBuffer<std::uint64_t> host_sources;  // device addresses of pages read in place
    DeviceBuffer<std::uint8_t> device_in;
    DeviceBuffer<std::uint8_t> device_out;
    DeviceBuffer<PageDescriptor> device_descriptors;
    DeviceBuffer<std::uint64_t> device_sources;
    Event h2d_begin, h2d_end, kernel_begin, kernel_end, d2h_begin, d2h_end;

    // The chunk the slot holds: pages [first, first + count) of the batch.
    std::size_t first = 0;
    std::size_t count = 0;
    // Set by pack(): the chunk's pages are read in place through
    // host_sources, and host_in is unused.
    bool gather = false;
    bool in_flight = false;
};

// Device time of each stage, summed over the chunks of a batch.
struct StageTimes {
    std::uint64_t h2d_ns = 0;
    std::uint64_t kernel_ns = 0;
    std::uint64_t d2h_ns = 0;
};

class SlotPipeline {
  public:
    // async: pinned buffers and overlapping streams; otherwise one slot in
    // ordinary memory and every stage waited for before the next.
    SlotPipeline(std::size_t batch_pages, std::size_t slots, bool async);

    // Runs a batch of total_pages pages through the slots:
    //   pack(slot):            fill host_in (and host_descriptors) for the chunk,
    //                          or host_sources with gather set
    //   launch(slot, stream):  enqueue the kernel, return its launch error
    //   unpack(slot):          read host_out and host_descriptors
    // Descriptors are uploaded too when upload_descriptors (decompression).
    // Throws CudaFailure; then call abandon() before the next run().
    template <class Pack, class Launch, class Unpack>
    StageTimes run(std::size_t total_pages, bool upload_descriptors, Pack&& pack, Launch&& launch,
                   Unpack&& unpack) {
        StageTimes times;
        std::size_t next = 0;
        for (std::size_t chunk = 0; next < total_pages; ++chunk) {
            Slot& slot = slots_[chunk % slots_.size()];
            if (slot.in_flight)
                collect(slot, times, unpack);
            slot.first = next;
            slot.count = std::min(batch_pages_, total_pages - next);
            next += slot.count;
            slot.gather = false;
            pack(slot);
            submit(slot, upload_descriptors, launch);
        }
        for (Slot& slot : slots_) {
            if (slot.in_flight)
                collect(slot, times, unpack);
        }
        return times;
    }

    // Forgets the chunks in flight after a failure (their results are lost;
    // the caller redoes the batch).
    void abandon();

  private:
    template <class Launch>
    void submit(Slot& slot, bool upload_descriptors, Launch& launch) {
        const std::size_t bytes = slot.count * PAGE_SIZE;
        const std::size_t descriptor_bytes = slot.count * sizeof(PageDescriptor);
        cudaStream_t up = h2d_.get(), compute = compute_.get(), down = d2h_.get();

        cuda_check(cudaEventRecord(slot.h2d_begin.get(), up), "cudaEventRecord");
        if (slot.gather) {
            cuda_check(
                cudaMemcpyAsync(slot.device_sources.data(), slot.host_sources.data(),
                                slot.count * sizeof(std::uint64_t), cudaMemcpyHostToDevice, up),
                "cudaMemcpyAsync (upload page addresses)");
            cuda_check(
                kernels::launch_gather_pages(slot.device_sources.data(), slot.device_in.data(),
                                             static_cast<std::uint32_t>(slot.count), up),
                "gather kernel launch");
        } else {
            cuda_check(cudaMemcpyAsync(slot.device_in.data(), slot.host_in.data(), bytes,
                                       cudaMemcpyHostToDevice, up),
                       "cudaMemcpyAsync (upload)");
        }
        if (upload_descriptors) {
            cuda_check(cudaMemcpyAsync(slot.device_descriptors.data(), slot.host_descriptors.data(),
                                       descriptor_bytes, cudaMemcpyHostToDevice, up),
                       "cudaMemcpyAsync (upload descriptors)");
        }
        cuda_check(cudaEventRecord(slot.h2d_end.get(), up), "cudaEventRecord");
        wait_if_synchronous(slot.h2d_end);

        cuda_check(cudaStreamWaitEvent(compute, slot.h2d_end.get(), 0), "cudaStreamWaitEvent");
        cuda_check(cudaEventRecord(slot.kernel_begin.get(), compute), "cudaEventRecord");
        cuda_check(launch(slot, compute), "kernel launch");
        cuda_check(cudaEventRecord(slot.kernel_end.get(), compute), "cudaEventRecord");
        wait_if_synchronous(slot.kernel_end);

        cuda_check(cudaStreamWaitEvent(down, slot.kernel_end.get(), 0), "cudaStreamWaitEvent");
        cuda_check(cudaEventRecord(slot.d2h_begin.get(), down), "cudaEventRecord");
        cuda_check(cudaMemcpyAsync(slot.host_out.data(), slot.device_out.data(), bytes,
                                   cudaMemcpyDeviceToHost, down),
                   "cudaMemcpyAsync (download)");
        cuda_check(cudaMemcpyAsync(slot.host_descriptors.data(), slot.device_descriptors.data(),
                                   descriptor_bytes, cudaMemcpyDeviceToHost, down),
                   "cudaMemcpyAsync (download descriptors)");
        cuda_check(cudaEventRecord(slot.d2h_end.get(), down), "cudaEventRecord");
        wait_if_synchronous(slot.d2h_end);
        slot.in_flight = true;
    }

    template <class Unpack>
    void collect(Slot& slot, StageTimes& times, Unpack& unpack) {
        cuda_check(cudaEventSynchronize(slot.d2h_end.get()), "cudaEventSynchronize");
        times.h2d_ns += elapsed_ns(slot.h2d_begin, slot.h2d_end);
        times.kernel_ns += elapsed_ns(slot.kernel_begin, slot.kernel_end);
        times.d2h_ns += elapsed_ns(slot.d2h_begin, slot.d2h_end);
        slot.in_flight = false;
        unpack(static_cast<const Slot&>(slot));
    }

    void wait_if_synchronous(const Event& event) const;
    static std::uint64_t elapsed_ns(const Event& begin, const Event& end);

    std::size_t batch_pages_;
    bool async_;
    Stream h2d_, compute_, d2h_;
    std::vector<Slot> slots_;
};

}  // namespace ozram::gpu
