// The shared-memory ring's wake-up for work (ShmRing::wait_for_work()): it
// wakes for what AgentQueues::pending() counts as work, and a corrupt SQ
// tail, which counts as none, lets it sleep rather than spin.  And a
// segment that cannot be made is an error, not a crash.
#include "shm_ring.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "ozram/error.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::ring::ShmRing;
using ozram::ring::ShmRingOwner;
using ozram::ring::Wake;

struct Attached {
    std::unique_ptr<ShmRingOwner> owner;
    std::unique_ptr<ShmRing> agent;
};

Attached attach(const char* what) {
    const std::string name = std::string("ozram-test-") + what + "-" + std::to_string(::getpid());
    ShmRingOwner::Geometry geometry;
    geometry.slots = 8;
    Attached ring{ShmRingOwner::create(name, geometry), nullptr};
    ring.agent = ShmRing::attach(name);
    return ring;
}

TEST(ShmRing, WakesForWorkAndSleepsOnACorruptTail) {
    const Attached ring = attach("wake");
    auto& ctrl = *ring.owner->view().ctrl;
    const std::uint32_t head = ctrl.sq_head.value;
    const std::uint32_t entries = ring.owner->view().header.sq_entries;

    EXPECT_EQ(ring.agent->wait_for_work(1ms), Wake::TimedOut) << "an empty SQ";
    ctrl.sq_tail.value = head + 1;
    EXPECT_EQ(ring.agent->wait_for_work(1ms), Wake::Ready);
    ctrl.sq_tail.value = head + entries;
    EXPECT_EQ(ring.agent->wait_for_work(1ms), Wake::Ready) << "a full SQ";

    for (const std::uint32_t corrupt : {head + entries + 1, head - 1, head + 0x80000000U}) {
        ctrl.sq_tail.value = corrupt;
        EXPECT_EQ(ring.agent->wait_for_work(1ms), Wake::TimedOut) << corrupt;
    }
}

// A segment that cannot be made (a name with a slash) is an error to
// report, not a crash on the way out of create().
TEST(ShmRing, ASegmentThatCannotBeMadeIsAnError) {
    ShmRingOwner::Geometry geometry;
    geometry.slots = 8;
    try {
        (void)ShmRingOwner::create("ozram-test/no-such-dir", geometry);
        FAIL() << "a shared memory segment named with a slash was made";
    } catch (const ozram::Error& error) {
        EXPECT_NE(std::string(error.what()).find("cannot create shared memory"), std::string::npos)
            << error.what();
    }
}

}  // namespace
