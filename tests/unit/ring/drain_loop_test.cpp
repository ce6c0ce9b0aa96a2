// The daemon's loop in-process over a ring in ordinary memory, with the real
// CPU compressors: every page comes back through liblz4 byte for byte.
#include "drain_loop.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "completion_check.hpp"
#include "compressor_set.hpp"
#include "cpu/block_codec.hpp"
#include "doorbell.hpp"
#include "heap_ring.hpp"
#include "ring_producer.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::daemon::DrainLoop;
using ozram::daemon::Step;
using ozram::ring::RingProducer;
using ozram::ring::test::HeapRing;
using ozram::ring::test::mixed_pages;

class FixedPicker final : public ozram::daemon::CompressorPicker {
  public:
    explicit FixedPicker(ozram::Backend backend, const ozram::CpuConfig& config = {})
        : compressor_(ozram::make_cpu_compressor(backend, config)) {}
    ozram::PageCompressor& pick(std::size_t) override { return *compressor_; }

  private:
    std::unique_ptr<ozram::PageCompressor> compressor_;
};

class Failing final : public ozram::daemon::CompressorPicker, public ozram::PageCompressor {
  public:
    explicit Failing(bool fallback_fails = false) : fallback_fails_(fallback_fails) {}
    ozram::PageCompressor& pick(std::size_t) override { return *this; }
    ozram::PageCompressor& fallback_for(ozram::Algorithm algorithm) override {
        return fallback_fails_ ? *this : CompressorPicker::fallback_for(algorithm);
    }
    ozram::Backend backend() const override { return ozram::Backend::Gpu; }
    void compress(std::span<const std::uint8_t* const>, ozram::BatchResult&) override {
        throw ozram::Error(ENOMEM, "out of pinned memory");
    }
    void compress_into(std::span<const std::uint8_t* const>, std::span<std::uint8_t* const>,
                       ozram::BatchResult&) override {
        throw ozram::Error(ENOMEM, "out of pinned memory");
    }
    void decompress(const ozram::BatchResult&, std::span<std::uint8_t* const>) override {}

  private:
    bool fallback_fails_;
};

// Reports itself as the GPU backend and compresses with liblz4 on the
// calling thread: what the drain loop sees of a GPU batch that succeeded.
class PosingAsGpu final : public ozram::daemon::CompressorPicker, public ozram::PageCompressor {
  public:
    ozram::PageCompressor& pick(std::size_t) override { return *this; }
    ozram::Backend backend() const override { return ozram::Backend::Gpu; }
    void compress(std::span<const std::uint8_t* const> pages, ozram::BatchResult& out) override {
        scalar_->compress(pages, out);
    }
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, ozram::BatchResult& out) override {
        scalar_->compress_into(pages, outputs, out);
        out.backend = ozram::Backend::Gpu;
    }
    void decompress(const ozram::BatchResult& in, std::span<std::uint8_t* const> pages) override {
        scalar_->decompress(in, pages);
    }

  private:
    std::unique_ptr<ozram::PageCompressor> scalar_ =
        ozram::make_cpu_compressor(ozram::Backend::Scalar);
};

struct Outcome {
    std::uint64_t gpu_flagged = 0;  // accepted completions with OZRAM_RING_CQE_F_GPU
    std::uint64_t verified = 0;
    std::uint64_t mismatched = 0;
    std::uint64_t failed = 0;
    std::uint64_t rejected = 0;
};

// Feeds `count` pages through the loop, `batch` at a time.
Outcome run_pages(HeapRing& ring, DrainLoop& loop, const std::vector<ozram::Page>& pages,
                  std::size_t count) {
    RingProducer producer(ring.view());
    ozram::ringload::CompletionCheck check;
    Outcome outcome;
    std::size_t submitted = 0;
    std::size_t finished = 0;
    while (finished < count) {
        while (submitted < count && producer.can_stage()) {
            producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
            ++submitted;
        }
        producer.publish();
        EXPECT_EQ(loop.step(0us), Step::Drained);
        finished += producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                if (verdict == OZRAM_RING_OK && (cqe.flags & OZRAM_RING_CQE_F_GPU) != 0) {
                    ++outcome.gpu_flagged;
                }
                if (verdict != OZRAM_RING_OK) {
                    ++outcome.rejected;
                } else if (cqe.status != OZRAM_RING_STATUS_OK) {
                    ++outcome.failed;
                } else if (check.restores(cqe, ring.view().output_slot(cqe.slot),
                                          pages[cookie % pages.size()].data())) {
                    ++outcome.verified;
                } else {
                    ++outcome.mismatched;
                }
            });
    }
    return outcome;
}

