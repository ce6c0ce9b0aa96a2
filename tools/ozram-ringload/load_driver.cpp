#include "load_driver.hpp"

#include <cstring>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "barrier.hpp"
#include "completion_check.hpp"
#include "cpu/thread_pool.hpp"
#include "ring_producer.hpp"

namespace ozram::ringload {
namespace {

using Clock = std::chrono::steady_clock;

// How long the producer sleeps waiting for completions before it refills.
constexpr std::chrono::microseconds COMPLETION_WAIT{1000};
// Pages a thread copies or checks at a time.
constexpr std::size_t GRAIN = 64;

struct Reaped {
    ozram_ring_cqe cqe;
    ozram_ring_verdict verdict;
    std::uint64_t cookie;
};

// What the threads found, each in its own entry, summed at the end.
struct Tally {
    std::uint64_t finished = 0;
    std::uint64_t pages = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t rejected = 0;
    std::uint64_t fallback = 0;
};

}  // namespace

double LoadReport::ratio() const {
    return bytes_out == 0 ? std::numeric_limits<double>::infinity()
                          : static_cast<double>(bytes_in) / static_cast<double>(bytes_out);
}
double LoadReport::gbps() const {
    return seconds > 0 ? static_cast<double>(bytes_in) / seconds / 1e9 : 0;
}
double LoadReport::pages_per_sec() const {
    return seconds > 0 ? static_cast<double>(pages) / seconds : 0;
}

LoadReport run_load(ring::ShmRingOwner& ring, std::span<const Page> corpus, const LoadPlan& plan) {
    ring::RingProducer producer(ring.view());
    ThreadPool pool(plan.threads);
    std::vector<CompletionCheck> checks(pool.participants());
    std::vector<Tally> tallies(pool.participants());
    std::vector<std::pair<std::uint8_t*, const Page*>> copies;
    std::vector<Reaped> reaped;
    copies.reserve(ring.view().header.slots);
    reaped.reserve(ring.view().header.cq_entries);
    LoadReport report;
    std::uint64_t submitted = 0;
    std::uint64_t finished = 0;
    // The clock starts when an agent is there to answer.
    const auto attach_deadline = Clock::now() + plan.agent_timeout;
    while (ring.agent_pid() == 0) {
        if (Clock::now() > attach_deadline) {
            report.timed_out = true;
            return report;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The clock starts when the agent takes its first page: what it does
    // between attaching and taking work (registering the ring's memory
    // with a GPU driver, say) is set-up, not throughput.
    std::optional<Clock::time_point> start;
    const auto note_start = [&] {
        if (!start && ring::load_acquire(ring.view().ctrl->sq_head) != 0)
            start = Clock::now();
    };
    auto last_progress = Clock::now();

    while (finished < plan.pages) {
        // A round: slots for every page that fits, the pages copied into
        // them by the threads, then one publish.
        copies.clear();
        while (submitted < plan.pages && producer.can_stage()) {
            const std::uint32_t slot = producer.reserve(0, submitted);
            copies.emplace_back(ring.view().staging_slot(slot), &corpus[submitted % corpus.size()]);
            ++submitted;
        }
        if (!copies.empty()) {
            pool.parallel_for(
                copies.size(), GRAIN, [&](std::size_t begin, std::size_t end, unsigned) {
                    for (std::size_t i = begin; i < end; ++i)
                        std::memcpy(copies[i].first, copies[i].second->data(), PAGE_SIZE);
                });
            producer.publish();
            ring.notify_work();
        }
        note_start();
        // The completions: claimed by the slot rules, then checked by the
        // threads.  Their output slots hold the bytes until the next round
        // stages into them.
        reaped.clear();
        producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                reaped.push_back({cqe, verdict, cookie});
            });
        if (!reaped.empty()) {
            pool.parallel_for(
                reaped.size(), GRAIN, [&](std::size_t begin, std::size_t end, unsigned thread) {
                    Tally& tally = tallies[thread];
                    for (std::size_t i = begin; i < end; ++i) {
                        const Reaped& r = reaped[i];
                        ++tally.finished;
                        const Page& original = corpus[r.cookie % corpus.size()];
                        if (r.verdict != OZRAM_RING_OK) {
                            ++tally.rejected;
                        } else if (r.cqe.status != OZRAM_RING_STATUS_OK) {
                            ++tally.fallback;
                        } else if (!checks[thread].restores(r.cqe,
                                                            ring.view().output_slot(r.cqe.slot),
                                                            original.data())) {
                            ++tally.mismatches;
                        } else {
                            ++tally.pages;
                            tally.bytes_out += r.cqe.length;
                        }
                    }
                });
            finished += reaped.size();
            last_progress = Clock::now();
            continue;
        }
        if (Clock::now() - last_progress > plan.agent_timeout) {
            // What the kernel does when its agent hangs: take the slots back.
            const auto taken = producer.take_back_all();
            report.fallback += taken.size();
            report.timed_out = true;
            break;
        }
        ring.wait_for_completions(COMPLETION_WAIT);
        note_start();
    }
    report.seconds = start ? std::chrono::duration<double>(Clock::now() - *start).count() : 0.0;
    for (const Tally& tally : tallies) {
        report.pages += tally.pages;
        report.bytes_in += tally.pages * PAGE_SIZE;
        report.bytes_out += tally.bytes_out;
        report.mismatches += tally.mismatches;
        report.rejected += tally.rejected;
        report.fallback += tally.fallback;
    }
    report.stale = producer.stale();
    report.rejected += producer.unknown_slot();
    if (plan.stop_agent) {
        producer.set_stopping();
        ring.notify_work();
    }
    return report;
}

}  // namespace ozram::ringload
