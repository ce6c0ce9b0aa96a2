// The drain loop must not allocate once it runs: the agent serves memory
// pressure and must not wait on reclaim.  A counting operator new watches
// the steady-state loop.  The compressor here is a plain liblz4 one that
// allocates nothing itself, so that what is measured is the loop.
#include <gtest/gtest.h>
#include <lz4.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "drain_loop.hpp"
#include "heap_ring.hpp"
#include "ring_producer.hpp"

namespace {

std::atomic<bool> counting{false};
std::atomic<std::uint64_t> allocations{0};

}  // namespace

void* operator new(std::size_t size) {
    if (counting.load(std::memory_order_relaxed)) {
        allocations.fetch_add(1, std::memory_order_relaxed);
    }
    if (void* memory = std::malloc(size == 0 ? 1 : size)) {
        return memory;
    }
    throw std::bad_alloc();
}
void operator delete(void* memory) noexcept {
    std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
    std::free(memory);
}

namespace {

using namespace std::chrono_literals;

// liblz4 straight into the result's preallocated payload.
class Lz4OnTheCallingThread final : public ozram::daemon::CompressorPicker,
                                    public ozram::PageCompressor {
  public:
    ozram::PageCompressor& pick(std::size_t) override { return *this; }
    ozram::Backend backend() const override { return ozram::Backend::Scalar; }
    void compress(std::span<const std::uint8_t* const> pages, ozram::BatchResult& out) override {
        out.reset(pages.size());
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const auto offset = static_cast<std::uint32_t>(i * ozram::PAGE_SIZE);
            auto* destination = reinterpret_cast<char*>(out.payload.data() + offset);
            const int size =
                LZ4_compress_default(reinterpret_cast<const char*>(pages[i]), destination,
                                     ozram::PAGE_SIZE, ozram::DEFAULT_HUGE_THRESHOLD);
            if (size > 0) {
                out.pages[i] = {ozram::PageEncoding::Lz4, 0, offset,
                                static_cast<std::uint32_t>(size)};
            } else {
                std::memcpy(destination, pages[i], ozram::PAGE_SIZE);
                out.pages[i] = {ozram::PageEncoding::Raw, 0, offset, ozram::PAGE_SIZE};
            }
        }
    }
    // What the drain loop calls: straight into the output slots.
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, ozram::BatchResult& out) override {
        out.reset_without_payload(pages.size());
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const int size = LZ4_compress_default(reinterpret_cast<const char*>(pages[i]),
                                                  reinterpret_cast<char*>(outputs[i]),
                                                  ozram::PAGE_SIZE, ozram::DEFAULT_HUGE_THRESHOLD);
            out.pages[i] =
                size > 0 ? ozram::CompressedPage{ozram::PageEncoding::Lz4, 0, 0,
                                                 static_cast<std::uint32_t>(size)}
                         : ozram::CompressedPage{ozram::PageEncoding::Raw, 0, 0, ozram::PAGE_SIZE};
        }
    }
    void decompress(const ozram::BatchResult&, std::span<std::uint8_t* const>) override {}
};

TEST(SteadyState, DrainLoopAllocatesNothingPerBatch) {
    ozram::ring::test::HeapRing ring(32, 32);
    Lz4OnTheCallingThread compressor;
    ozram::daemon::DrainLoop loop(ring, compressor);
    loop.set_batching(32, 0us);
    ozram::ring::RingProducer producer(ring.view());
    const auto pages = ozram::ring::test::mixed_pages(32);
    const auto one_round = [&](std::uint32_t count) {
        for (std::uint32_t i = 0; i < count; ++i) {
            producer.stage(pages[i].data(), 0, i);
        }
        producer.publish();
        counting = true;
        const auto step = loop.step(0us);
        counting = false;
        EXPECT_EQ(step, ozram::daemon::Step::Drained);
        producer.reap([](const ozram_ring_cqe&, ozram_ring_verdict, std::uint64_t) {});
    };
    // Batches of every size up to the largest, many times over.
    for (int round = 0; round < 20; ++round) {
        one_round(static_cast<std::uint32_t>(1 + round % 32));
        one_round(32);
    }
    EXPECT_EQ(
        loop.metrics().pages(), 20u * 32 + [] {
            std::uint64_t sum = 0;
            for (int round = 0; round < 20; ++round) {
                sum += 1 + round % 32;
            }
            return sum;
        }());
    EXPECT_EQ(allocations.load(), 0u);
}

}  // namespace
