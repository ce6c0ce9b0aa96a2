#include "page_check.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include "bench_test_pages.hpp"

namespace ozram::bench {
namespace {

// A one-page BatchResult holding `page` as an LZ4 block made by liblz4.
BatchResult lz4_result(const Page& page) {
    BatchResult result;
    result.payload.resize(LZ4_compressBound(PAGE_SIZE));
    const int size = LZ4_compress_default(reinterpret_cast<const char*>(page.data()),
                                          reinterpret_cast<char*>(result.payload.data()), PAGE_SIZE,
                                          static_cast<int>(result.payload.size()));
    result.pages.push_back(CompressedPage{
        .encoding = PageEncoding::Lz4, .offset = 0, .size = static_cast<std::uint32_t>(size)});
    return result;
}

TEST(PageCheck, Lz4PageThatDecodesToTheOriginalPasses) {
    const auto pages = testing::mixed_pages(1);
    const auto result = lz4_result(pages[0]);
    EXPECT_TRUE(stored_page_matches(result, 0, pages[0].data()));
}

TEST(PageCheck, CorruptLz4PageFails) {
    const auto pages = testing::mixed_pages(1);
    auto result = lz4_result(pages[0]);
    // Every single-byte flip must be caught: either liblz4 rejects the block
    // or it decodes to different bytes.
    for (std::uint32_t i = 0; i < result.pages[0].size; ++i) {
        result.payload[i] ^= 0x40;
        EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data())) << "flip at " << i;
        result.payload[i] ^= 0x40;
    }
}

TEST(PageCheck, Lz4PageOfAnotherPageFails) {
    const auto pages = testing::mixed_pages(5);
    EXPECT_FALSE(stored_page_matches(lz4_result(pages[0]), 0, pages[4].data()));
}

TEST(PageCheck, RawPageMustHoldTheOriginal) {
    const auto pages = testing::mixed_pages(2);
    BatchResult result;
    result.payload.assign(pages[1].begin(), pages[1].end());
    result.pages.push_back(
        CompressedPage{.encoding = PageEncoding::Raw, .offset = 0, .size = PAGE_SIZE});
    EXPECT_TRUE(stored_page_matches(result, 0, pages[1].data()));
    result.payload[100] ^= 1;
    EXPECT_FALSE(stored_page_matches(result, 0, pages[1].data()));
    result.payload[100] ^= 1;
    result.pages[0].size = PAGE_SIZE - 1;
    EXPECT_FALSE(stored_page_matches(result, 0, pages[1].data()));
}

TEST(PageCheck, SameFilledPageMustRepeatItsWord) {
    const auto pages = testing::mixed_pages(4);
    BatchResult result;
    result.pages.push_back(
        CompressedPage{.encoding = PageEncoding::SameFilled, .fill_word = 0x1122334455667702ULL});
    EXPECT_TRUE(stored_page_matches(result, 0, pages[2].data()));
    result.pages[0].fill_word ^= 1ULL << 40;
    EXPECT_FALSE(stored_page_matches(result, 0, pages[2].data()));
    result.pages[0].fill_word = 0;
    EXPECT_TRUE(stored_page_matches(result, 0, pages[3].data()));
    EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data()));
}

TEST(PageCheck, BytesOutsideThePayloadFailWithoutBeingRead) {
    const auto pages = testing::mixed_pages(1);
    auto result = lz4_result(pages[0]);
    result.pages[0].offset = static_cast<std::uint32_t>(result.payload.size());
    EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data()));
    result.pages[0].offset = 0xFFFFFFF0U;
    EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data()));
    EXPECT_FALSE(stored_page_matches(result, 1, pages[0].data()));  // no page 1
}

TEST(PageCheck, UnknownEncodingFails) {
    const auto pages = testing::mixed_pages(1);
    auto result = lz4_result(pages[0]);
    result.pages[0].encoding = static_cast<PageEncoding>(7);
    EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data()));
}

}  // namespace
}  // namespace ozram::bench
