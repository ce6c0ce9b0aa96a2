// The timeline of the streams (GpuBatchCompressor::keep_timeline) on the
// emulated device, whose events take their times from one counter as the
// device runs them: one note a chunk, on its own stream, with its stages in
// the order they ran, and nothing kept unless asked.
#include <set>

#include "gpu_host_support.hpp"

namespace ozram::gpu::test {
namespace {

void expect_stages_in_order(const GpuTimelineEntry& entry) {
    EXPECT_LT(entry.start_ns, entry.uploaded_ns);
    EXPECT_LT(entry.uploaded_ns, entry.computed_ns);
    EXPECT_LT(entry.computed_ns, entry.end_ns);
}

TEST(GpuTimeline, NothingIsKeptUnlessAsked) {
    auto [device, gpu] = emulated_gpu({.batch_size = 16});
    const auto pages = mixed_pages(40);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_TRUE(gpu->take_timeline().empty());
}

TEST(GpuTimeline, EachChunkIsNotedWithItsStreamAndItsStagesInOrder) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    gpu->keep_timeline(true);
    ThreeBatches three;
    const auto tickets = three.submit(*gpu);
    for (const std::size_t b : {2u, 0u, 1u})
        gpu->complete(tickets[b]);

    const auto timeline = gpu->take_timeline();
    ASSERT_EQ(timeline.size(), 3u);
    std::set<std::uint32_t> streams;
    for (const GpuTimelineEntry& entry : timeline) {
        EXPECT_EQ(entry.pages, 32u);
        EXPECT_FALSE(entry.decompress);
        expect_stages_in_order(entry);
        streams.insert(entry.stream);
    }
    EXPECT_EQ(streams, (std::set<std::uint32_t>{0, 1, 2}))
        << "three batches in flight, three streams";
    EXPECT_TRUE(gpu->take_timeline().empty()) << "taken once";

    // A decompression of 96 pages in chunks of 32: three notes, so marked.
    BatchResult whole;
    gpu->compress(three.inputs, whole);
    (void)gpu->take_timeline();
    std::vector<Page> restored(three.pages.size());
    std::vector<std::uint8_t*> destinations;
    for (Page& page : restored)
        destinations.push_back(page.data());
    gpu->decompress(whole, destinations);
    const auto restoring = gpu->take_timeline();
    ASSERT_EQ(restoring.size(), 3u);
    std::uint32_t restored_pages = 0;
    for (const GpuTimelineEntry& entry : restoring) {
        EXPECT_TRUE(entry.decompress);
        expect_stages_in_order(entry);
        restored_pages += entry.pages;
    }
    EXPECT_EQ(restored_pages, 96u);
    EXPECT_EQ(restored, three.pages);

    gpu->keep_timeline(false);
    gpu->compress(three.inputs, whole);
    EXPECT_TRUE(gpu->take_timeline().empty()) << "no notes once stopped";
}

}  // namespace
}  // namespace ozram::gpu::test
