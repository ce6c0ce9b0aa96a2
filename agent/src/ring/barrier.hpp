// Every access of the agent and of the userspace producer to memory shared
// with another process, and all the memory ordering of the ring on this
// side, as liburing keeps its own in barrier.h.  The kernel's side of each
// pairing is in kmod/ozram_ring_mapping.h.
//
// The words are plain 32-bit fields of the ABI; they are accessed through
// std::atomic_ref, never as std::atomic objects, so that the layout stays
// the C one.
#pragma once

#include <atomic>
#include <cstdint>

#include "ozram_ring.h"

namespace ozram::ring {
namespace detail {

inline std::atomic_ref<std::uint32_t> shared(const std::uint32_t& word) {
    return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(word));
}

}  // namespace detail

// ---- the queues (ABI) -----------------------------------------------------

// A queue's tail, and the entries (and page slots) written before it.  On the
// agent: sq_tail pairs with the producer's release in ozram_ring_publish_sq_tail()
// and RingProducer::publish().  On the userspace producer: cq_tail pairs with
// AgentQueues::publish().
[[nodiscard]] inline std::uint32_t load_acquire(const ozram_ring_index& index) {
    return detail::shared(index.value).load(std::memory_order_acquire);
}

// Publishes the entries written before a new tail, or hands back the entries
// read before a new head.  Pairs with load_acquire() of the same index on the
// other side; the kernel reads sq_head once and writes an SQ entry only when
// that read found room (a control dependency), and acquires cq_tail in
// ozram_ring_acquire_cq_tail().
inline void store_release(ozram_ring_index& index, std::uint32_t value) {
    detail::shared(index.value).store(value, std::memory_order_release);
}

// ---- the userspace ring's side area (not ABI) -----------------------------

// The header's magic, written last by ShmRingOwner::create() and read first
// by ShmRing::attach(): a non-zero magic means the whole header is there.
inline void publish_magic(std::uint32_t& magic, std::uint32_t value) {
    detail::shared(magic).store(value, std::memory_order_release);
}
[[nodiscard]] inline std::uint32_t acquire_magic(const std::uint32_t& magic) {
    return detail::shared(magic).load(std::memory_order_acquire);
}

// A side that is about to sleep raises its `waiting` flag, then re-checks the
// queue; the other side publishes its index, then reads the flag and posts
// only if it is raised.  The two full fences pair with each other, so either
// the sleeper sees the new index or the publisher sees the flag: no wake-up
// is lost.
inline void announce_sleep(std::uint32_t& waiting) {
    detail::shared(waiting).store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void end_sleep(std::uint32_t& waiting) {
    detail::shared(waiting).store(0, std::memory_order_relaxed);
}
[[nodiscard]] inline bool sleeper_waiting(const std::uint32_t& waiting) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return detail::shared(waiting).load(std::memory_order_relaxed) != 0;
}

// The pid of the attached agent, claimed with a compare-and-swap and cleared
// on detach.  Acquire and release pair with each other, so an agent that
// takes a ring over sees what the last one wrote before it let go.
[[nodiscard]] inline std::uint32_t load_owner(const std::uint32_t& pid) {
    return detail::shared(pid).load(std::memory_order_acquire);
}
[[nodiscard]] inline bool claim_owner(std::uint32_t& pid, std::uint32_t& expected,
                                      std::uint32_t me) {
    return detail::shared(pid).compare_exchange_weak(expected, me, std::memory_order_acq_rel);
}
inline void release_owner(std::uint32_t& pid) {
    detail::shared(pid).store(0, std::memory_order_release);
}

// A statistic of the side area: no ordering.
inline void count(std::uint32_t& counter) {
    detail::shared(counter).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ozram::ring