// Posts `page` alone, lets the loop answer it, and returns the one
// completion the producer reaps (checked to be accepted).
ozram_ring_cqe answer_one(HeapRing& ring, ozram::daemon::CompressorPicker& picker,
                          const ozram::Page& page) {
    DrainLoop loop(ring, picker);
    RingProducer producer(ring.view());
    producer.stage(page.data(), 0, 0);
    producer.publish();
    EXPECT_EQ(loop.step(0us), Step::Drained);
    ozram_ring_cqe answer{};
    std::size_t seen = 0;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t) {
        EXPECT_EQ(verdict, OZRAM_RING_OK);
        answer = cqe;
        ++seen;
    });
    EXPECT_EQ(seen, 1u);
    return answer;
}

TEST(DrainLoop, CompressesEveryPageAndTheProducerVerifiesIt) {
    for (const ozram::Backend backend : {ozram::Backend::Scalar, ozram::Backend::Cpu}) {
        HeapRing ring(64, 64);
        FixedPicker picker(backend);
        DrainLoop loop(ring, picker);
        loop.set_batching(16, 0us);
        const auto pages = mixed_pages(50);
        const Outcome outcome = run_pages(ring, loop, pages, 500);
        EXPECT_EQ(outcome.verified, 500u) << ozram::to_string(backend);
        EXPECT_EQ(outcome.mismatched + outcome.failed + outcome.rejected, 0u);
        EXPECT_EQ(loop.metrics().pages(), 500u);
        EXPECT_GE(ring.notifications, 500u / 16);
        EXPECT_EQ(outcome.gpu_flagged, 0u) << "a CPU batch was marked as GPU work";
        EXPECT_EQ(loop.metrics().pages(ozram::Backend::Gpu), 0u);
    }
}

