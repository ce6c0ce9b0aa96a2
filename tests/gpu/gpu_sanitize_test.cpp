// A small GPU test for compute-sanitizer (memcheck, racecheck): a few
// hundred pages through the pipeline (copied, and read in place) and a few
// hundred malformed blocks through the device decoder, quick enough under
// instrumentation.
#include <random>

#include "device_kernels.hpp"
#include "fuzz_blocks.hpp"
#include "gpu_test_support.hpp"

namespace ozram::testing {
namespace {

using GpuSanitize = GpuTest;

TEST_F(GpuSanitize, CompressAndDecompressACorpus) {
    const auto pages = corpus_pages(100);
    GpuBatchConfig config;
    config.batch_size = 64;
    config.ring_buffer_slots = 2;
    auto gpu = GpuBatchCompressor::create(config);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    const auto restored = decompress_all(*gpu, batch);
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored[i].data(), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// The gather kernel reads registered host memory: memcheck sees its loads.
TEST_F(GpuSanitize, CompressPagesReadInPlace) {
    const auto pages = corpus_pages(100);
    AlignedPages memory(pages);
    GpuBatchConfig config;
    config.batch_size = 64;
    config.ring_buffer_slots = 2;
    auto gpu = GpuBatchCompressor::create(config);
    ASSERT_TRUE(gpu->register_host_region(memory.span()));
    BatchResult batch;
    gpu->compress(memory.pointers(), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), pages.size());
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// The device writes host memory: compressed bytes into registered output
// buffers, and restored pages into registered destinations.
TEST_F(GpuSanitize, WriteRegisteredHostMemory) {
    const auto pages = corpus_pages(100);
    AlignedPages input(pages);
    AlignedPages outputs(std::vector<Page>(pages.size()));
    GpuBatchConfig config;
    config.batch_size = 64;
    config.ring_buffer_slots = 2;
    auto gpu = GpuBatchCompressor::create(config);
    ASSERT_TRUE(gpu->register_host_region(input.span()));
    ASSERT_TRUE(gpu->register_output_region({outputs.page(0), pages.size() * PAGE_SIZE}));
    std::vector<std::uint8_t*> out;
    for (std::size_t i = 0; i < pages.size(); ++i)
        out.push_back(outputs.page(i));
    BatchResult batch;
    gpu->compress_into(input.pointers(), out, batch);
    EXPECT_EQ(gpu->host_work().outputs_in_place, pages.size());
    BatchResult packed;
    gpu->compress(input.pointers(), packed);
    ASSERT_EQ(count_wrong_pages(packed, pages), 0u);
    AlignedPages restored(std::vector<Page>(pages.size()));
    ASSERT_TRUE(gpu->register_output_region({restored.page(0), pages.size() * PAGE_SIZE}));
    std::vector<std::uint8_t*> into;
    for (std::size_t i = 0; i < pages.size(); ++i)
        into.push_back(restored.page(i));
    gpu->decompress(packed, into);
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored.page(i), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuSanitize, DecodeMalformedBlocks) {
    const auto seeds = seed_blocks();
    std::mt19937_64 rng(11);
    std::vector<std::vector<std::uint8_t>> blocks;
    for (int i = 0; i < 512; ++i)
        blocks.push_back(mutate(seeds[rng() % seeds.size()], rng));
    const auto decoded = decode_on_device(blocks);
    EXPECT_EQ(decoded.size(), blocks.size());
}

}  // namespace
}  // namespace ozram::testing
