// window-lanes-11 makes window-11's choices with the lanes doing each
// sequence's work: its block must be window-11's, byte for byte, on every
// page and at every limit, in either lane order.
#include <gtest/gtest.h>

#include <cstdint>

#include "host_codec.hpp"

namespace ozram::testing {
namespace {

using kernels::CompressKernel;
using kernels::LaneOrder;

void expect_same_block(const Page& page, std::uint32_t threshold, LaneOrder order) {
    const auto window = compress_on_host(page, threshold, order, CompressKernel::Window11);
    const auto lanes = compress_on_host(page, threshold, order, CompressKernel::WindowLanes11);
    ASSERT_EQ(lanes.descriptor.encoding, window.descriptor.encoding);
    ASSERT_EQ(lanes.descriptor.size, window.descriptor.size);
    ASSERT_EQ(lanes.descriptor.fill_word, window.descriptor.fill_word);
    ASSERT_EQ(lanes.bytes, window.bytes);
}

// Limits from tight (most pages go raw, some in their last window) to a
// whole page.
constexpr std::uint32_t THRESHOLDS[] = {64, 700, 1500, 3071, PAGE_SIZE};

TEST(WindowLanes, CorpusPagesGetWindow11sBlock) {
    for (const auto& [kind, page] : page_corpus(400)) {
        SCOPED_TRACE(kind);
        for (const std::uint32_t threshold : THRESHOLDS) {
            SCOPED_TRACE(threshold);
            expect_same_block(page, threshold, LaneOrder::Ascending);
            expect_same_block(page, threshold, LaneOrder::Descending);
        }
    }
}

// Matches of every length and distance, ending anywhere, long ones that run
// past the lanes' own comparison and ones that extend backwards.
TEST(WindowLanes, PatchworkPagesGetWindow11sBlock) {
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        SCOPED_TRACE(seed);
        const Page page = patchwork_page(seed);
        for (const std::uint32_t threshold : THRESHOLDS)
            expect_same_block(page, threshold, LaneOrder::Ascending);
    }
}

}  // namespace
}  // namespace ozram::testing
