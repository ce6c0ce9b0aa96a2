#include "load_driver.hpp"

#include <limits>
#include <thread>

#include "completion_check.hpp"
#include "ring_producer.hpp"

namespace ozram::ringload {
namespace {

using Clock = std::chrono::steady_clock;

// How long the producer sleeps waiting for completions before it refills.
constexpr std::chrono::microseconds COMPLETION_WAIT{1000};

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
    CompletionCheck check;
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
    const auto start = Clock::now();
    auto last_progress = start;

    const auto on_completion = [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict,
                                   std::uint64_t cookie) {
        ++finished;
        const Page& original = corpus[cookie % corpus.size()];
        if (verdict != OZRAM_RING_OK) {
            ++report.rejected;
        } else if (cqe.status != OZRAM_RING_STATUS_OK) {
            ++report.fallback;
        } else if (!check.restores(cqe, ring.view().output_slot(cqe.slot), original.data())) {
            ++report.mismatches;
        } else {
            ++report.pages;
            report.bytes_in += PAGE_SIZE;
            report.bytes_out += cqe.length;
        }
    };

    while (finished < plan.pages) {
        std::uint32_t staged = 0;
        while (submitted < plan.pages && producer.can_stage()) {
            producer.stage(corpus[submitted % corpus.size()].data(), 0, submitted);
            ++submitted;
            ++staged;
        }
        if (staged > 0) {
            producer.publish();
            ring.notify_work();
        }
        if (producer.reap(on_completion) > 0) {
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
    }
    report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    report.stale = producer.stale();
    report.rejected += producer.unknown_slot();
    if (plan.stop_agent) {
        producer.set_stopping();
        ring.notify_work();
    }
    return report;
}

}  // namespace ozram::ringload
