// The userspace ring: the kernel ABI layout in a POSIX shared-memory segment,
// plus a side area (after mapping_size, outside the ABI) that holds the
// interprocess doorbells the kernel would provide with poll() and ioctl().
#pragma once

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <boost/interprocess/sync/interprocess_semaphore.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ring_transport.hpp"
#include "ring_view.hpp"

namespace ozram::ring {

// Semaphores rather than a mutex and conditions: a process killed at any
// point cannot leave a semaphore held, so neither side can hang the other.
// A side that is about to sleep raises its `waiting` flag and re-checks the
// queue; the other side posts only when it sees the flag (with a full fence
// on both sides between the index and the flag, so no wake-up is lost).
struct ShmSideArea {
    boost::interprocess::interprocess_semaphore work{0};  // SQ entries posted, or stopping
    boost::interprocess::interprocess_semaphore done{0};  // CQ entries posted, or agent left
    std::uint32_t agent_waiting = 0;                      // the agent sleeps on `work`
    std::uint32_t producer_waiting = 0;                   // the producer sleeps on `done`
    std::uint32_t agent_pid = 0;                          // 0: no agent attached
    std::uint32_t attach_count = 0;
};

// The shared-memory name as Boost.Interprocess wants it: no leading '/'.
[[nodiscard]] std::string shm_object_name(const std::string& name);

// The producer's end: creates (replacing a leftover one) and removes the segment.
class ShmRingOwner {
  public:
    struct Geometry {
        std::uint32_t slots = 256;
        std::uint32_t entries = 0;  // 0: slots rounded up to a power of two
        std::uint32_t huge_threshold = 3072;
        std::uint32_t first_index = 0;  // start of the free-running indices
    };

    // Throws Error(EINVAL) on a bad geometry, Error(errno) when the segment
    // cannot be created.
    [[nodiscard]] static std::unique_ptr<ShmRingOwner> create(const std::string& name,
                                                              const Geometry& geometry);
    ~ShmRingOwner();
    ShmRingOwner(const ShmRingOwner&) = delete;
    ShmRingOwner& operator=(const ShmRingOwner&) = delete;

    [[nodiscard]] const RingView& view() const { return view_; }
    // The header in the segment, for tests that corrupt it before attaching.
    [[nodiscard]] ozram_ring_header& shared_header();

    // Wakes the agent after RingProducer::publish() or set_stopping().
    void notify_work();
    // Sleeps until the CQ holds entries, the agent detaches, or `timeout`.
    void wait_for_completions(std::chrono::microseconds timeout);
    // The pid of the attached agent, 0 when none.
    [[nodiscard]] std::uint32_t agent_pid();

  private:
    ShmRingOwner() = default;

    std::string name_;
    boost::interprocess::mapped_region region_;
    ShmSideArea* side_ = nullptr;
    RingView view_;
};

// The agent's end.
class ShmRing final : public RingTransport {
  public:
    // Throws Error(ENOENT) when there is no segment, Error(EAGAIN) when its
    // producer has not finished writing the header, Error(EBUSY) when another
    // live agent is attached, AbiVersionError or Error(EBADMSG) when the
    // header is unusable.
    [[nodiscard]] static std::unique_ptr<ShmRing> attach(const std::string& name);
    ~ShmRing() override;

    [[nodiscard]] const RingView& view() const override { return view_; }
    Wake wait_for_work(std::chrono::microseconds timeout) override;
    void notify_completions() override;
    void detach() override;
    [[nodiscard]] std::string describe() const override { return "shm:" + name_; }

  private:
    ShmRing() = default;

    std::string name_;
    boost::interprocess::mapped_region writable_;
    boost::interprocess::mapped_region staging_;
    boost::interprocess::mapped_region side_region_;
    ShmSideArea* side_ = nullptr;
    RingView view_;
    bool attached_ = false;
};

}  // namespace ozram::ring
