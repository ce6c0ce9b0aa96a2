// The drain loop with batches in flight, against a scripted backend whose
// batches finish fast, slowly, out of order, fail or are killed: every page
// gets exactly one completion, no more batches are in flight than the bound,
// a failed or killed batch is redone on the CPU without losing a page,
// answers to slots the producer took back meanwhile are stale to it, no two
// batches in flight write one output slot, and a loop let go with batches
// in flight waits for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "agent_queues.hpp"
#include "completion_check.hpp"
#include "compressor_set.hpp"
#include "drain_loop.hpp"
#include "heap_ring.hpp"
#include "ozram/error.hpp"
#include "ring_producer.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::daemon::DrainLoop;
using ozram::daemon::Step;
using ozram::ring::RingProducer;
using ozram::ring::test::HeapRing;
using ozram::ring::test::mixed_pages;

// What the script makes of a batch.
enum class Fate {
    Fast,    // done at the first poll
    Slow,    // done after many polls
    Fail,    // complete() throws, as a GPU batch the device failed
    Kill,    // complete() throws ECANCELED, as a batch whose stream was killed
    Refuse,  // submit() throws, as a batch the device could not take
};

// A backend whose batches in flight finish as the script says, their pages
// compressed by liblz4 on complete() (scalar), posing as the GPU.
class ScriptedBackend final : public ozram::daemon::CompressorPicker, public ozram::PageCompressor {
  public:
    ScriptedBackend(std::vector<Fate> script, std::size_t bound)
        : script_(std::move(script)), bound_(bound) {}

    ozram::PageCompressor& pick(std::size_t) override { return *this; }
    ozram::Backend backend() const override { return ozram::Backend::Gpu; }
    void compress(std::span<const std::uint8_t* const> pages, ozram::BatchResult& out) override {
        scalar_->compress(pages, out);
    }
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, ozram::BatchResult& out) override {
        scalar_->compress_into(pages, outputs, out);
    }
    void decompress(const ozram::BatchResult&, std::span<std::uint8_t* const>) override {}

    Ticket submit(std::span<const std::uint8_t* const> pages,
                  std::span<std::uint8_t* const> outputs, ozram::BatchResult& out) override {
        if (batches_.size() >= bound_)
            throw ozram::Error(EBUSY, "the scripted backend is full");
        const Fate fate = script_[submitted_ % script_.size()];
        ++submitted_;
        if (fate == Fate::Refuse)
            throw ozram::Error(EIO, "the device could not take the batch");
        // The output slots this batch writes, against its own and those of
        // every batch in flight.
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            shared_outputs_ += std::count(outputs.begin(), outputs.begin() + i, outputs[i]);
            for (const auto& [ticket, batch] : batches_)
                shared_outputs_ += std::ranges::count(batch.outputs, outputs[i]);
        }
        batches_[next_] = {fate, pages, outputs, &out, fate == Fate::Slow ? 25 : 0};
        most_in_flight_ = std::max(most_in_flight_, batches_.size());
        return next_++;
    }
    bool poll(Ticket ticket) override {
        Batch& batch = batches_.at(ticket);
        return batch.polls_left == 0 || --batch.polls_left == 0;
    }
    void complete(Ticket ticket) override {
        const Batch batch = batches_.at(ticket);
        batches_.erase(ticket);
        ++completed_;
        if (batch.fate == Fate::Fail)
            throw ozram::Error(EIO, "the device failed the batch");
        if (batch.fate == Fate::Kill)
            throw ozram::Error(ECANCELED, "the batch's stream was killed");
        scalar_->compress_into(batch.pages, batch.outputs, *batch.out);
        batch.out->backend = ozram::Backend::Gpu;
    }
    std::size_t max_in_flight() const override { return bound_; }
    std::size_t max_batch_pages() const override { return 8; }

    [[nodiscard]] std::size_t most_in_flight() const { return most_in_flight_; }
    [[nodiscard]] std::size_t submitted() const { return submitted_; }
    [[nodiscard]] std::size_t completed() const { return completed_; }
    // Output slots that a batch was given while another batch in flight, or
    // another page of its own, would write them too.
    [[nodiscard]] std::size_t shared_outputs() const { return shared_outputs_; }

  private:
    struct Batch {
        Fate fate;
        std::span<const std::uint8_t* const> pages;
        std::span<std::uint8_t* const> outputs;
        ozram::BatchResult* out;
        int polls_left;
    };
    std::vector<Fate> script_;
    std::size_t bound_;
    std::map<Ticket, Batch> batches_;
    Ticket next_ = 1;
    std::size_t submitted_ = 0;
    std::size_t completed_ = 0;
    std::size_t most_in_flight_ = 0;
    std::size_t shared_outputs_ = 0;
    std::unique_ptr<ozram::PageCompressor> scalar_ =
        ozram::make_cpu_compressor(ozram::Backend::Scalar);
};

