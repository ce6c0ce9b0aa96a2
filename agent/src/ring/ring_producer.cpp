#include "ring_producer.hpp"

namespace ozram::ring {

RingProducer::RingProducer(const RingView& view)
    : view_(view),
      sq_tail_(load_acquire(view.ctrl->sq_tail)),
      cq_head_(load_acquire(view.ctrl->cq_head)),
      generations_(view.header.slots, 1),
      cookies_(view.header.slots, 0),
      busy_(view.header.slots, false) {
    free_slots_.reserve(view.header.slots);
    for (std::uint32_t slot = view.header.slots; slot-- > 0;) {
        free_slots_.push_back(slot);
    }
}

bool RingProducer::can_stage() const {
    const std::uint32_t queued = sq_tail_ - load_acquire(view_.ctrl->sq_head);
    return !free_slots_.empty() && queued < view_.header.sq_entries;
}

std::uint32_t RingProducer::stage(const std::uint8_t* page, std::uint32_t device_id,
                                  std::uint64_t cookie) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    busy_[slot] = true;
    cookies_[slot] = cookie;
    ++in_flight_;
    std::memcpy(view_.staging_slot(slot), page, OZRAM_RING_PAGE_SIZE);
    const ozram_ring_sqe sqe{slot, generations_[slot], device_id, 0};
    std::memcpy(&view_.sq[sq_tail_ & (view_.header.sq_entries - 1)], &sqe, sizeof(sqe));
    ++sq_tail_;
    return slot;
}

void RingProducer::publish() {
    store_release(view_.ctrl->sq_tail, sq_tail_);
}

void RingProducer::release(std::uint32_t slot) {
    // A new generation as the slot leaves flight: a late or repeated
    // completion for the old one is stale from now on.
    ++generations_[slot];
    busy_[slot] = false;
    --in_flight_;
    free_slots_.push_back(slot);
}

std::vector<std::uint64_t> RingProducer::take_back_all() {
    std::vector<std::uint64_t> taken;
    for (std::uint32_t slot = 0; slot < view_.header.slots; ++slot) {
        if (busy_[slot]) {
            taken.push_back(cookies_[slot]);
            release(slot);
        }
    }
    return taken;
}

void RingProducer::set_stopping() {
    const std::uint32_t flags = load_acquire(view_.ctrl->flags);
    store_release(view_.ctrl->flags, flags | OZRAM_RING_F_STOPPING);
}

}  // namespace ozram::ring
