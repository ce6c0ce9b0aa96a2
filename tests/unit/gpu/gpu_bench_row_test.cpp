// ozram-bench's gpu rows on the emulated device: the gpu row and the
// gpu-stream row, which runs the corpus several times in one stream of
// batches through the same compressor.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "codec.hpp"
#include "gpu_host_support.hpp"

namespace ozram::gpu::test {
namespace {

constexpr std::size_t PAGES = 37;         // not a multiple of the batch
constexpr std::size_t BATCH = 8;          // five batches a corpus, more than the slots
constexpr std::size_t DEVICE_BATCH = 32;  // the compressor's: decompression's chunks
constexpr unsigned ROUNDS = 3;

constexpr std::size_t chunks(std::size_t pages, std::size_t chunk) {
    return (pages + chunk - 1) / chunk;
}

struct BenchRows : ::testing::Test {
    void SetUp() override {
        EmulatedGpu emulated = emulated_gpu({.batch_size = DEVICE_BATCH, .ring_buffer_slots = 2});
        device = emulated.device;
        gpu = std::move(emulated.gpu);
        ASSERT_TRUE(gpu->register_host_region(corpus.span()));
    }

    std::size_t failures(bench::Codec& codec, bench::PassResult& pass) {
        std::vector<bool> failed(PAGES);
        pass = codec.run_pass(inputs, BATCH, failed);
        return static_cast<std::size_t>(std::count(failed.begin(), failed.end(), true));
    }

    std::vector<Page> pages = mixed_pages(PAGES);
    Area corpus{pages};
    std::vector<const std::uint8_t*> inputs = corpus.pointers();
    EmulatedDevice* device = nullptr;
    std::shared_ptr<GpuBatchCompressor> gpu;
};

TEST_F(BenchRows, StreamRowRunsTheCorpusEveryRoundAndGivesFiguresPerCorpus) {
    const auto row = bench::make_gpu_codec("gpu", gpu);
    const auto stream = bench::make_gpu_codec("gpu-stream", gpu, {}, ROUNDS);

    bench::PassResult once, streamed;
    ASSERT_EQ(failures(*row, once), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), PAGES);
    EXPECT_EQ(device->ran(Operation::Compress), chunks(PAGES, BATCH));
    EXPECT_EQ(device->ran(Operation::Decompress), chunks(PAGES, DEVICE_BATCH));

    ASSERT_EQ(failures(*stream, streamed), 0u);
    // Every round's pages went through the device, read in place, in one
    // stream of batches and one decompression of them all.
    EXPECT_EQ(gpu->pages_read_in_place(), PAGES * (1 + ROUNDS));
    EXPECT_EQ(device->ran(Operation::Compress),
              chunks(PAGES, BATCH) + chunks(ROUNDS * PAGES, BATCH));
    EXPECT_EQ(device->ran(Operation::Decompress),
              chunks(PAGES, DEVICE_BATCH) + chunks(ROUNDS * PAGES, DEVICE_BATCH));
    // Sizes are the corpus's, as the gpu row gives them.
    EXPECT_EQ(streamed.bytes_out, once.bytes_out);
    EXPECT_EQ(streamed.raw_pages, once.raw_pages);
    EXPECT_EQ(streamed.same_filled_pages, once.same_filled_pages);
    EXPECT_GT(streamed.compress_ns, 0u);
    EXPECT_GT(streamed.decompress_ns, 0u);
}

TEST_F(BenchRows, StreamRowRepeatsItsPasses) {
    const auto stream = bench::make_gpu_codec("gpu-stream", gpu, {}, ROUNDS);
    bench::PassResult first, second;
    ASSERT_EQ(failures(*stream, first), 0u);
    ASSERT_EQ(failures(*stream, second), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), 2 * PAGES * ROUNDS);
    EXPECT_EQ(second.bytes_out, first.bytes_out);
}

}  // namespace
}  // namespace ozram::gpu::test
