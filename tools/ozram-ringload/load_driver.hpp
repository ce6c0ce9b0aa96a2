// The producer side of a shared-memory ring, driven like the kernel would:
// pages into staging slots and the SQ as slots free up, every completion
// checked and its bytes verified.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>

#include "ozram/page.hpp"
#include "shm_ring.hpp"

namespace ozram::ringload {

// Where the producer's threads spent their time, summed over the threads:
// wall-clock seconds in each step of their loop, which together make up
// each thread's whole run.  Beside the producer's CPU time, it tells which
// step that time goes to, and how long threads wait on what they share.
struct ProducerTime {
    double checking = 0;   // copying completions out of their slots and walking them
    double staging = 0;    // copying pages into staging slots
    double locked = 0;     // inside the ring's lock: the slot rules and both queues
    double lock_wait = 0;  // waiting for the ring's lock
    double waking = 0;     // waking the agent after a submission
    double idle = 0;       // waiting for completions, with nothing to do
    std::uint64_t lock_takes = 0;
    std::uint64_t lock_waits = 0;  // takes that found the lock held
};

struct LoadReport {
    std::uint64_t pages = 0;       // completed by the agent and verified
    std::uint64_t bytes_in = 0;    // of those pages
    std::uint64_t bytes_out = 0;   // their stored sizes (a raw page's is a page)
    std::uint64_t mismatches = 0;  // accepted completions that do not restore the page
    std::uint64_t rejected = 0;    // malformed completions (ozram_ring_check_cqe)
    std::uint64_t stale = 0;       // completions for a generation no longer current
    std::uint64_t fallback = 0;    // given back with an error status, or taken back
    bool timed_out = false;        // the agent stopped answering
    double seconds = 0;            // the agent's first page taken to the last completion
    double cpu_seconds = 0;        // the producer's CPU time over those seconds, every thread
    ProducerTime time;             // the threads' whole runs, step by step

    [[nodiscard]] double ratio() const;
    [[nodiscard]] double gbps() const;
    [[nodiscard]] double pages_per_sec() const;
    [[nodiscard]] double cpu_us_per_page() const;          // the producer's CPU a verified page
    [[nodiscard]] double us_per_page(double total) const;  // `total` seconds, a verified page
    // Every page verified: an agent that gives pages back with an error
    // status has left them to the producer to compress.
    [[nodiscard]] bool clean() const {
        return mismatches == 0 && rejected == 0 && fallback == 0 && !timed_out;
    }
};

struct LoadPlan {
    std::uint64_t pages = 0;  // to submit, cycling through the corpus
    // With no completion for this long, take every slot back and give up.
    std::chrono::milliseconds agent_timeout{10'000};
    bool stop_agent = true;  // set STOPPING at the end, so that the agent detaches
    // Threads that stage pages and check completions, as the kernel's
    // writers and its doorbell do on their own CPUs; each takes its turns
    // at the ring's lock (load_driver.cpp).
    unsigned threads = 1;
};

// Feeds the pages of `corpus` (PAGE_SIZE bytes each) through the ring,
// round and round, until plan.pages pages are completed.
[[nodiscard]] LoadReport run_load(ring::ShmRingOwner& ring,
                                  std::span<const std::uint8_t* const> corpus,
                                  const LoadPlan& plan);

}  // namespace ozram::ringload
