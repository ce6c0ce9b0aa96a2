// The agent's work: take a batch of pages from the SQ, compress it, put the
// bytes in the output slots and the completions in the CQ.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "agent_metrics.hpp"
#include "agent_queues.hpp"
#include "compressor_set.hpp"
#include "doorbell.hpp"
#include "ozram/batch_result.hpp"
#include "ring_transport.hpp"

namespace ozram::daemon {

enum class Step {
    Idle,          // nothing to do within the idle timeout
    Drained,       // a batch was completed
    Stopping,      // the producer is stopping and the SQ is empty: detach
    ProducerGone,  // the producer closed the ring
};

// Every buffer is sized for the ring at construction: step() allocates
// nothing (the compressor's own behaviour aside).
class DrainLoop {
  public:
    // The loop counts its work in `metrics`, which must outlive it; without
    // them, in metrics of its own.
    DrainLoop(ring::RingTransport& transport, CompressorPicker& picker);
    DrainLoop(ring::RingTransport& transport, CompressorPicker& picker, AgentMetrics& metrics);
    DrainLoop(const DrainLoop&) = delete;
    DrainLoop& operator=(const DrainLoop&) = delete;

    // The doorbell from a thread of its own (Doorbell::set_async()): the
    // producer checks one batch's results while this loop compresses the
    // next.  Off by default.
    void set_async_doorbell(bool on) { doorbell_.set_async(on); }
    // Rings once more for what is posted, and ends the doorbell thread; an
    // error it met is thrown here.  Call before the transport detaches.
    void finish_doorbell() { doorbell_.finish(); }

    // batch_size is capped at the ring's slot count.
    void set_batching(std::uint32_t batch_size, std::chrono::microseconds flush);
    void set_picker(CompressorPicker& picker) { picker_ = &picker; }

    // Waits up to `idle_timeout` for work, then completes at most one batch.
    Step step(std::chrono::microseconds idle_timeout);

    [[nodiscard]] const AgentMetrics& metrics() const { return metrics_; }
    [[nodiscard]] std::uint32_t batch_size() const { return batch_size_; }

  private:
    // Waits up to the flush timeout for a partial batch to fill.
    std::uint32_t fill(std::uint32_t available);
    // Copies the SQ entries naming a slot into sqes_/pages_; returns their count.
    std::uint32_t gather(std::uint32_t count);
    // Puts the gathered pages of each algorithm next to each other (in
    // OZRAM_RING_ALG_* order, each in its order of arrival) and returns how
    // many each algorithm has.
    std::array<std::uint32_t, OZRAM_RING_ALG_NR> group_by_algorithm(std::uint32_t count);
    // Compresses the gathered pages [first, first + count), all in
    // `algorithm`, and completes them.
    void compress_run(std::uint32_t first, std::uint32_t count, Algorithm algorithm);
    // Posts a completion per gathered page of [first, first + count), whose
    // results are result_'s, their bytes already in their output slots;
    // cqe_flags go on the OK ones, which count as `backend`'s work.
    void complete(std::uint32_t first, std::uint32_t count, std::int32_t status,
                  std::uint32_t cqe_flags, Backend backend);
    bool wait_for_cq_room();

    ring::RingTransport& transport_;
    ring::AgentQueues queues_;
    CompressorPicker* picker_;
    AgentMetrics own_metrics_;
    AgentMetrics& metrics_;
    Doorbell doorbell_;
    std::uint32_t batch_size_;
    std::chrono::microseconds flush_{200};
    std::vector<ozram_ring_sqe> sqes_;
    std::vector<const std::uint8_t*> pages_;
    // The output slots of a run's pages, where the compressor writes.
    std::vector<std::uint8_t*> outputs_;
    // Where group_by_algorithm() sorts to, the same size as sqes_ and pages_.
    std::vector<ozram_ring_sqe> spare_sqes_;
    std::vector<const std::uint8_t*> spare_pages_;
    // OZRAM_RING_CQE_F_GPU if the producer's minor version knows it, else 0.
    std::uint32_t gpu_flag_;
    // The length of a RAW completion: 0 when the producer keeps its staged
    // copy (ABI 1.4), else a page copied into the output slot.
    std::uint32_t raw_length_;
    BatchResult result_;
};

}  // namespace ozram::daemon