// SQ entries the agent has not taken yet.
std::uint32_t ring_pending(HeapRing& ring) {
    return ozram::ring::AgentQueues(ring.view()).pending();
}

// Stages pages [begin, end), each with its index as cookie, and publishes.
void stage_pages(RingProducer& producer, const std::vector<ozram::Page>& pages, std::uint64_t begin,
                 std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i)
        producer.stage(pages[i].data(), 0, i);
    producer.publish();
}

// What a producer reaps of `pages` staged with their index as cookie: the
// completions each page got, and how many restore their page.
class Reaper {
  public:
    Reaper(HeapRing& ring, RingProducer& producer, const std::vector<ozram::Page>& pages)
        : ring_(ring), producer_(producer), pages_(pages) {}

    void reap() {
        producer_.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                ++answered[cookie];
                right +=
                    verdict == OZRAM_RING_OK && cqe.status == OZRAM_RING_STATUS_OK &&
                    check_.restores(cqe, ring_.view().output_slot(cqe.slot), pages_[cookie].data());
            });
    }
    // Steps the loop, reaping after each step, until nothing is in flight
    // or waiting in the SQ.
    void drain(DrainLoop& loop) {
        for (int steps = 0; steps < 100 && loop.batches_in_flight() + ring_pending(ring_) > 0;
             ++steps) {
            loop.step(0us);
            reap();
        }
        reap();
    }

    // Every page but those of cookies [gone, gone_end), taken back, was
    // answered once, and right: `count` of them.
    void expect_each_answered_once(std::uint64_t gone, std::uint64_t gone_end,
                                   std::size_t count) const {
        EXPECT_EQ(answered.size(), count);
        for (const auto& [cookie, times] : answered) {
            EXPECT_TRUE(cookie < gone || cookie >= gone_end)
                << "page " << cookie << " was taken back";
            EXPECT_EQ(times, 1) << "page " << cookie;
        }
        EXPECT_EQ(right, count);
    }

    std::map<std::uint64_t, int> answered;  // completions per page
    std::uint64_t right = 0;                // accepted and restoring their page

  private:
    HeapRing& ring_;
    RingProducer& producer_;
    const std::vector<ozram::Page>& pages_;
    ozram::ringload::CompletionCheck check_;
};

struct Answers {
    std::map<std::uint64_t, int> per_page;  // completions each page got
    std::uint64_t verified = 0;
    std::uint64_t gpu_flagged = 0;
    std::uint64_t wrong = 0;
};

// Feeds `count` pages through the loop until every one is answered.
Answers run(HeapRing& ring, DrainLoop& loop, std::size_t count) {
    RingProducer producer(ring.view());
    ozram::ringload::CompletionCheck check;
    const auto pages = mixed_pages(24);
    Answers answers;
    std::size_t submitted = 0;
    std::size_t answered = 0;
    for (int steps = 0; answered < count && steps < 100000; ++steps) {
        while (submitted < count && producer.can_stage()) {
            producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
            ++submitted;
        }
        producer.publish();
        EXPECT_EQ(loop.step(0us), Step::Drained);
        answered += producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                ++answers.per_page[cookie];
                const bool ok = verdict == OZRAM_RING_OK && cqe.status == OZRAM_RING_STATUS_OK &&
                                check.restores(cqe, ring.view().output_slot(cqe.slot),
                                               pages[cookie % pages.size()].data());
                (ok ? answers.verified : answers.wrong) += 1;
                answers.gpu_flagged += (cqe.flags & OZRAM_RING_CQE_F_GPU) != 0;
            });
    }
    return answers;
}