TEST(DrainLoop, CountsItsWorkForTheMetricsEndpoint) {
    HeapRing ring(64, 64);
    FixedPicker picker(ozram::Backend::Cpu);
    ozram::daemon::AgentMetrics metrics;
    DrainLoop loop(ring, picker, metrics);
    loop.set_batching(16, 0us);
    const auto pages = mixed_pages(50);
    EXPECT_EQ(run_pages(ring, loop, pages, 200).verified, 200u);
    const std::string text = metrics.render();
    EXPECT_NE(text.find("ozram_agent_pages_total{backend=\"cpu\"} 200\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("ozram_agent_batches_total{backend=\"cpu\"} " +
                        std::to_string(metrics.batches(ozram::Backend::Cpu)) + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("ozram_agent_output_bytes_total{backend=\"cpu\"} " +
                        std::to_string(metrics.output_bytes()) + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("ozram_agent_batch_pages_sum 200\n"), std::string::npos) << text;
}

TEST(DrainLoop, MarksEveryPageOfAGpuBatchForA11Producer) {
    HeapRing ring(32, 32);
    PosingAsGpu gpu;
    DrainLoop loop(ring, gpu);
    loop.set_batching(8, 0us);
    const auto pages = mixed_pages(20);
    const Outcome outcome = run_pages(ring, loop, pages, 100);
    EXPECT_EQ(outcome.verified, 100u);
    EXPECT_EQ(outcome.rejected + outcome.mismatched + outcome.failed, 0u);
    EXPECT_EQ(outcome.gpu_flagged, 100u);
    EXPECT_EQ(loop.metrics().pages(ozram::Backend::Gpu), 100u);
}

TEST(DrainLoop, SetsNoFlagForA10ProducerThatWouldRejectIt) {
    HeapRing ring(32, 32, 0, 3072, 0);
    ASSERT_EQ(ring.view().header.abi_minor, 0);
    PosingAsGpu gpu;
    DrainLoop loop(ring, gpu);
    loop.set_batching(8, 0us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(8);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        producer.stage(pages[i].data(), 0, i);
    }
    producer.publish();
    ASSERT_EQ(loop.step(0us), Step::Drained);
    std::size_t seen = 0;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t) {
        // What a 1.0 producer checks: flags must be zero.
        EXPECT_EQ(cqe.flags, 0u);
        EXPECT_EQ(verdict, OZRAM_RING_OK);
        ++seen;
    });
    EXPECT_EQ(seen, pages.size());
    // The GPU did the work: the agent counts it, the producer is not told.
    EXPECT_EQ(loop.metrics().pages(ozram::Backend::Gpu), pages.size());
}

TEST(DrainLoop, HugeThresholdOfTheRingIsHonoured) {
    // A ring that accepts no LZ4 page above 1 KiB: the rest comes back raw.
    HeapRing ring(16, 16, 0, 1024);
    FixedPicker picker(ozram::Backend::Scalar);
    DrainLoop loop(ring, picker);
    const auto pages = mixed_pages(16);
    const Outcome outcome = run_pages(ring, loop, pages, 64);
    EXPECT_EQ(outcome.verified, 64u);
    EXPECT_EQ(outcome.rejected, 0u) << "an LZ4 length above the threshold was posted";
}

// A producer of ABI 1.3 or older reads a RAW page from the output slot; from
// 1.4 it keeps its staged copy and the agent copies nothing.
TEST(DrainLoop, RawPagesAreCopiedOnlyForProducersBefore14) {
    const ozram::Page page = mixed_pages(2)[1];  // incompressible
    for (const std::uint16_t minor : {std::uint16_t{3}, std::uint16_t{OZRAM_RING_ABI_MINOR}}) {
        SCOPED_TRACE("producer 1." + std::to_string(minor));
        HeapRing ring(4, 4, 0, 3072, minor);
        FixedPicker picker(ozram::Backend::Scalar);
        std::memset(ring.view().output_slot(0), 0, OZRAM_RING_PAGE_SIZE);
        const ozram_ring_cqe cqe = answer_one(ring, picker, page);
        EXPECT_EQ(cqe.encoding, OZRAM_RING_ENC_RAW);
        const std::uint8_t* output = ring.view().output_slot(cqe.slot);
        if (minor < 4) {
            EXPECT_EQ(cqe.length, OZRAM_RING_PAGE_SIZE);
            EXPECT_EQ(std::memcmp(output, page.data(), OZRAM_RING_PAGE_SIZE), 0);
        } else {
            EXPECT_EQ(cqe.length, 0u);
            EXPECT_NE(std::memcmp(output, page.data(), OZRAM_RING_PAGE_SIZE), 0)
                << "the page was copied for a producer that keeps its own";
        }
    }
}

// The agent's huge threshold means what the ring's does: the largest LZ4
// length kept.  With both at a page's exact LZ4 length the page is posted as
// LZ4 and accepted; one byte lower it comes back raw.
TEST(DrainLoop, AgentAndRingAgreeOnTheLargestLz4Page) {
    const ozram::Page page = mixed_pages(1).front();  // text: compresses
    ozram::BatchResult probe;
    const std::uint8_t* const one[] = {page.data()};
    ozram::make_cpu_compressor(ozram::Backend::Scalar, {.huge_threshold = ozram::PAGE_SIZE})
        ->compress(one, probe);
    ASSERT_EQ(probe.pages[0].encoding, ozram::PageEncoding::Lz4);
    const std::uint32_t length = probe.pages[0].size;

    for (const std::uint32_t threshold : {length, length - 1}) {
        SCOPED_TRACE("threshold " + std::to_string(threshold));
        HeapRing ring(4, 4, 0, threshold);
        FixedPicker picker(ozram::Backend::Scalar, {.huge_threshold = threshold});
        const ozram_ring_cqe cqe = answer_one(ring, picker, page);
        if (threshold == length) {
            EXPECT_EQ(cqe.encoding, OZRAM_RING_ENC_LZ4);
            EXPECT_EQ(cqe.length, length);
        } else {
            EXPECT_EQ(cqe.encoding, OZRAM_RING_ENC_RAW);
            EXPECT_EQ(cqe.length, 0u) << "an ABI 1.4 producer keeps its staged copy";
        }
    }
}

// Stages `pages`, the i-th in algorithms[i % size], and reaps every answer:
// each must be accepted, OK or -EOPNOTSUPP, and an OK one must decode with
// its format's decoder to its page.  Returns the pages answered OK.
std::size_t run_mixed(ozram::daemon::CompressorPicker& picker,
                      const std::vector<ozram_ring_algorithm>& algorithms,
                      std::size_t expect_unsupported) {
    HeapRing ring(16, 16);
    DrainLoop loop(ring, picker);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(12);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        producer.stage(pages[i].data(), 0, i, algorithms[i % algorithms.size()]);
    }
    producer.publish();
    do {
        EXPECT_EQ(loop.step(0us), Step::Drained);
    } while (loop.batches_in_flight() != 0);
    std::size_t ok = 0;
    std::size_t unsupported = 0;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
        EXPECT_EQ(verdict, OZRAM_RING_OK) << "page " << cookie;
        const auto algorithm =
            static_cast<ozram::Algorithm>(algorithms[cookie % algorithms.size()]);
        if (cqe.status == -EOPNOTSUPP) {
            ++unsupported;
            return;
        }
        ASSERT_EQ(cqe.status, OZRAM_RING_STATUS_OK) << "page " << cookie;
        ++ok;
        ozram::Page page{};
        switch (cqe.encoding) {
            case OZRAM_RING_ENC_LZ4:
                EXPECT_EQ(algorithm, ozram::Algorithm::Lz4) << "page " << cookie;
                [[fallthrough]];
            case OZRAM_RING_ENC_COMPRESSED:
                EXPECT_TRUE(ozram::decompress_block(algorithm, ring.view().output_slot(cqe.slot),
                                                    cqe.length, page.data()))
                    << "page " << cookie;
                EXPECT_EQ(page, pages[cookie]) << "page " << cookie;
                break;
            default:
                break;  // RAW and same-filled: the producer keeps or checks its copy
        }
    });
    EXPECT_EQ(unsupported, expect_unsupported);
    return ok;
}

