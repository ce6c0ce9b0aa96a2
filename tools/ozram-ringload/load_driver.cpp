#include "load_driver.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "barrier.hpp"
#include "completion_check.hpp"
#include "ring_producer.hpp"

namespace ozram::ringload {
namespace {

using Clock = std::chrono::steady_clock;

// How long an idle thread sleeps waiting for completions.
constexpr std::chrono::microseconds COMPLETION_WAIT{1000};
// Pages a thread takes, copies, reaps or checks at a time, between two
// holds of the ring's lock.
constexpr std::uint32_t GRAIN = 64;

struct Held {
    ozram_ring_cqe cqe;
    ozram_ring_verdict verdict;
    std::uint64_t cookie;
};

// What one thread found and where its time went, summed at the end; on its
// own cache lines.
struct alignas(64) Tally {
    std::uint64_t pages = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t rejected = 0;
    std::uint64_t fallback = 0;
    struct {
        Clock::duration checking{}, staging{}, locked{}, lock_wait{}, waking{}, idle{};
    } time;
    std::uint64_t lock_takes = 0;
    std::uint64_t lock_waits = 0;
};

// A thread's clock: each lap adds the time since the last one to a step, so
// that the steps add up to the thread's whole run.
class Laps {
  public:
    void lap(Clock::duration& step) {
        const Clock::time_point now = Clock::now();
        step += now - last_;
        last_ = now;
    }

  private:
    Clock::time_point last_ = Clock::now();
};

double process_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The producer's threads and what they share.  Each thread runs the same
// loop, as the kernel's writers and its doorbell would on their CPUs: under
// the ring's lock it reaps completions, holding their slots, and takes free
// slots; without the lock it checks the completions and copies pages into
// the slots; under the lock again it frees the checked slots and submits
// and publishes the copied pages.  No thread waits for another's round, so
// the agent always has pages coming while completions are checked.
class Pipeline {
  public:
    Pipeline(ring::ShmRingOwner& ring, std::span<const std::uint8_t* const> corpus,
             const LoadPlan& plan)
        : ring_(ring),
          corpus_(corpus),
          plan_(plan),
          producer_(ring.view()),
          last_progress_(Clock::now()) {}

    void run_thread(Tally& tally, CompletionCheck& check);

    [[nodiscard]] ring::RingProducer& producer() { return producer_; }
    [[nodiscard]] bool timed_out() const { return timed_out_; }
    [[nodiscard]] const std::optional<Clock::time_point>& start() const { return start_; }
    [[nodiscard]] double start_cpu() const { return start_cpu_; }
    [[nodiscard]] std::uint64_t taken_back() const { return taken_back_; }

  private:
    // Under lock_: whether every page is done, or the run has given up.
    [[nodiscard]] bool over() const { return finished_ >= plan_.pages || timed_out_; }
    void note_start();
    void check(const Held& held, Tally& tally, CompletionCheck& check) const;
    [[nodiscard]] std::unique_lock<std::mutex> take_lock(Tally& tally, Laps& laps);
    void idle();

