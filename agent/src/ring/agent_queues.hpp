// The agent's side of the two queues: it consumes the SQ and produces the CQ.
#pragma once

#include <cstdint>

#include "ring_view.hpp"

namespace ozram::ring {

// The SQ entries waiting between `sq_head` and `sq_tail`, as the indices
// wrap; 0 for a tail more than `sq_entries` ahead, which is corrupt.
[[nodiscard]] constexpr std::uint32_t sq_waiting(std::uint32_t sq_tail, std::uint32_t sq_head,
                                                 std::uint32_t sq_entries) {
    const std::uint32_t waiting = sq_tail - sq_head;
    return waiting <= sq_entries ? waiting : 0;
}

// Keeps private copies of the indices the agent owns (sq_head, cq_tail) and
// only reads the ones the producer owns (sq_tail, cq_head), so a producer
// that scribbles over the control block can confuse the agent but never make
// it read or write outside the mapping.
class AgentQueues {
  public:
    explicit AgentQueues(const RingView& view);

    // SQ entries waiting to be consumed.  A tail more than sq_entries ahead
    // is corrupt; it is clamped and counted in corrupt_tails().
    [[nodiscard]] std::uint32_t pending();
    // A private copy of SQ entry sq_head + k (k < pending()).
    [[nodiscard]] ozram_ring_sqe peek(std::uint32_t k) const;
    // Frees n SQ entries for the producer (store-release of sq_head).
    void consume(std::uint32_t n);

    // Free CQ entries.
    [[nodiscard]] std::uint32_t cq_space() const;
    // Writes a CQ entry (the caller checked cq_space()); invisible until publish().
    void post(const ozram_ring_cqe& cqe);
    // Makes the posted entries visible (store-release of cq_tail).
    void publish();

    [[nodiscard]] bool stopping() const { return view_.stopping(); }
    [[nodiscard]] const RingView& view() const { return view_; }
    [[nodiscard]] std::uint64_t corrupt_tails() const { return corrupt_tails_; }

  private:
    RingView view_;
    std::uint32_t sq_head_;
    std::uint32_t cq_tail_;
    std::uint32_t sq_mask_;
    std::uint32_t cq_mask_;
    std::uint64_t corrupt_tails_ = 0;
};

}  // namespace ozram::ring
