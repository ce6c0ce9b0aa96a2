#include "agent_queues.hpp"

#include <cstring>

namespace ozram::ring {

AgentQueues::AgentQueues(const RingView& view)
    : view_(view),
      sq_head_(load_acquire(view.ctrl->sq_head)),
      cq_tail_(load_acquire(view.ctrl->cq_tail)),
      sq_mask_(view.header.sq_entries - 1),
      cq_mask_(view.header.cq_entries - 1) {}

std::uint32_t AgentQueues::pending() {
    const std::uint32_t tail = load_acquire(view_.ctrl->sq_tail);
    const std::uint32_t waiting = sq_waiting(tail, sq_head_, view_.header.sq_entries);
    if (waiting == 0 && tail != sq_head_) {
        ++corrupt_tails_;
    }
    return waiting;
}

ozram_ring_sqe AgentQueues::peek(std::uint32_t k) const {
    ozram_ring_sqe copy;
    std::memcpy(&copy, &view_.sq[(sq_head_ + k) & sq_mask_], sizeof(copy));
    return copy;
}

void AgentQueues::consume(std::uint32_t n) {
    sq_head_ += n;
    store_release(view_.ctrl->sq_head, sq_head_);
}

std::uint32_t AgentQueues::cq_space() const {
    const std::uint32_t used = cq_tail_ - load_acquire(view_.ctrl->cq_head);
    return used >= view_.header.cq_entries ? 0 : view_.header.cq_entries - used;
}

void AgentQueues::post(const ozram_ring_cqe& cqe) {
    std::memcpy(&view_.cq[cq_tail_ & cq_mask_], &cqe, sizeof(cqe));
    ++cq_tail_;
}

void AgentQueues::publish() {
    store_release(view_.ctrl->cq_tail, cq_tail_);
}

}  // namespace ozram::ring
