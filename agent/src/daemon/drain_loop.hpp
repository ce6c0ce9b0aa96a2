// The agent's work: take batches of pages from the SQ, compress them, put
// the bytes in the output slots and the completions in the CQ.  Several
// batches are in flight at once (on the GPU, or on the CPU pool's thread):
// the loop takes new work while older batches compress, and posts each
// batch's completions when it finishes.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "agent_metrics.hpp"
#include "agent_queues.hpp"
#include "compressor_set.hpp"
#include "doorbell.hpp"
#include "ozram/algorithm.hpp"
#include "ozram/batch_result.hpp"
#include "ring_transport.hpp"

namespace ozram::daemon {

// Batches in flight by default: the seeds' pipeline depth.
inline constexpr std::uint32_t DEFAULT_BATCHES_IN_FLIGHT = 4;

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
    // Waits for the batches still in flight (abandon_in_flight()).
    ~DrainLoop();
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
    // Batches in flight at most (1..64; each compressor also has its own
    // bound, PageCompressor::max_in_flight()).  Only between steps with none
    // in flight.
    void set_batches_in_flight(std::uint32_t batches);
    void set_picker(CompressorPicker& picker) { picker_ = &picker; }

    // Waits up to `idle_timeout` for work; takes what the SQ holds while a
    // batch can start; then waits for the oldest batch in flight and posts
    // its completions, and those of any other batch that has finished.
    // Returns Stopping or ProducerGone only with no batch in flight.
    Step step(std::chrono::microseconds idle_timeout);
    [[nodiscard]] std::uint32_t batches_in_flight() const;

    // Waits for every batch in flight and posts its completions.  Until a
    // batch finishes, its compressor reads the ring's staged pages and
    // writes its output slots: call it before the transport detaches (the
    // areas are unmapped) and before the compressors are replaced.
    void finish_in_flight();
    // Waits for every batch in flight and posts nothing: after an error of
    // the ring, before the transport detaches (the producer then takes the
    // slots back).  Until a batch finishes, its compressor writes its output
    // slots and result.
    void abandon_in_flight() noexcept;

    [[nodiscard]] const AgentMetrics& metrics() const { return metrics_; }
    [[nodiscard]] std::uint32_t batch_size() const { return batch_size_; }

  private:
    // A run of one format's pages, in flight on its compressor.
    struct Batch {
        std::uint64_t order = 0;  // when it was submitted; 0: a free entry
        // Null once the batch is done with it, or when it refused the batch.
        PageCompressor* compressor = nullptr;
        // The backend picked for the batch, whatever became of it: the one
        // its metrics count a fallback against.
        Backend intended = Backend::Cpu;
        PageCompressor::Ticket ticket = 0;
        Algorithm algorithm = Algorithm::Lz4;
        int level = 0;  // the ring's level of its pages, 0: the default
        std::uint32_t count = 0;
        std::vector<ozram_ring_sqe> sqes;
        std::vector<const std::uint8_t*> pages;
        // The output slots of the pages, where the compressor writes.
        std::vector<std::uint8_t*> outputs;
        BatchResult result;
    };

    // Waits up to the flush timeout for a partial batch to fill.
    std::uint32_t fill(std::uint32_t available);
    // Copies the first `count` SQ entries into sqes_/pages_, and returns
    // how many it copied.  An entry naming no slot is skipped; one with
    // flags this agent does not know is answered with -EINVAL.  Of two
    // entries naming one slot (the producer took it back and staged it
    // again) only the newer is kept.
    std::uint32_t gather(std::uint32_t count);
    // Finishes the batches in flight that write the output slots of the
    // gathered pages [first, first + count): a slot that the producer took
    // back and staged again must not be written by its old batch after its
    // new batch's answer (ring-abi.md, "Timeout take-back").
    void finish_writers_of(std::uint32_t first, std::uint32_t count);
    // Puts the gathered pages of each algorithm next to each other (in
    // OZRAM_RING_ALG_* order, each in its order of arrival) and returns how
    // many each algorithm has.
    std::array<std::uint32_t, OZRAM_RING_ALG_NR> group_by_algorithm(std::uint32_t count);
    // Starts the gathered pages [first, first + count), all in `algorithm`,
    // as batches in flight (several when the compressor takes fewer pages
    // a batch); finishes older batches first when there is no room.
    void start_run(std::uint32_t first, std::uint32_t count, Algorithm algorithm, int level);
    // Starts the gathered pages [first, first + count), all in `algorithm`,
    // as one run per level (ABI 1.5), the pages of each level in their order
    // of arrival.
    void start_levels(std::uint32_t first, std::uint32_t count, Algorithm algorithm);
    // A free entry for a batch on `compressor`, after finishing the oldest
    // batches while there is none or the compressor has no room.
    Batch& room_for(PageCompressor& compressor);
    // Waits for a batch, redoes it on the CPU if its compressor failed, and
    // posts its completions.
    void finish(Batch& batch);
    // Finishes every batch that is done, without waiting.
    void finish_done();
    // Frees a batch's entry, and its output slots for other batches.
    void release(Batch& batch) noexcept;
    [[nodiscard]] Batch* oldest();
    // Posts a completion per page of the batch (its result's, with
    // cqe_flags on the OK ones, which count as `backend`'s work, or
    // `status` on all).
    void post(const Batch& batch, std::int32_t status, std::uint32_t cqe_flags, Backend backend);
    // Posts `status` for the gathered pages [first, first + count).
    void post_failed(std::uint32_t first, std::uint32_t count, std::int32_t status);
    // Posts one completion; false when the producer makes no CQ room.
    bool post_one(const ozram_ring_cqe& cqe);
    bool wait_for_cq_room();

    ring::RingTransport& transport_;
    ring::AgentQueues queues_;
    CompressorPicker* picker_;
    AgentMetrics own_metrics_;
    AgentMetrics& metrics_;
    Doorbell doorbell_;
    std::uint32_t batch_size_;
    std::chrono::microseconds flush_{200};
    // The batch being taken from the SQ, before its runs start.
    std::vector<ozram_ring_sqe> sqes_;
    std::vector<const std::uint8_t*> pages_;
    // Where group_by_algorithm() sorts to, the same size as sqes_ and pages_.
    std::vector<ozram_ring_sqe> spare_sqes_;
    std::vector<const std::uint8_t*> spare_pages_;
    // OZRAM_RING_CQE_F_GPU if the producer's minor version knows it, else 0.
    std::uint32_t gpu_flag_;
    // The length of a RAW completion: 0 when the producer keeps its staged
    // copy (ABI 1.4), else a page copied into the output slot.
    std::uint32_t raw_length_;
    // The producer may send levels (OZRAM_RING_FEAT_LEVELS): a level in a
    // submission is no unknown flag.
    bool levels_;
    // The batches in flight, each entry sized for a whole ring.
    std::vector<Batch> batches_;
    // For each output slot, the batch in flight that writes it (its
    // order), 0 for none.
    std::vector<std::uint64_t> slot_writer_;
    // While gather() runs, where each slot's entry went in sqes_;
    // NOT_GATHERED for none.
    std::vector<std::uint32_t> gathered_at_;
    std::uint64_t next_order_ = 1;
};

}  // namespace ozram::daemon
