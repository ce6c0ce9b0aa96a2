// The pipeline: batches from 1 to 100,000 pages, more chunks than slots,
// one batch at a time, results reused across batches, batches in flight,
// and every kernel on the device.
#include <algorithm>
#include <cstring>
#include <deque>

#include "gpu_test_support.hpp"
#include "host_codec.hpp"

namespace ozram::testing {
namespace {

using GpuPipeline = GpuTest;

// Whether every 8-byte word of `page` is `word`: what a same-filled
// result must say of its page.
bool filled_with(const Page& page, std::uint64_t word) {
    for (std::size_t at = 0; at < PAGE_SIZE; at += sizeof word) {
        std::uint64_t here = 0;
        std::memcpy(&here, page.data() + at, sizeof here);
        if (here != word)
            return false;
    }
    return true;
}

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

// The agent's way: pages read in place, bytes written by the device into
// registered output buffers, several batches in flight: every page right,
// and the host copies nothing but reads a 16-byte descriptor a page.
TEST_F(GpuPipeline, BatchesInFlightGoStraightIntoRegisteredOutputs) {
    const auto pages = cycled(corpus_pages(100), 6000);
    AlignedPages input(pages);
    AlignedPages outputs(std::vector<Page>(pages.size()));
    GpuBatchConfig config;
    config.batch_size = 512;
    auto gpu = GpuBatchCompressor::create(config);
    ASSERT_TRUE(gpu->register_host_region(input.span()));
    ASSERT_TRUE(gpu->register_output_region({outputs.page(0), pages.size() * PAGE_SIZE}));
    const auto in = input.pointers();
    std::vector<std::uint8_t*> out;
    for (std::size_t i = 0; i < pages.size(); ++i)
        out.push_back(outputs.page(i));
    std::vector<BatchResult> results((pages.size() + 511) / 512);
    std::deque<std::pair<PageCompressor::Ticket, std::size_t>> in_flight;
    std::size_t most_in_flight = 0;
    for (std::size_t b = 0; b < results.size(); ++b) {
        if (in_flight.size() == gpu->max_in_flight()) {
            gpu->complete(in_flight.front().first);
            in_flight.pop_front();
        }
        const std::size_t first = b * 512;
        const std::size_t n = std::min<std::size_t>(512, pages.size() - first);
        in_flight.emplace_back(gpu->submit(std::span(in).subspan(first, n),
                                           std::span(out).subspan(first, n), results[b]),
                               b);
        most_in_flight = std::max(most_in_flight, in_flight.size());
    }
    while (!in_flight.empty()) {
        gpu->complete(in_flight.front().first);
        in_flight.pop_front();
    }
    EXPECT_EQ(most_in_flight, gpu->max_in_flight());
    std::size_t wrong = 0;
    for (std::size_t b = 0; b < results.size(); ++b) {
        for (std::size_t i = 0; i < results[b].pages.size(); ++i) {
            const std::size_t page = b * 512 + i;
            const CompressedPage& stored = results[b].pages[i];
            Page restored{};
            const bool ok =
                (stored.encoding == PageEncoding::SameFilled &&
                 filled_with(pages[page], stored.fill_word)) ||
                (stored.encoding == PageEncoding::Raw && stored.size == PAGE_SIZE) ||
                (stored.encoding == PageEncoding::Lz4 &&
                 LZ4_decompress_safe(reinterpret_cast<const char*>(out[page]),
                                     reinterpret_cast<char*>(restored.data()),
                                     static_cast<int>(stored.size), PAGE_SIZE) == PAGE_SIZE &&
                 restored == pages[page]);
            wrong += ok ? 0 : 1;
        }
    }
    EXPECT_EQ(wrong, 0u);
    const GpuHostWork work = gpu->host_work();
    EXPECT_EQ(work.bytes_copied, 0u);
    EXPECT_EQ(work.descriptor_bytes, pages.size() * 16);
    EXPECT_EQ(work.pages_in_place, pages.size());
    EXPECT_EQ(work.outputs_in_place, pages.size());
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// Decompression from a registered payload into registered pages: one DMA of
// compressed bytes up, pages written by the device where they belong.
TEST_F(GpuPipeline, DecompressionGoesStraightBetweenRegisteredAreas) {
    const auto pages = cycled(corpus_pages(100), 3000);
    GpuBatchConfig config;
    config.batch_size = 1024;
    auto gpu = GpuBatchCompressor::create(config);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    ASSERT_EQ(count_wrong_pages(batch, pages), 0u);
    batch.payload.reserve(batch.payload.size() + PAGE_SIZE);
    ASSERT_TRUE(gpu->register_host_region({batch.payload.data(), batch.payload.size()}));
    AlignedPages restored(std::vector<Page>(pages.size()));
    ASSERT_TRUE(gpu->register_output_region({restored.page(0), pages.size() * PAGE_SIZE}));
    std::vector<std::uint8_t*> into;
    for (std::size_t i = 0; i < pages.size(); ++i)
        into.push_back(restored.page(i));
    const std::uint64_t copied_before = gpu->host_work().bytes_copied;
    gpu->decompress(batch, into);
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored.page(i), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu->host_work().bytes_copied, copied_before) << "the host copied bytes";
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// Every kernel the backend carries runs on the device and gives byte for
// byte what the host emulation of its source gives.
TEST_F(GpuPipeline, EveryKernelEqualsItsHostEmulation) {
    const auto pages = corpus_pages(300);
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        SCOPED_TRACE(std::string(to_string(kernel)));
        GpuBatchConfig config;
        config.kernel = kernel;
        auto gpu = GpuBatchCompressor::create(config);
        BatchResult batch;
        gpu->compress(pointers_to(pages), batch);
        EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const auto host = compress_on_host(pages[i], DEFAULT_HUGE_THRESHOLD,
                                               kernels::LaneOrder::Ascending, kernel);
            const CompressedPage& page = batch.pages[i];
            bool same =
                page.encoding == host.descriptor.encoding && page.size == host.descriptor.size;
            if (same && page.encoding == PageEncoding::Lz4)
                same = std::ranges::equal(batch.bytes(page), host.bytes);
            if (same && page.encoding == PageEncoding::SameFilled)
                same = page.fill_word == host.descriptor.fill_word;
            differing += same ? 0 : 1;
        }
        EXPECT_EQ(differing, 0u);
        EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
    }
}

}  // namespace
}  // namespace ozram::testing