    ring::ShmRingOwner& ring_;
    std::span<const std::uint8_t* const> corpus_;
    const LoadPlan& plan_;
    std::mutex lock_;  // the ring's lock: the slot rules and both queues
    ring::RingProducer producer_;
    std::uint64_t submitted_ = 0;  // pages taken for staging so far
    std::uint64_t finished_ = 0;   // completions checked, and slots freed
    Clock::time_point last_progress_;
    std::optional<Clock::time_point> start_;
    double start_cpu_ = 0;
    bool timed_out_ = false;
    std::uint64_t taken_back_ = 0;
    // One idle thread sleeps on the ring's wake-up; the others on this.
    std::mutex sleeper_;
    std::mutex idle_lock_;
    std::condition_variable idle_;
};

void Pipeline::note_start() {
    // The clock starts when the agent takes its first page: what it does
    // between attaching and taking work (registering the ring's memory
    // with a GPU driver, say) is set-up, not throughput.
    if (!start_ && ring::load_acquire(ring_.view().ctrl->sq_head) != 0) {
        start_ = Clock::now();
        start_cpu_ = process_cpu_seconds();
    }
}

void Pipeline::check(const Held& held, Tally& tally, CompletionCheck& checker) const {
    const std::uint8_t* original = corpus_[held.cookie % corpus_.size()];
    if (held.verdict != OZRAM_RING_OK) {
        ++tally.rejected;
    } else if (held.cqe.status != OZRAM_RING_STATUS_OK) {
        ++tally.fallback;
    } else if (!checker.restores(held.cqe, ring_.view().output_slot(held.cqe.slot), original)) {
        ++tally.mismatches;
    } else {
        ++tally.pages;
        // What the producer stores: a raw page is its staged copy, with no
        // bytes in the output slot (ABI 1.4).
        tally.bytes_out += held.cqe.encoding == OZRAM_RING_ENC_RAW ? PAGE_SIZE : held.cqe.length;
    }
}

// The ring's lock, counting the takes that find it held and the time spent
// waiting for it.
std::unique_lock<std::mutex> Pipeline::take_lock(Tally& tally, Laps& laps) {
    std::unique_lock<std::mutex> guard(lock_, std::try_to_lock);
    ++tally.lock_takes;
    if (!guard.owns_lock()) {
        ++tally.lock_waits;
        guard.lock();
    }
    laps.lap(tally.time.lock_wait);
    return guard;
}

void Pipeline::idle() {
    std::unique_lock<std::mutex> sleeper(sleeper_, std::try_to_lock);
    if (sleeper.owns_lock()) {
        ring_.wait_for_completions(COMPLETION_WAIT);
        idle_.notify_all();
        return;
    }
    std::unique_lock<std::mutex> idle(idle_lock_);
    idle_.wait_for(idle, COMPLETION_WAIT);
}

void Pipeline::run_thread(Tally& tally, CompletionCheck& checker) {
    std::vector<Held> held;
    std::vector<std::pair<ring::RingProducer::Taken, const std::uint8_t*>> taken;
    held.reserve(GRAIN);
    taken.reserve(GRAIN);
    Laps laps;
    for (;;) {
        held.clear();
        taken.clear();
        {
            const auto guard = take_lock(tally, laps);
            if (over()) {
                return;
            }
            producer_.reap_held(GRAIN, [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict,
                                           std::uint64_t cookie) {
                held.push_back({cqe, verdict, cookie});
            });
            while (taken.size() < GRAIN && submitted_ < plan_.pages && producer_.can_stage()) {
                taken.emplace_back(producer_.take(submitted_),
                                   corpus_[submitted_ % corpus_.size()]);
                ++submitted_;
            }
            note_start();
            if (held.empty() && taken.empty()) {
                if (Clock::now() - last_progress_ > plan_.agent_timeout) {
                    // What the kernel does when its agent hangs: take the
                    // slots back.
                    taken_back_ += producer_.take_back_all().size();
                    timed_out_ = true;
                    return;
                }
            }
            laps.lap(tally.time.locked);
        }
        if (held.empty() && taken.empty()) {
            idle();
            laps.lap(tally.time.idle);
            continue;
        }
        for (const Held& completion : held) {
            check(completion, tally, checker);
        }
        laps.lap(tally.time.checking);
        for (const auto& [slot, page] : taken) {
            std::memcpy(ring_.view().staging_slot(slot.slot), page, PAGE_SIZE);
        }
        laps.lap(tally.time.staging);
        {
            const auto guard = take_lock(tally, laps);
            for (const Held& completion : held) {
                producer_.release(completion.cqe.slot);
            }
            finished_ += held.size();
            if (!held.empty()) {
                last_progress_ = Clock::now();
            }
            for (const auto& [slot, page] : taken) {
                producer_.submit(slot, 0);
            }
            if (!taken.empty()) {
                producer_.publish();
            }
            laps.lap(tally.time.locked);
        }
        if (!taken.empty()) {
            ring_.notify_work();
            laps.lap(tally.time.waking);
        }
    }
}

double seconds(Clock::duration duration) {
    return std::chrono::duration<double>(duration).count();
}

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
double LoadReport::cpu_us_per_page() const {
    return us_per_page(cpu_seconds);
}
double LoadReport::us_per_page(double total) const {
    return pages > 0 ? total / static_cast<double>(pages) * 1e6 : 0;
}

LoadReport run_load(ring::ShmRingOwner& ring, std::span<const std::uint8_t* const> corpus,
                    const LoadPlan& plan) {
    LoadReport report;
    // The clock starts when an agent is there to answer.
    const auto attach_deadline = Clock::now() + plan.agent_timeout;
    while (ring.agent_pid() == 0) {
        if (Clock::now() > attach_deadline) {
            report.timed_out = true;
            return report;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Pipeline pipeline(ring, corpus, plan);
    const unsigned threads = std::max(1U, plan.threads);
    std::vector<Tally> tallies(threads);
    std::vector<CompletionCheck> checks(threads);
    {
        std::vector<std::jthread> workers;
        workers.reserve(threads - 1);
        for (unsigned t = 1; t < threads; ++t) {
            workers.emplace_back([&, t] { pipeline.run_thread(tallies[t], checks[t]); });
        }
        pipeline.run_thread(tallies[0], checks[0]);
    }
    if (pipeline.start()) {
        report.seconds = std::chrono::duration<double>(Clock::now() - *pipeline.start()).count();
        report.cpu_seconds = process_cpu_seconds() - pipeline.start_cpu();
    }
    report.timed_out = pipeline.timed_out();
    report.fallback = pipeline.taken_back();
    for (const Tally& tally : tallies) {
        report.pages += tally.pages;
        report.bytes_in += tally.pages * PAGE_SIZE;
        report.bytes_out += tally.bytes_out;
        report.mismatches += tally.mismatches;
        report.rejected += tally.rejected;
        report.fallback += tally.fallback;
        report.time.checking += seconds(tally.time.checking);
        report.time.staging += seconds(tally.time.staging);
        report.time.locked += seconds(tally.time.locked);
        report.time.lock_wait += seconds(tally.time.lock_wait);
        report.time.waking += seconds(tally.time.waking);
        report.time.idle += seconds(tally.time.idle);
        report.time.lock_takes += tally.lock_takes;
        report.time.lock_waits += tally.lock_waits;
    }
    report.stale = pipeline.producer().stale();
    report.rejected += pipeline.producer().unknown_slot();
    if (plan.stop_agent) {
        pipeline.producer().set_stopping();
        ring.notify_work();
    }
    return report;
}

}  // namespace ozram::ringload