void expect_each_page_answered_once(const Answers& answers, std::size_t count) {
    EXPECT_EQ(answers.per_page.size(), count);
    for (const auto& [page, times] : answers.per_page)
        EXPECT_EQ(times, 1) << "page " << page;
    EXPECT_EQ(answers.verified, count);
    EXPECT_EQ(answers.wrong, 0u);
}

TEST(DrainLoopInFlight, FastAndSlowBatchesOutOfOrderAllComeBackOnce) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Slow, Fate::Fast, Fate::Fast, Fate::Slow, Fate::Fast}, 3);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    const Answers answers = run(ring, loop, 600);
    expect_each_page_answered_once(answers, 600);
    EXPECT_EQ(answers.gpu_flagged, 600u);
    EXPECT_EQ(backend.most_in_flight(), 3u) << "the bound is reached, never passed";
    EXPECT_EQ(backend.completed(), backend.submitted());
    EXPECT_EQ(loop.batches_in_flight(), 0u);
}

TEST(DrainLoopInFlight, TheLoopsOwnBoundHoldsToo) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Slow}, 8);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    loop.set_batches_in_flight(2);
    const Answers answers = run(ring, loop, 200);
    expect_each_page_answered_once(answers, 200);
    EXPECT_EQ(backend.most_in_flight(), 2u);
}

TEST(DrainLoopInFlight, FailedAndKilledBatchesAreRedoneOnTheCpu) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Fast, Fate::Fail, Fate::Slow, Fate::Kill}, 4);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    const Answers answers = run(ring, loop, 400);
    expect_each_page_answered_once(answers, 400);
    // Half the batches the backend did, half the CPU: only the first carry
    // the GPU's flag.
    EXPECT_EQ(answers.gpu_flagged, 200u);
    EXPECT_EQ(loop.metrics().failed_pages(), 0u);
}

// A batch the backend refuses at submit() is redone on the CPU, and counts
// as the GPU's batch that fell back, as one that failed later does.
TEST(DrainLoopInFlight, RefusedBatchesAreRedoneOnTheCpuAndCountedAsFallbacks) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Fast, Fate::Refuse, Fate::Fail, Fate::Refuse}, 4);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    const Answers answers = run(ring, loop, 400);
    expect_each_page_answered_once(answers, 400);
    EXPECT_EQ(answers.gpu_flagged, 104u);  // 13 batches of 8
    EXPECT_EQ(loop.metrics().failed_pages(), 0u);
    // 50 batches: 13 the GPU's, 37 fallbacks (25 refused, 12 failed).
    EXPECT_NE(loop.metrics().render().find("ozram_agent_gpu_fallback_batches_total 37"),
              std::string::npos)
        << loop.metrics().render();
}

// The producer times out while a batch is in flight and takes its slots
// back, then stages new pages in them: the late answers carry the old
// generation and are stale; the new pages are answered, and right.
TEST(DrainLoopInFlight, AnswersToSlotsTakenBackMeanwhileAreStale) {
    HeapRing ring(8, 8);
    ScriptedBackend backend({Fate::Fast, Fate::Slow}, 2);
    DrainLoop loop(ring, backend);
    loop.set_batching(4, 0us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(12);
    Reaper reaper(ring, producer, pages);
    stage_pages(producer, pages, 0, 8);
    // Two batches go out; the step answers the first, the second (slow)
    // stays in flight.
    EXPECT_EQ(loop.step(0us), Step::Drained);
    EXPECT_EQ(loop.batches_in_flight(), 1u);
    reaper.reap();
    EXPECT_EQ(reaper.answered.size(), 4u);
    // The producer gives up on the second and reuses its slots.
    EXPECT_EQ(producer.take_back_all().size(), 4u);
    stage_pages(producer, pages, 8, 12);
    reaper.drain(loop);
    EXPECT_EQ(producer.stale(), 4u) << "the answers to the slots taken back";
    reaper.expect_each_answered_once(4, 8, 8);
}

// A stop (SIGTERM) or a reload comes between two steps, with batches in
// flight: the loop waits for each and posts its completions before the ring
// is let go or the compressors change, since until then they read the
// staged pages and write the output slots.
TEST(DrainLoopInFlight, FinishInFlightWaitsForEveryBatchAndPostsIt) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Slow, Fate::Fail, Fate::Slow}, 4);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(32);
    Reaper reaper(ring, producer, pages);
    stage_pages(producer, pages, 0, 32);
    EXPECT_EQ(loop.step(0us), Step::Drained);
    ASSERT_EQ(loop.batches_in_flight(), 2u) << "two slow batches outlive the step";

    loop.finish_in_flight();
    EXPECT_EQ(loop.batches_in_flight(), 0u);
    EXPECT_EQ(backend.completed(), backend.submitted());
    reaper.reap();
    reaper.expect_each_answered_once(0, 0, 32);
    loop.finish_in_flight();  // nothing in flight: returns at once
}