TEST(DrainLoop, EachAlgorithmOfABatchGoesToItsOwnCompressor) {
    ozram::daemon::CompressorSet every_format(ozram::daemon::BackendChoice::Scalar, {}, 16);
    EXPECT_EQ(run_mixed(every_format,
                        {OZRAM_RING_ALG_ZSTD, OZRAM_RING_ALG_LZ4, OZRAM_RING_ALG_LZO,
                         OZRAM_RING_ALG_LZ4HC, OZRAM_RING_ALG_LZO_RLE, OZRAM_RING_ALG_ZSTD},
                        0),
              12u);
}

// The agent's huge threshold is the ring's (4096: the ring decides).  A
// page at a level that is redone on the CPU must meet that one too, not the
// library's default, or a block the ring would keep comes back raw.
TEST(DrainLoop, ALeveledBatchRedoneOnTheCpuKeepsTheConfiguredThreshold) {
    ozram::daemon::CompressorSet set(ozram::daemon::BackendChoice::Scalar,
                                     {.huge_threshold = ozram::PAGE_SIZE}, 16);
    ozram::Page page{};  // about 3,300 bytes as zstd: above 3071, below 4096
    const ozram::Page noise = ozram::ring::test::mixed_pages(2)[1];
    std::memcpy(page.data(), noise.data(), 3300);
    const std::uint8_t* pages[] = {page.data()};
    for (ozram::PageCompressor* compressor : {&set.pick_at(ozram::Algorithm::Zstd, 5, 1),
                                              &set.fallback_at(ozram::Algorithm::Zstd, 5)}) {
        ozram::BatchResult result;
        compressor->compress(pages, result);
        ASSERT_EQ(result.pages.size(), 1u);
        EXPECT_EQ(result.pages[0].encoding, ozram::PageEncoding::Compressed);
        EXPECT_GT(result.pages[0].size, 3071u);
    }
}

TEST(DrainLoop, AFormatWithoutACompressorGoesBackAsUnsupported) {
    FixedPicker lz4_only(ozram::Backend::Scalar);
    EXPECT_EQ(run_mixed(lz4_only, {OZRAM_RING_ALG_LZ4, OZRAM_RING_ALG_ZSTD}, 6), 6u);
}

// A batch whose backend fails is redone on the CPU: every page comes back
// compressed, none lost.
TEST(DrainLoop, AFailedBatchIsRedoneOnTheCpu) {
    HeapRing ring(8, 8);
    Failing failing;
    DrainLoop loop(ring, failing);
    const auto pages = mixed_pages(5);
    const Outcome outcome = run_pages(ring, loop, pages, pages.size());
    EXPECT_EQ(outcome.verified, 5u);
    EXPECT_EQ(outcome.failed, 0u);
    EXPECT_EQ(loop.metrics().failed_pages(), 0u);
}

