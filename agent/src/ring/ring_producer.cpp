#include "ring_producer.hpp"

extern "C" {
#include "ozram_ring_slots.h"
}

namespace ozram::ring {

RingProducer::RingProducer(const RingView& view)
    : view_(view),
      sq_tail_(load_acquire(view.ctrl->sq_tail)),
      cq_head_(load_acquire(view.ctrl->cq_head)),
      free_stack_(view.header.slots),
      generations_(view.header.slots),
      states_(view.header.slots),
      algorithms_(view.header.slots),
      posted_(view.header.slots),
      slots_(std::make_unique<ozram_ring_slots>()),
      cookies_(view.header.slots, 0) {
    slots_->free_stack = free_stack_.data();
    slots_->generations = generations_.data();
    slots_->states = states_.data();
    slots_->algorithms = algorithms_.data();
    slots_->posted = posted_.data();
    ozram_ring_slots_init(slots_.get(), view.header.slots, view.header.huge_threshold);
}

RingProducer::~RingProducer() = default;

bool RingProducer::can_stage() const {
    const std::uint32_t queued = sq_tail_ - load_acquire(view_.ctrl->sq_head);
    return slots_->nr_free != 0 && queued + taken_unsubmitted_ < view_.header.sq_entries;
}

std::uint32_t RingProducer::stage(const std::uint8_t* page, std::uint32_t device_id,
                                  std::uint64_t cookie, ozram_ring_algorithm algorithm) {
    const Taken taken = take(cookie, algorithm);
    std::memcpy(view_.staging_slot(taken.slot), page, OZRAM_RING_PAGE_SIZE);
    submit(taken, device_id);
    return taken.slot;
}

RingProducer::Taken RingProducer::take(std::uint64_t cookie, ozram_ring_algorithm algorithm) {
    Taken taken{0, 0, algorithm};
    // No clock: the userspace producer takes slots back only all at once.
    if (!can_stage() || !ozram_ring_slots_get(slots_.get(), 0, static_cast<std::uint8_t>(algorithm),
                                              &taken.slot, &taken.generation)) {
        throw Error(EBUSY, "take() without a free slot: check can_stage() first");
    }
    cookies_[taken.slot] = cookie;
    ++taken_unsubmitted_;
    return taken;
}

void RingProducer::submit(const Taken& taken, std::uint32_t device_id) {
    const ozram_ring_sqe sqe{taken.slot, taken.generation, device_id,
                             static_cast<std::uint32_t>(taken.algorithm)};
    std::memcpy(&view_.sq[sq_tail_ & (view_.header.sq_entries - 1)], &sqe, sizeof(sqe));
    ++sq_tail_;
    --taken_unsubmitted_;
}

void RingProducer::publish() {
    store_release(view_.ctrl->sq_tail, sq_tail_);
}

bool RingProducer::claim(const ozram_ring_cqe& cqe, ozram_ring_verdict& verdict) {
    verdict = ozram_ring_slots_claim(slots_.get(), &cqe);
    if (verdict == OZRAM_RING_BAD_SLOT) {
        ++unknown_slot_;
        return false;
    }
    if (verdict == OZRAM_RING_STALE) {
        ++stale_;
        return false;
    }
    return true;
}

void RingProducer::release(std::uint32_t slot) {
    ozram_ring_slots_put(slots_.get(), slot);
}

std::vector<std::uint64_t> RingProducer::take_back_all() {
    std::vector<std::uint64_t> taken;
    for (std::uint32_t slot = 0; slot < view_.header.slots; ++slot) {
        if (ozram_ring_slots_take_back(slots_.get(), slot, 0, 0) == OZRAM_RING_TAKEN_BACK) {
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

std::uint32_t RingProducer::in_flight() const {
    return slots_->nr - slots_->nr_free;
}

}  // namespace ozram::ring
