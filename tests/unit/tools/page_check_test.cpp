#include "page_check.hpp"

#include <gtest/gtest.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include <vector>

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

// A one-page BatchResult holding `page` as a Compressed block of another
// format, made by that format's library.
BatchResult compressed_result(const Page& page, Algorithm algorithm) {
    BatchResult result;
    result.payload.resize(2 * PAGE_SIZE);
    std::size_t size = 0;
    if (algorithm == Algorithm::Zstd) {
        size =
            ZSTD_compress(result.payload.data(), result.payload.size(), page.data(), PAGE_SIZE, 3);
        EXPECT_FALSE(ZSTD_isError(size));
    } else {
        EXPECT_EQ(lzo_init(), LZO_E_OK);
        std::vector<std::uint8_t> work(LZO1X_1_MEM_COMPRESS);
        lzo_uint n = result.payload.size();
        EXPECT_EQ(lzo1x_1_compress(page.data(), PAGE_SIZE, result.payload.data(), &n, work.data()),
                  LZO_E_OK);
        size = n;
    }
    result.payload.resize(size);
    result.pages.push_back(CompressedPage{.encoding = PageEncoding::Compressed,
                                          .offset = 0,
                                          .size = static_cast<std::uint32_t>(size)});
    return result;
}

// Whether the format's library, called here directly, decodes the block of
// page 0 to exactly `page`.
bool decodes_to(Algorithm algorithm, const BatchResult& result, const Page& page) {
    Page out{};
    std::size_t n = 0;
    if (algorithm == Algorithm::Zstd) {
        n = ZSTD_decompress(out.data(), PAGE_SIZE, result.payload.data(), result.pages[0].size);
        if (ZSTD_isError(n)) {
            return false;
        }
    } else {
        lzo_uint len = PAGE_SIZE;
        if (lzo1x_decompress_safe(result.payload.data(), result.pages[0].size, out.data(), &len,
                                  nullptr) != LZO_E_OK) {
            return false;
        }
        n = len;
    }
    return n == PAGE_SIZE && out == page;
}

TEST(PageCheck, CompressedPagesAreDecodedByTheirFormatsLibrary) {
    const auto pages = testing::mixed_pages(5);
    for (const auto algorithm : {Algorithm::Zstd, Algorithm::Lzo}) {
        auto result = compressed_result(pages[0], algorithm);
        EXPECT_TRUE(stored_page_matches(result, 0, pages[0].data(), algorithm));
        // Another page, another format, or LZ4 (whose pages are never
        // "Compressed") fail.
        EXPECT_FALSE(stored_page_matches(result, 0, pages[4].data(), algorithm));
        EXPECT_FALSE(
            stored_page_matches(result, 0, pages[0].data(),
                                algorithm == Algorithm::Zstd ? Algorithm::Lzo : Algorithm::Zstd));
        EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data(), Algorithm::Lz4));
        EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data()));
        // A flipped byte passes only if the library itself still decodes the
        // block to the original (zstd has bits a decoder may ignore, such as
        // weights of unused symbols); nearly every flip is caught.
        std::size_t caught = 0;
        for (std::uint32_t i = 0; i < result.pages[0].size; ++i) {
            result.payload[i] ^= 0x40;
            const bool passes = stored_page_matches(result, 0, pages[0].data(), algorithm);
            EXPECT_EQ(passes, decodes_to(algorithm, result, pages[0]))
                << to_string(algorithm) << " flip at " << i;
            caught += !passes;
            result.payload[i] ^= 0x40;
        }
        EXPECT_GE(caught * 10, result.pages[0].size * 9) << to_string(algorithm);
        // zstd's magic number, LZO's first code.
        result.payload[0] ^= 0x40;
        EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data(), algorithm));
        result.payload[0] ^= 0x40;
        EXPECT_TRUE(stored_page_matches(result, 0, pages[0].data(), algorithm));
        // A block cut short fails.
        result.pages[0].size -= 1;
        EXPECT_FALSE(stored_page_matches(result, 0, pages[0].data(), algorithm));
    }
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