// When the CPU fails too, every page goes back with the errno, for the
// producer to compress itself.
TEST(DrainLoop, ABatchThatFailsEverywhereGivesEveryPageBackWithItsErrno) {
    HeapRing ring(8, 8);
    Failing failing(/*fallback_fails=*/true);
    DrainLoop loop(ring, failing);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(5);
    for (const auto& page : pages) {
        producer.stage(page.data(), 0, 0);
    }
    producer.publish();
    EXPECT_EQ(loop.step(0us), Step::Drained);
    int given_back = 0;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t) {
        EXPECT_EQ(verdict, OZRAM_RING_OK);
        EXPECT_EQ(cqe.status, -ENOMEM);
        ++given_back;
    });
    EXPECT_EQ(given_back, 5);
    EXPECT_EQ(loop.metrics().failed_pages(), 5u);
}

// An entry naming no slot has nobody to answer; one naming a slot with
// flags the agent does not know is answered with -EINVAL, so that the
// producer compresses the page at once instead of after its time-out.
TEST(DrainLoop, SubmissionsNamingNoSlotAreSkippedUnknownFlagsRefused) {
    HeapRing ring(4, 4);
    FixedPicker picker(ozram::Backend::Scalar);
    DrainLoop loop(ring, picker);
    const auto& view = ring.view();
    view.sq[0] = {4, 1, 0, 0};                      // slot out of range
    view.sq[1] = {0, 7, 0, 0x80000000};             // unknown flag
    view.sq[2] = {2, 9, 0, OZRAM_RING_ALG_NR + 1};  // unknown algorithm
    view.sq[3] = {1, 1, 0, 0};
    view.ctrl->sq_tail.value = 4;
    EXPECT_EQ(loop.step(0us), Step::Drained);
    EXPECT_EQ(loop.metrics().rejected_submissions(), 3u);
    EXPECT_EQ(loop.metrics().failed_pages(), 2u) << "the two given back with EINVAL";
    EXPECT_EQ(loop.metrics().pages(), 1u);
    EXPECT_EQ(view.ctrl->sq_head.value, 4u) << "bad entries are consumed too";
    ASSERT_EQ(view.ctrl->cq_tail.value, 3u);
    EXPECT_EQ(view.cq[0].slot, 0u);
    EXPECT_EQ(view.cq[0].generation, 7u);
    EXPECT_EQ(view.cq[0].status, -EINVAL);
    EXPECT_EQ(view.cq[1].slot, 2u);
    EXPECT_EQ(view.cq[1].generation, 9u);
    EXPECT_EQ(view.cq[1].status, -EINVAL);
    EXPECT_EQ(view.cq[2].slot, 1u);
    EXPECT_EQ(view.cq[2].status, OZRAM_RING_STATUS_OK);
}

// A picker that cannot make a compressor, for want of memory.
class OutOfMemory final : public ozram::daemon::CompressorPicker {
  public:
    ozram::PageCompressor& pick(std::size_t) override { throw std::bad_alloc(); }
    ozram::PageCompressor& pick_for(ozram::Algorithm, std::size_t) override {
        throw std::bad_alloc();
    }
};

// No compressor to be had is the batch's failure, not the loop's: its
// pages go back with -ENOMEM, and the producer compresses them.
TEST(DrainLoop, NoMemoryForACompressorGivesThePagesBack) {
    HeapRing ring(4, 4);
    OutOfMemory picker;
    DrainLoop loop(ring, picker);
    const auto& view = ring.view();
    view.sq[0] = {0, 3, 0, 0};
    view.sq[1] = {1, 5, 0, 0};
    view.ctrl->sq_tail.value = 2;
    EXPECT_EQ(loop.step(0us), Step::Drained);
    ASSERT_EQ(view.ctrl->cq_tail.value, 2u);
    for (std::uint32_t i = 0; i < 2; ++i) {
        EXPECT_EQ(view.cq[i].slot, i);
        EXPECT_EQ(view.cq[i].status, -ENOMEM);
    }
    EXPECT_EQ(loop.metrics().failed_pages(), 2u);
}

TEST(DrainLoop, PartialBatchWaitsForTheFlushTimeoutThenGoes) {
    HeapRing ring(64, 64);
    FixedPicker picker(ozram::Backend::Scalar);
    DrainLoop loop(ring, picker);
    loop.set_batching(64, 2000us);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(3);
    for (const auto& page : pages) {
        producer.stage(page.data(), 0, 0);
    }
    producer.publish();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(loop.step(0us), Step::Drained);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 2000us);
    EXPECT_EQ(loop.metrics().pages(), 3u);
}