// The producer takes back the slots of two slow batches and stages new
// pages in them while both are in flight, the older of the two waited for
// first: a new batch must not be given a slot that an old one still
// writes, or the old one could overwrite the new answer's bytes while the
// producer reads them.
TEST(DrainLoopInFlight, ASlotStagedAgainIsNeverWrittenByTwoBatchesAtOnce) {
    HeapRing ring(16, 16);
    ScriptedBackend backend({Fate::Slow, Fate::Slow, Fate::Slow, Fate::Fast, Fate::Fast}, 3);
    DrainLoop loop(ring, backend);
    loop.set_batching(4, 0us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(20);
    Reaper reaper(ring, producer, pages);
    stage_pages(producer, pages, 0, 12);
    EXPECT_EQ(loop.step(0us), Step::Drained);
    ASSERT_EQ(loop.batches_in_flight(), 2u) << "the first answered, two slow ones out";
    reaper.reap();
    EXPECT_EQ(producer.take_back_all().size(), 8u);
    stage_pages(producer, pages, 12, 20);
    reaper.drain(loop);
    EXPECT_EQ(backend.shared_outputs(), 0u);
    EXPECT_EQ(producer.stale(), 8u) << "the answers to the slots taken back";
    reaper.expect_each_answered_once(4, 12, 12);
}

// The producer takes a slot back and stages it again before the agent has
// read the first posting: the SQ names the slot twice.  Only the newer
// posting is compressed and answered, and its output slot written once.
TEST(DrainLoopInFlight, TwoPostingsOfOneSlotInOneBatchAreAnsweredOnce) {
    HeapRing ring(8, 8);
    ScriptedBackend backend({Fate::Fast}, 2);
    DrainLoop loop(ring, backend);
    loop.set_batching(8, 0us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(8);
    std::vector<std::uint32_t> first_slots;
    std::vector<std::uint32_t> second_slots;
    for (std::uint64_t i = 0; i < 4; ++i)
        first_slots.push_back(producer.stage(pages[i].data(), 0, i));
    producer.publish();
    EXPECT_EQ(producer.take_back_all().size(), 4u);
    for (std::uint64_t i = 4; i < 8; ++i)
        second_slots.push_back(producer.stage(pages[i].data(), 0, i));
    producer.publish();
    std::ranges::sort(first_slots);
    std::ranges::sort(second_slots);
    ASSERT_EQ(first_slots, second_slots) << "the same slots, posted again";

    EXPECT_EQ(loop.step(0us), Step::Drained);
    Reaper reaper(ring, producer, pages);
    reaper.reap();
    EXPECT_EQ(backend.shared_outputs(), 0u);
    EXPECT_EQ(producer.stale(), 0u) << "no answer to the postings taken back";
    reaper.expect_each_answered_once(0, 4, 4);
    EXPECT_EQ(loop.metrics().rejected_submissions(), 0u) << "a posting again is no bad entry";
}

// A loop let go with batches in flight (ozramd after the ring failed) waits
// for them, so that none writes the ring or the loop's buffers afterwards,
// and posts nothing: the producer takes the slots back.
TEST(DrainLoopInFlight, ALoopLetGoWithBatchesInFlightWaitsForThem) {
    HeapRing ring(64, 64);
    ScriptedBackend backend({Fate::Slow}, 4);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(32);
    stage_pages(producer, pages, 0, 32);
    std::uint32_t posted = 0;
    {
        DrainLoop loop(ring, backend);
        loop.set_batching(8, 0us);
        EXPECT_EQ(loop.step(0us), Step::Drained);
        ASSERT_GT(loop.batches_in_flight(), 0u);
        posted = ring.view().ctrl->cq_tail.value;
    }
    EXPECT_EQ(backend.completed(), backend.submitted());
    EXPECT_EQ(ring.view().ctrl->cq_tail.value, posted) << "nothing posted on the way out";
}

}  // namespace
