// The slot pipeline: batches from 1 to 100,000 pages, more chunks than
// slots, synchronous copies, and results reused across batches.
#include "gpu_test_support.hpp"

namespace ozram::testing {
namespace {

using GpuPipeline = GpuTest;

std::vector<Page> cycled(const std::vector<Page>& base, std::size_t n) {
    std::vector<Page> pages;
    pages.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        pages.push_back(base[i % base.size()]);
        // Make repeated pages differ a little, as real memory does.
        pages.back()[i % PAGE_SIZE] ^= static_cast<std::uint8_t>(i);
    }
    return pages;
}

void expect_round_trip(GpuBatchCompressor& gpu, const std::vector<Page>& pages) {
    BatchResult batch;
    gpu.compress(pointers_to(pages), batch);
    ASSERT_EQ(count_wrong_pages(batch, pages), 0u);
    const std::vector<Page> restored = decompress_all(gpu, batch);
    ASSERT_EQ(restored.size(), pages.size());
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored[i].data(), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu.fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuPipeline, BatchSizesFromOneTo100000Pages) {
    const auto base = corpus_pages(200);
    GpuBatchConfig config;
    config.batch_size = 4096;
    auto gpu = GpuBatchCompressor::create(config);
    for (std::size_t n : {1u, 2u, 31u, 32u, 33u, 127u, 4095u, 4096u, 4097u, 20000u, 100000u}) {
        SCOPED_TRACE(n);
        expect_round_trip(*gpu, cycled(base, n));
    }
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuPipeline, ManyChunksThroughFewSlots) {
    const auto pages = cycled(corpus_pages(200), 10000);
    for (std::size_t slots : {1u, 2u, 4u, 8u}) {
        SCOPED_TRACE(slots);
        GpuBatchConfig config;
        config.batch_size = 64;  // 157 chunks in flight through the ring
        config.ring_buffer_slots = slots;
        auto gpu = GpuBatchCompressor::create(config);
        expect_round_trip(*gpu, pages);
    }
}

TEST_F(GpuPipeline, SynchronousCopies) {
    GpuBatchConfig config;
    config.async_dma = false;
    config.batch_size = 512;
    auto gpu = GpuBatchCompressor::create(config);
    expect_round_trip(*gpu, cycled(corpus_pages(100), 3000));
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuPipeline, AResultIsReusedAcrossBatches) {
    auto gpu = GpuBatchCompressor::create({});
    const auto first = cycled(corpus_pages(100), 1000);
    const auto second = cycled(corpus_pages(50), 700);
    BatchResult batch;
    gpu->compress(pointers_to(first), batch);
    EXPECT_EQ(count_wrong_pages(batch, first), 0u);
    gpu->compress(pointers_to(second), batch);
    EXPECT_EQ(count_wrong_pages(batch, second), 0u);
    gpu->compress(pointers_to(std::vector<Page>{}), batch);
    EXPECT_TRUE(batch.pages.empty());
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuPipeline, SeveralCompressorsShareTheDevice) {
    auto a = GpuBatchCompressor::create({});
    auto b = GpuBatchCompressor::create({});
    const auto pages = cycled(corpus_pages(100), 2000);
    expect_round_trip(*a, pages);
    expect_round_trip(*b, pages);
    expect_round_trip(*a, pages);
}

}  // namespace
}  // namespace ozram::testing