TEST(DrainLoop, StoppingProducerEndsTheLoopOnceTheQueueIsEmpty) {
    HeapRing ring(8, 8);
    FixedPicker picker(ozram::Backend::Scalar);
    DrainLoop loop(ring, picker);
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(2);
    producer.stage(pages[0].data(), 0, 0);
    producer.publish();
    producer.set_stopping();
    EXPECT_EQ(loop.step(0us), Step::Drained) << "work already queued is finished first";
    EXPECT_EQ(loop.step(0us), Step::Stopping);
}

// A heap ring whose doorbell may be rung from another thread: it counts the
// rings and the threads they came from, and can fail.
class ThreadedDoorbellRing final : public ozram::ring::RingTransport {
  public:
    explicit ThreadedDoorbellRing(std::uint32_t slots) : inner_(slots, slots) {}
    const ozram::ring::RingView& view() const override { return inner_.view(); }
    ozram::ring::Wake wait_for_work(std::chrono::microseconds timeout) override {
        return inner_.wait_for_work(timeout);
    }
    void notify_completions() override {
        if (fail) {
            throw ozram::Error(ENODEV, "the ring was handed to another agent");
        }
        ++notifications;
        if (std::this_thread::get_id() != loop_thread) {
            ++from_other_threads;
            char name[16] = {};
            ::pthread_getname_np(::pthread_self(), name, sizeof(name));
            named_doorbell += std::string(name) == ozram::daemon::Doorbell::THREAD_NAME;
        }
    }
    void detach() override {}
    std::string describe() const override { return "heap, threaded doorbell"; }

    std::thread::id loop_thread = std::this_thread::get_id();
    std::atomic<bool> fail{false};
    std::atomic<unsigned> notifications{0};
    std::atomic<unsigned> from_other_threads{0};
    std::atomic<unsigned> named_doorbell{0};  // from a thread named as the doorbell's

  private:
    HeapRing inner_;
};

TEST(DrainLoop, AsyncDoorbellRingsFromItsOwnThreadAndLosesNoCompletion) {
    ThreadedDoorbellRing ring(64);
    FixedPicker picker(ozram::Backend::Cpu, {.threads = 2});
    DrainLoop loop(ring, picker);
    loop.set_batching(16, 0us);
    loop.set_async_doorbell(true);
    RingProducer producer(ring.view());
    ozram::ringload::CompletionCheck check;
    const auto pages = mixed_pages(40);
    std::size_t submitted = 0;
    std::size_t verified = 0;
    std::size_t reaped = 0;
    while (reaped < 400) {
        while (submitted < 400 && producer.can_stage()) {
            producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
            ++submitted;
        }
        producer.publish();
        EXPECT_EQ(loop.step(0us), Step::Drained);
        reaped += producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                verified += verdict == OZRAM_RING_OK && cqe.status == OZRAM_RING_STATUS_OK &&
                            check.restores(cqe, ring.view().output_slot(cqe.slot),
                                           pages[cookie % pages.size()].data());
            });
    }
    loop.finish_doorbell();
    EXPECT_EQ(verified, 400u);
    EXPECT_GE(ring.notifications.load(), 1u);
    EXPECT_EQ(ring.from_other_threads.load(), ring.notifications.load())
        << "every ring came from the doorbell thread";
    EXPECT_EQ(ring.named_doorbell.load(), ring.notifications.load())
        << "the doorbell thread is named, for /proc";
    // Once finished, the loop rings on its own thread again.
    const unsigned before = ring.notifications.load();
    producer.stage(pages[0].data(), 0, 0);
    producer.publish();
    EXPECT_EQ(loop.step(0us), Step::Drained);
    EXPECT_EQ(ring.notifications.load(), before + 1);
    EXPECT_EQ(ring.from_other_threads.load(), before);
}

TEST(DrainLoop, AsyncDoorbellErrorIsThrownOnTheLoopsThread) {
    ThreadedDoorbellRing ring(8);
    FixedPicker picker(ozram::Backend::Scalar);
    DrainLoop loop(ring, picker);
    loop.set_batching(1, 0us);
    loop.set_async_doorbell(true);
    ring.fail = true;
    RingProducer producer(ring.view());
    const auto pages = mixed_pages(1);
    producer.stage(pages[0].data(), 0, 0);
    producer.publish();
    EXPECT_EQ(loop.step(0us), Step::Drained);
    EXPECT_THROW(loop.finish_doorbell(), ozram::Error);
}

}  // namespace
