// Round trips through both CPU backends, checked page by page against liblz4.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ozram/backend.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

struct Variant {
    Backend backend;
    unsigned threads;
};

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
    return std::string(to_string(info.param.backend)) + "_threads" +
           std::to_string(info.param.threads);
}

class CpuRoundTrip : public testing::TestWithParam<Variant> {
  protected:
    [[nodiscard]] std::unique_ptr<PageCompressor> make(CpuConfig config = {}) const {
        config.threads = GetParam().threads;
        return make_cpu_compressor(GetParam().backend, config);
    }
};

INSTANTIATE_TEST_SUITE_P(Backends, CpuRoundTrip,
                         testing::Values(Variant{Backend::Scalar, 0}, Variant{Backend::Cpu, 0},
                                         Variant{Backend::Cpu, 1}, Variant{Backend::Cpu, 2},
                                         Variant{Backend::Cpu, 7}),
                         variant_name);

TEST_P(CpuRoundTrip, ReportsItsBackend) {
    EXPECT_EQ(make()->backend(), GetParam().backend);
}

TEST_P(CpuRoundTrip, ZeroPagesAreSameFilled) {
    const std::vector<Page> pages(64, test::filled_page(0));
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.same_filled, 64u);
}

TEST_P(CpuRoundTrip, NonZeroWordsAreSameFilled) {
    std::vector<Page> pages;
    for (const std::uint64_t word :
         {0x1ULL, 0xffffffffffffffffULL, 0xdeadbeefdeadbeefULL, 0x0123456789abcdefULL}) {
        pages.push_back(test::filled_page(word));
    }
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.same_filled, pages.size());
}

TEST_P(CpuRoundTrip, AlmostSameFilledIsCompressed) {
    // Same-filled except the last byte: must not be mistaken for the word.
    std::vector<Page> pages{test::filled_page(0), test::filled_page(0x4242424242424242ULL)};
    for (Page& page : pages) {
        page.back() ^= 0xff;
    }
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.same_filled, 0u);
    EXPECT_EQ(counts.lz4, 2u);
}

TEST_P(CpuRoundTrip, TextPagesCompress) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
        pages.push_back(test::text_page(seed));
    }
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.lz4, pages.size());
}

TEST_P(CpuRoundTrip, RandomPagesAreRaw) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
        pages.push_back(test::random_page(seed));
    }
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.raw, pages.size());
}

TEST_P(CpuRoundTrip, MixedBatchKeepsOrder) {
    std::mt19937_64 rng(7);
    std::vector<Page> pages;
    test::EncodingCounts expected;
    for (int i = 0; i < 1000; ++i) {
        switch (rng() % 3) {
            case 0:
                pages.push_back(test::filled_page(rng() % 4));
                ++expected.same_filled;
                break;
            case 1:
                pages.push_back(test::text_page(rng()));
                ++expected.lz4;
                break;
            default:
                pages.push_back(test::random_page(rng()));
                ++expected.raw;
                break;
        }
    }
    const auto counts = test::expect_round_trip(*make(), pages);
    EXPECT_EQ(counts.same_filled, expected.same_filled);
    EXPECT_EQ(counts.lz4, expected.lz4);
    EXPECT_EQ(counts.raw, expected.raw);
}

TEST_P(CpuRoundTrip, ReusedResultAcrossBatchSizes) {
    const auto compressor = make();
    BatchResult result;
    for (const std::size_t size : {300u, 5u, 300u, 0u, 64u}) {
        std::vector<Page> pages;
        for (std::size_t i = 0; i < size; ++i) {
            pages.push_back(i % 2 ? test::text_page(size + i) : test::random_page(size + i));
        }
        compressor->compress(test::pointers(pages), result);
        test::expect_faithful(result, pages);
    }
}

TEST_P(CpuRoundTrip, PagesAtUnalignedAddresses) {
    // A corpus file or ring slot need not be 8-byte aligned.
    std::vector<std::uint8_t> storage(3 * PAGE_SIZE + 3);
    std::vector<Page> originals{test::text_page(1), test::filled_page(9), test::random_page(2)};
    std::vector<const std::uint8_t*> in;
    for (std::size_t i = 0; i < originals.size(); ++i) {
        std::uint8_t* at = storage.data() + 1 + i * PAGE_SIZE;
        std::copy(originals[i].begin(), originals[i].end(), at);
        in.push_back(at);
    }
    BatchResult result;
    make()->compress(in, result);
    const auto counts = test::expect_faithful(result, originals);
    EXPECT_EQ(counts.lz4, 1u);
    EXPECT_EQ(counts.same_filled, 1u);
    EXPECT_EQ(counts.raw, 1u);
}

TEST_P(CpuRoundTrip, HighAccelerationStillRoundTrips) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        pages.push_back(test::text_page(seed));
    }
    test::expect_round_trip(*make(CpuConfig{.lz4_acceleration = 64}), pages);
}

}  // namespace
}  // namespace ozram
