// The producer's side of the two queues over any RingView: staging,
// submission and the checked reaping of completions.  The rules about slots
// (which is free, the generation a completion must carry, which completion
// may claim a slot) are the kernel's own, from kmod/ozram_ring_slots.c,
// compiled in here unchanged.  Used by ozram-ringload and the tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ring_view.hpp"

struct ozram_ring_slots;

namespace ozram::ring {

class RingProducer {
  public:
    explicit RingProducer(const RingView& view);
    ~RingProducer();
    RingProducer(const RingProducer&) = delete;
    RingProducer& operator=(const RingProducer&) = delete;

    // Whether take() (or stage()) can take a page: a free slot and room in
    // the SQ for it beside the slots taken and not yet submitted.
    [[nodiscard]] bool can_stage() const;
    // Copies a page into a free staging slot and writes its SQ entry, not yet
    // visible to the agent (see publish()).  `cookie` comes back with its
    // completion.  Returns the slot.
    std::uint32_t stage(const std::uint8_t* page, std::uint32_t device_id, std::uint64_t cookie,
                        ozram_ring_algorithm algorithm = OZRAM_RING_ALG_LZ4);

    // stage() in two steps, as the kernel's writers stage: take() claims a
    // free slot; the caller fills view().staging_slot(slot), with no lock
    // held, several threads at once; submit() then writes its SQ entry.
    // Pages taken together may be submitted in any order.
    struct Taken {
        std::uint32_t slot;
        std::uint32_t generation;
        ozram_ring_algorithm algorithm;
    };
    Taken take(std::uint64_t cookie, ozram_ring_algorithm algorithm = OZRAM_RING_ALG_LZ4);
    void submit(const Taken& taken, std::uint32_t device_id);
    // Makes the submitted entries visible (store-release of sq_tail).
    void publish();

    // Reaps every completion posted so far.  For each completion that claims
    // a slot in flight (its current generation), calls
    //   on_completion(const ozram_ring_cqe&, ozram_ring_verdict, std::uint64_t cookie)
    // and frees the slot: with OZRAM_RING_OK the output slot holds the bytes
    // (copy them out before the next stage()); any other verdict is a
    // malformed completion the caller must not use (it compresses the page
    // itself).  Stale completions and those naming no slot are counted and
    // dropped.  Returns the number of completions read.
    template <typename OnCompletion>
    std::uint32_t reap(OnCompletion&& on_completion);
    // reap() of at most `limit` completions that keeps each claimed slot:
    // its output slot stays the caller's to read, with no lock held, until
    // the caller gives the slot back with release().
    template <typename OnCompletion>
    std::uint32_t reap_held(std::uint32_t limit, OnCompletion&& on_completion);
    void release(std::uint32_t slot);

    // Takes back every slot in flight (the agent timed out or left) and
    // returns their cookies; completions that arrive for them later are stale.
    std::vector<std::uint64_t> take_back_all();

    // Tells the agent that no more work will come.
    void set_stopping();

    [[nodiscard]] std::uint32_t in_flight() const;
    [[nodiscard]] std::uint64_t stale() const { return stale_; }
    [[nodiscard]] std::uint64_t unknown_slot() const { return unknown_slot_; }
    [[nodiscard]] const RingView& view() const { return view_; }

  private:
    // The slot rules' verdict on one completion (a private copy); counts and
    // drops the stale ones and those naming no slot (returns false).
    bool claim(const ozram_ring_cqe& cqe, ozram_ring_verdict& verdict);

    RingView view_;
    std::uint32_t sq_tail_;
    std::uint32_t cq_head_;
    std::uint32_t taken_unsubmitted_ = 0;
    // The storage of the slot rules' state, and the state itself.
    std::vector<std::uint32_t> free_stack_;
    std::vector<std::uint32_t> generations_;
    std::vector<std::uint8_t> states_;
    std::vector<std::uint8_t> algorithms_;
    std::vector<unsigned long> posted_;
    std::unique_ptr<ozram_ring_slots> slots_;
    std::vector<std::uint64_t> cookies_;
    std::uint64_t stale_ = 0;
    std::uint64_t unknown_slot_ = 0;
};

template <typename OnCompletion>
std::uint32_t RingProducer::reap_held(std::uint32_t limit, OnCompletion&& on_completion) {
    const std::uint32_t tail = load_acquire(view_.ctrl->cq_tail);
    std::uint32_t reaped = 0;
    while (cq_head_ != tail && reaped < view_.header.cq_entries && reaped < limit) {
        ozram_ring_cqe cqe;
        std::memcpy(&cqe, &view_.cq[cq_head_ & (view_.header.cq_entries - 1)], sizeof(cqe));
        ++cq_head_;
        ++reaped;
        ozram_ring_verdict verdict;
        if (claim(cqe, verdict)) {
            on_completion(cqe, verdict, cookies_[cqe.slot]);
        }
    }
    store_release(view_.ctrl->cq_head, cq_head_);
    return reaped;
}

template <typename OnCompletion>
std::uint32_t RingProducer::reap(OnCompletion&& on_completion) {
    return reap_held(
        view_.header.cq_entries,
        [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
            on_completion(cqe, verdict, cookie);
            release(cqe.slot);
        });
}

}  // namespace ozram::ring
