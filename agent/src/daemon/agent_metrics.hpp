// What ozramd counts about its own work, its one set of counters: batches,
// pages and bytes per backend, failed pages, the batch-size histogram, the
// GPU's stage times, the batches the GPU handed to the CPU, the cost model's
// choices and the CPU time of the producer's doorbell.  The drain loop, its
// doorbell and the compressor picker record; the Prometheus endpoint
// (--metrics-listen) renders at any time, and the detach log line reads the
// totals: every number is an atomic, read without a lock, so a scrape never
// stalls the loop.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ozram/backend.hpp"
#include "ozram/batch_result.hpp"

namespace ozram::daemon {

class AgentMetrics {
  public:
    static constexpr std::size_t BACKENDS = 3;  // indexed by Backend
    // Batch sizes in powers of two, 1..4096 pages: the ring's slot counts.
    static constexpr std::size_t BATCH_BUCKETS = 13;

    // A batch of `pages` pages compressed by `backend` (its times in
    // `result`), `ok` unless it failed; `gpu_fell_back` when the GPU
    // backend handed any of it to the CPU.
    void record_batch(Backend backend, std::size_t pages, const BatchResult& result, bool ok,
                      bool gpu_fell_back);
    // Pages completed with status OK, and their stored bytes; pages
    // completed with an error status.
    void record_completed(Backend backend, std::uint64_t pages, std::uint64_t bytes);
    void record_failed_pages(std::uint64_t count);
    // Submissions naming no slot, and completions dropped for want of room.
    void record_rejected_submissions(std::uint64_t count);
    void record_dropped_completions(std::uint64_t count);
    // The cost model chose `backend` for a batch (backend auto only).
    void record_cost_model_choice(Backend backend);
    // CPU time spent ringing the producer's doorbell: for the kernel, the
    // module checking and storing results inside the ioctl.
    void record_doorbell_cpu(std::chrono::nanoseconds cpu);

    // The totals so far.
    [[nodiscard]] std::uint64_t batches(Backend backend) const;
    [[nodiscard]] std::uint64_t batches() const;
    [[nodiscard]] std::uint64_t pages(Backend backend) const;
    [[nodiscard]] std::uint64_t pages() const;
    [[nodiscard]] std::uint64_t output_bytes() const;
    [[nodiscard]] std::uint64_t failed_pages() const;
    [[nodiscard]] std::uint64_t rejected_submissions() const;
    [[nodiscard]] std::uint64_t dropped_completions() const;
    [[nodiscard]] std::chrono::nanoseconds doorbell_cpu() const;

    // The text exposition format 0.0.4.
    [[nodiscard]] std::string render() const;

  private:
    using Counter = std::atomic<std::uint64_t>;
    using PerBackend = std::array<Counter, BACKENDS>;

    static void add(Counter& counter, std::uint64_t value) {
        counter.fetch_add(value, std::memory_order_relaxed);
    }

    PerBackend batches_{};
    PerBackend failed_batches_{};
    PerBackend pages_{};
    PerBackend bytes_out_{};
    PerBackend cost_model_choices_{};
    // Nanoseconds: the whole call per backend, and the GPU's stages.
    PerBackend compress_ns_{};
    Counter gpu_h2d_ns_{0};
    Counter gpu_kernel_ns_{0};
    Counter gpu_d2h_ns_{0};
    Counter gpu_fallback_batches_{0};
    Counter failed_pages_{0};
    Counter rejected_submissions_{0};
    Counter dropped_completions_{0};
    Counter doorbell_cpu_ns_{0};
    // Batches by size: bucket i holds sizes in (2^(i-1), 2^i]; the last
    // one everything larger.  Not cumulative: render() sums.
    std::array<Counter, BATCH_BUCKETS + 1> batch_sizes_{};
    Counter batch_pages_sum_{0};
};

}  // namespace ozram::daemon
