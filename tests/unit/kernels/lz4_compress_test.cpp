// Every compression kernel, run through the emulated warp: every output is a
// valid LZ4 block that liblz4 decodes to the input, the flags are right, and
// the ratio keeps up with LZ4_compress_default.
#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "host_codec.hpp"
#include "ozram/backend.hpp"

namespace ozram::testing {
namespace {

constexpr std::uint32_t DEFAULT_THRESHOLD = DEFAULT_HUGE_THRESHOLD;
constexpr std::size_t REAL_PAGES = 400;

bool reference_same_filled(const Page& page, std::uint64_t& word) {
    std::memcpy(&word, page.data(), 8);
    for (std::size_t i = 8; i < page.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, &page[i], 8);
        if (w != word)
            return false;
    }
    return true;
}

int liblz4_size(const Page& page) {
    std::vector<char> out(LZ4_compressBound(page.size()));
    return LZ4_compress_default(reinterpret_cast<const char*>(page.data()), out.data(),
                                static_cast<int>(page.size()), static_cast<int>(out.size()));
}

const std::vector<NamedPage>& corpus() {
    static const std::vector<NamedPage> pages = page_corpus(REAL_PAGES);
    return pages;
}

// The encoders' division by 255 is a multiply and a shift: exact for every
// length a page can have, and beyond.
TEST(KernelCompress, DivisionBy255IsExactForEveryLength) {
    for (std::uint32_t n = 0; n < 65536; ++n)
        ASSERT_EQ(kernels::lz4::divide_by_255(n), n / 255) << n;
}

TEST(KernelCompress, CorpusHasEveryKind) {
    std::map<std::string, int> kinds;
    for (const auto& page : corpus())
        ++kinds[page.kind];
    for (const char* kind : {"zero", "same-filled", "random", "text", "mixed", "periodic", "real"})
        EXPECT_GT(kinds[kind], 0) << kind;
    EXPECT_GE(kinds["real"], 300);
}

class KernelCompressEach : public ::testing::TestWithParam<kernels::CompressKernel> {
  protected:
    HostCompressed compress(const Page& page, std::uint32_t threshold,
                            kernels::LaneOrder order = kernels::LaneOrder::Ascending) const {
        return compress_on_host(page, threshold, order, GetParam());
    }
    // A page goes raw only where liblz4's block is nearly as long: within
    // 2 % with liblz4's table size, 5 % with a 2^10-entry table, which finds
    // fewer matches on a dense page (a page, not the aggregate: that is
    // within 2 % for every kernel, below).
    int raw_floor(std::uint32_t threshold) const {
        const double share = kernels::hash_log(GetParam()) >= 11 ? 0.98 : 0.95;
        return static_cast<int>(threshold * share);
    }
};

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelCompressEach,
                         ::testing::ValuesIn(kernels::ALL_COMPRESS_KERNELS),
                         [](const ::testing::TestParamInfo<kernels::CompressKernel>& info) {
                             std::string name(ozram::to_string(info.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST_P(KernelCompressEach, EveryPageDecodesWithLiblz4AndIsFlaggedRight) {
    std::size_t lz4_pages = 0;
    for (const auto& [kind, page] : corpus()) {
        SCOPED_TRACE(kind);
        const auto result = compress(page, DEFAULT_THRESHOLD);
        ASSERT_EQ(result.descriptor.status, kernels::PAGE_OK);
        std::uint64_t word = 0;
        if (reference_same_filled(page, word)) {
            EXPECT_EQ(result.descriptor.encoding, PageEncoding::SameFilled);
            EXPECT_EQ(result.descriptor.fill_word, word);
            EXPECT_EQ(result.descriptor.size, 0u);
            continue;
        }
        if (result.descriptor.encoding == PageEncoding::Raw) {
            EXPECT_EQ(result.descriptor.size, PAGE_SIZE);
            EXPECT_EQ(0, std::memcmp(result.bytes.data(), page.data(), page.size()));
            EXPECT_GE(liblz4_size(page), raw_floor(DEFAULT_THRESHOLD));
            continue;
        }
        ASSERT_EQ(result.descriptor.encoding, PageEncoding::Lz4);
        ++lz4_pages;
        EXPECT_GT(result.descriptor.size, 0u);
        EXPECT_LE(result.descriptor.size, DEFAULT_THRESHOLD);
        Page decoded{};
        const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(result.bytes.data()),
                                          reinterpret_cast<char*>(decoded.data()),
                                          static_cast<int>(result.bytes.size()),
                                          static_cast<int>(decoded.size()));
        ASSERT_EQ(n, static_cast<int>(PAGE_SIZE));
        ASSERT_EQ(decoded, page);
    }
    EXPECT_GT(lz4_pages, 200u);
}

// The device runs the lanes of a section in no particular order: the
// output must not depend on it.
TEST_P(KernelCompressEach, OutputDoesNotDependOnLaneOrder) {
    for (const auto& [kind, page] : corpus()) {
        SCOPED_TRACE(kind);
        const auto up = compress(page, DEFAULT_THRESHOLD, kernels::LaneOrder::Ascending);
        const auto down = compress(page, DEFAULT_THRESHOLD, kernels::LaneOrder::Descending);
        ASSERT_EQ(up.descriptor.encoding, down.descriptor.encoding);
        ASSERT_EQ(up.descriptor.size, down.descriptor.size);
        ASSERT_EQ(up.bytes, down.bytes);
    }
}

// Many pages with matches of every length and distance ending anywhere:
// every block must still decode with liblz4, under both raw thresholds.
TEST_P(KernelCompressEach, PatchworkPagesDecodeWithLiblz4) {
    for (std::uint64_t seed = 1; seed <= 1500; ++seed) {
        SCOPED_TRACE(seed);
        const Page page = patchwork_page(seed);
        for (const std::uint32_t threshold : {DEFAULT_THRESHOLD, std::uint32_t{PAGE_SIZE}}) {
            const auto result = compress(page, threshold);
            if (result.descriptor.encoding == PageEncoding::SameFilled)
                continue;
            if (result.descriptor.encoding != PageEncoding::Lz4) {
                ASSERT_EQ(result.descriptor.encoding, PageEncoding::Raw);
                ASSERT_GE(liblz4_size(page), raw_floor(threshold));
                continue;
            }
            Page decoded{};
            ASSERT_EQ(LZ4_decompress_safe(reinterpret_cast<const char*>(result.bytes.data()),
                                          reinterpret_cast<char*>(decoded.data()),
                                          static_cast<int>(result.bytes.size()),
                                          static_cast<int>(decoded.size())),
                      static_cast<int>(PAGE_SIZE));
            ASSERT_EQ(decoded, page);
            Page ours{};
            ASSERT_EQ(decompress_on_host(result.bytes, result.descriptor, ours), kernels::PAGE_OK);
            ASSERT_EQ(ours, page);
        }
    }
}

TEST_P(KernelCompressEach, RandomPagesAreRaw) {
    for (std::uint64_t seed = 100; seed < 110; ++seed) {
        const auto result = compress(random_page(seed), DEFAULT_THRESHOLD);
        EXPECT_EQ(result.descriptor.encoding, PageEncoding::Raw);
    }
}

TEST_P(KernelCompressEach, ZeroAndSameFilledPagesCarryTheirWord) {
    EXPECT_EQ(compress(zero_page(), DEFAULT_THRESHOLD).descriptor.encoding,
              PageEncoding::SameFilled);
    const auto result = compress(same_filled_page(0x1122334455667788ull), 0);
    EXPECT_EQ(result.descriptor.encoding, PageEncoding::SameFilled);
    EXPECT_EQ(result.descriptor.fill_word, 0x1122334455667788ull);
}

TEST_P(KernelCompressEach, HugeThresholdDecidesRaw) {
    const Page page = text_page(7);
    const auto full = compress(page, PAGE_SIZE);
    ASSERT_EQ(full.descriptor.encoding, PageEncoding::Lz4);
    // The threshold is the largest block kept: exactly at the compressed size,
    // LZ4; one below, raw.
    EXPECT_EQ(compress(page, full.descriptor.size).descriptor.encoding, PageEncoding::Lz4);
    EXPECT_EQ(compress(page, full.descriptor.size - 1).descriptor.encoding, PageEncoding::Raw);
    EXPECT_EQ(compress(page, 0).descriptor.encoding, PageEncoding::Raw);
}

// Aggregate compressed size against LZ4_compress_default (acceleration 1) on
// the pages that matter: within 2%.  Deterministic: a size count, not a timing.
void expect_ratio_close_to_liblz4(const char* kind, kernels::CompressKernel kernel) {
    std::uint64_t ours = 0, theirs = 0;
    std::size_t pages = 0;
    for (const auto& page : corpus()) {
        if (page.kind != kind)
            continue;
        std::uint64_t word;
        if (reference_same_filled(page.bytes, word))
            continue;
        const auto result =
            compress_on_host(page.bytes, PAGE_SIZE, kernels::LaneOrder::Ascending, kernel);
        ours += result.descriptor.size;
        theirs += std::min<std::uint64_t>(liblz4_size(page.bytes), PAGE_SIZE);
        ++pages;
    }
    ASSERT_GT(pages, 0u);
    const double ratio = static_cast<double>(ours) / static_cast<double>(theirs);
    std::printf("%s, %s: %zu pages, ours %llu bytes, liblz4 %llu bytes, ours/liblz4 = %.4f\n",
                std::string(ozram::to_string(kernel)).c_str(), kind, pages,
                static_cast<unsigned long long>(ours), static_cast<unsigned long long>(theirs),
                ratio);
    EXPECT_LE(ratio, 1.02);
}

TEST_P(KernelCompressEach, TextRatioWithinTwoPercentOfLiblz4) {
    expect_ratio_close_to_liblz4("text", GetParam());
}
TEST_P(KernelCompressEach, RealRatioWithinTwoPercentOfLiblz4) {
    expect_ratio_close_to_liblz4("real", GetParam());
}
TEST_P(KernelCompressEach, MixedRatioWithinTwoPercentOfLiblz4) {
    expect_ratio_close_to_liblz4("mixed", GetParam());
}

// The product's bar, as the GPU tests hold the default kernel to it on a
// device: stored bytes (a block over the huge threshold is stored whole, as
// zram stores it) against liblz4's, on text pages and this binary's pages,
// at least 0.98 of liblz4's ratio.  Stored sizes magnify small differences
// near the threshold, which the aggregate checks above do not see.
TEST(KernelCompress, DefaultKernelStoresWithin98PercentOfLiblz4sRatio) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 1; seed <= 200; ++seed)
        pages.push_back(text_page(seed));
    for (auto& page : real_pages(REAL_PAGES))
        pages.push_back(page);
    std::uint64_t ours = 0, theirs = 0;
    for (const Page& page : pages) {
        std::uint64_t word;
        if (reference_same_filled(page, word))
            continue;
        ours += compress_on_host(page, DEFAULT_THRESHOLD).descriptor.size;
        const auto size = static_cast<std::uint64_t>(liblz4_size(page));
        theirs += size <= DEFAULT_THRESHOLD ? size : PAGE_SIZE;
    }
    const double share = static_cast<double>(theirs) / static_cast<double>(ours);
    std::printf("%s on %zu pages: stored %llu bytes, liblz4 %llu: %.4f of liblz4's ratio\n",
                std::string(ozram::to_string(kernels::DEFAULT_COMPRESS_KERNEL)).c_str(),
                pages.size(), static_cast<unsigned long long>(ours),
                static_cast<unsigned long long>(theirs), share);
    EXPECT_GE(share, 0.98);
}

}  // namespace
}  // namespace ozram::testing
