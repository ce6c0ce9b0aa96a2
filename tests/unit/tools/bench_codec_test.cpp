// The benchmark's codecs: they must round-trip real backends and catch
// backends that do not.
#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "bench_test_pages.hpp"
#include "codec.hpp"
#include "measurement.hpp"
#include "ozram/error.hpp"

namespace ozram::bench {
namespace {

constexpr std::size_t PAGES = 37;  // not a multiple of the batch sizes below

// Wraps a real backend and damages its output, as a buggy backend would.
class DamagingCompressor final : public PageCompressor {
  public:
    enum class Damage { PayloadByte, RestoredByte, ThrowOnDecompress };

    DamagingCompressor(Damage damage, std::size_t victim)
        : inner_(make_cpu_compressor(Backend::Scalar)), damage_(damage), victim_(victim) {}

    Backend backend() const override { return Backend::Scalar; }

    void compress(std::span<const std::uint8_t* const> pages, BatchResult& out) override {
        inner_->compress(pages, out);
        first_ = seen_;
        seen_ += pages.size();
        if (damage_ == Damage::PayloadByte && holds_victim(pages.size())) {
            auto& page = out.pages[victim_ - first_];
            out.payload[page.offset + page.size / 2] ^= 0x10;
        }
    }

    // The bench measures compress(); this one is not what it tests.
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, BatchResult& out) override {
        inner_->compress_into(pages, outputs, out);
    }

    void decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) override {
        if (damage_ == Damage::ThrowOnDecompress && holds_victim(pages.size())) {
            throw Error(EIO, "page " + std::to_string(victim_ - first_) + " is corrupt");
        }
        if (damage_ == Damage::PayloadByte && holds_victim(pages.size())) {
            // Restore the right bytes, so that only the independent check of
            // the stored form can notice.
            auto copy = in;
            auto& page = copy.pages[victim_ - first_];
            copy.payload[page.offset + page.size / 2] ^= 0x10;
            inner_->decompress(copy, pages);
            return;
        }
        inner_->decompress(in, pages);
        if (damage_ == Damage::RestoredByte && holds_victim(pages.size())) {
            pages[victim_ - first_][123] ^= 1;
        }
    }

  private:
    bool holds_victim(std::size_t n) const { return victim_ >= first_ && victim_ < first_ + n; }

    std::unique_ptr<PageCompressor> inner_;
    Damage damage_;
    std::size_t victim_;
    std::size_t first_ = 0;
    std::size_t seen_ = 0;
};

std::size_t count_failed(const std::vector<bool>& failed) {
    return static_cast<std::size_t>(std::count(failed.begin(), failed.end(), true));
}

TEST(BenchCodec, LibraryBackendsRoundTripEveryPage) {
    const auto pages = testing::mixed_pages(PAGES);
    const auto input = testing::pointers(pages);
    for (const auto backend : {Backend::Scalar, Backend::Cpu}) {
        auto codec = make_library_codec("x", make_cpu_compressor(backend, {.threads = 2}), 2);
        for (const std::size_t batch : {1, 4, 16, 1024}) {
            std::vector<bool> failed(PAGES);
            const auto pass = codec->run_pass(input, batch, failed);
            EXPECT_EQ(count_failed(failed), 0U) << to_string(backend) << " batch " << batch;
            EXPECT_GT(pass.bytes_out, 0U);
            EXPECT_LT(pass.bytes_out, PAGES * PAGE_SIZE);
            // mixed_pages(): every fourth page random, and every second page
            // a repeated word (zeros included).
            EXPECT_EQ(pass.raw_pages, (PAGES + 2) / 4);
            EXPECT_EQ(pass.same_filled_pages, PAGES / 4 + (PAGES + 1) / 4);
        }
    }
}

TEST(BenchCodec, Liblz4ReferenceStoresWhatLiblz4Makes) {
    const auto pages = testing::mixed_pages(PAGES);
    const auto input = testing::pointers(pages);
    std::uint64_t expected = 0;
    std::vector<char> block(LZ4_compressBound(PAGE_SIZE));
    for (const auto* page : input) {
        expected += static_cast<std::uint64_t>(
            LZ4_compress_default(reinterpret_cast<const char*>(page), block.data(), PAGE_SIZE,
                                 static_cast<int>(block.size())));
    }
    for (const unsigned threads : {1U, 3U}) {
        auto codec = make_liblz4_codec(threads);
        EXPECT_EQ(codec->name(), "liblz4-" + std::to_string(threads));
        for (const std::size_t batch : {1, 5, 64}) {
            std::vector<bool> failed(PAGES);
            const auto pass = codec->run_pass(input, batch, failed);
            EXPECT_EQ(count_failed(failed), 0U);
            EXPECT_EQ(pass.bytes_out, expected);
            EXPECT_EQ(pass.raw_pages + pass.same_filled_pages, 0U);  // all LZ4 blocks
        }
    }
}

constexpr Algorithm EVERY_ALGORITHM[] = {Algorithm::Lz4, Algorithm::Lz4hc, Algorithm::Lzo,
                                         Algorithm::LzoRle, Algorithm::Zstd};

TEST(BenchCodec, ReferenceOfEveryFormatRoundTripsThroughItsLibrary) {
    const auto pages = testing::mixed_pages(PAGES);
    const auto input = testing::pointers(pages);
    for (const auto algorithm : EVERY_ALGORITHM) {
        for (const unsigned threads : {1U, 3U}) {
            auto codec = make_reference_codec(algorithm, threads);
            EXPECT_EQ(codec->name(), reference_library(algorithm) + "-" + std::to_string(threads));
            for (const std::size_t batch : {1, 5, 64}) {
                std::vector<bool> failed(PAGES);
                const auto pass = codec->run_pass(input, batch, failed);
                EXPECT_EQ(count_failed(failed), 0U) << to_string(algorithm) << " batch " << batch;
                EXPECT_GT(pass.bytes_out, 0U);
                EXPECT_EQ(pass.raw_pages + pass.same_filled_pages, 0U);
            }
        }
    }
    EXPECT_EQ(reference_library(Algorithm::Lz4hc), "liblz4hc");
    EXPECT_EQ(reference_library(Algorithm::LzoRle), "liblzo2");
    EXPECT_EQ(reference_library(Algorithm::Zstd), "libzstd");
}

// On pages that all compress, the backends in each format store what the
// format's library alone stores, to the byte: the same ratio.
TEST(BenchCodec, BackendsStoreWhatTheReferenceLibraryStores) {
    const auto mixed = testing::mixed_pages(4 * PAGES);
    std::vector<const std::uint8_t*> text;
    for (std::size_t i = 0; i < mixed.size(); i += 4) {
        text.push_back(mixed[i].data());  // the text pages of mixed_pages()
    }
    for (const auto algorithm : EVERY_ALGORITHM) {
        auto reference = make_reference_codec(algorithm, 2);
        auto cpu = make_library_codec(
            "cpu",
            make_cpu_compressor(
                Backend::Cpu, {.threads = 2, .huge_threshold = PAGE_SIZE, .algorithm = algorithm}),
            2, algorithm);
        std::vector<bool> failed(text.size());
        const auto expected = reference->run_pass(text, 8, failed);
        const auto got = cpu->run_pass(text, 8, failed);
        EXPECT_EQ(count_failed(failed), 0U) << to_string(algorithm);
        EXPECT_EQ(got.raw_pages + got.same_filled_pages, 0U) << to_string(algorithm);
        EXPECT_EQ(got.bytes_out, expected.bytes_out) << to_string(algorithm);
    }
}

TEST(BenchCodec, BackendsRoundTripEveryFormat) {
    const auto pages = testing::mixed_pages(PAGES);
    const auto input = testing::pointers(pages);
    for (const auto algorithm : EVERY_ALGORITHM) {
        for (const auto backend : {Backend::Scalar, Backend::Cpu}) {
            auto codec = make_library_codec(
                "x", make_cpu_compressor(backend, {.threads = 2, .algorithm = algorithm}), 2,
                algorithm);
            std::vector<bool> failed(PAGES);
            (void)codec->run_pass(input, 16, failed);
            EXPECT_EQ(count_failed(failed), 0U) << to_string(algorithm);
        }
    }
}

// Pages checked in another format than they were made in fail: the check
// decodes with the format's own library, not with whatever the backend says.
TEST(BenchCodec, PagesCheckedInTheWrongFormatFail) {
    const auto pages = testing::mixed_pages(PAGES);
    auto codec = make_library_codec(
        "x", make_cpu_compressor(Backend::Scalar, {.algorithm = Algorithm::Zstd}), 1,
        Algorithm::Lzo);
    std::vector<bool> failed(PAGES);
    (void)codec->run_pass(testing::pointers(pages), 16, failed);
    // mixed_pages(): every text page (one in four) is stored compressed; the
    // others are raw or same-filled, which do not depend on the format.
    EXPECT_EQ(count_failed(failed), (PAGES + 3) / 4);
    EXPECT_TRUE(failed[0]);
    EXPECT_FALSE(failed[1]);
}

TEST(BenchCodec, CorruptStoredPageIsCaughtEvenWhenItRestoresRight) {
    const auto pages = testing::mixed_pages(PAGES);
    const std::size_t victim = 8;  // a compressible text page: stored as LZ4
    auto codec = make_library_codec(
        "damaged",
        std::make_unique<DamagingCompressor>(DamagingCompressor::Damage::PayloadByte, victim), 1);
    std::vector<bool> failed(PAGES);
    (void)codec->run_pass(testing::pointers(pages), 4, failed);
    EXPECT_EQ(count_failed(failed), 1U);
    EXPECT_TRUE(failed[victim]);
}

TEST(BenchCodec, WrongRestoredPageIsCaught) {
    const auto pages = testing::mixed_pages(PAGES);
    const std::size_t victim = 21;
    auto codec = make_library_codec(
        "damaged",
        std::make_unique<DamagingCompressor>(DamagingCompressor::Damage::RestoredByte, victim), 1);
    std::vector<bool> failed(PAGES);
    (void)codec->run_pass(testing::pointers(pages), 16, failed);
    EXPECT_EQ(count_failed(failed), 1U);
    EXPECT_TRUE(failed[victim]);
}

TEST(BenchCodec, DecompressErrorFailsTheWholeBatchAndGoesOn) {
    const auto pages = testing::mixed_pages(PAGES);
    auto codec = make_library_codec(
        "damaged",
        std::make_unique<DamagingCompressor>(DamagingCompressor::Damage::ThrowOnDecompress, 17), 1);
    std::vector<bool> failed(PAGES);
    (void)codec->run_pass(testing::pointers(pages), 16, failed);
    EXPECT_EQ(count_failed(failed), 16U);  // the batch of pages 16..31
    EXPECT_TRUE(failed[16]);
    EXPECT_TRUE(failed[31]);
    EXPECT_FALSE(failed[15]);
    EXPECT_FALSE(failed[32]);
}

TEST(BenchMeasurement, MediansAndCountsPerCodec) {
    const auto pages = testing::mixed_pages(PAGES);
    auto good = make_liblz4_codec(2);
    auto bad = make_library_codec(
        "damaged",
        std::make_unique<DamagingCompressor>(DamagingCompressor::Damage::RestoredByte, 3), 1);
    std::vector<Codec*> codecs{good.get(), bad.get()};
    const auto rows = measure_codecs(codecs, testing::pointers(pages), 8, 3);
    ASSERT_EQ(rows.size(), 2U);
    for (const auto& row : rows) {
        EXPECT_EQ(row.pages, PAGES);
        EXPECT_EQ(row.bytes_in, PAGES * PAGE_SIZE);
        EXPECT_EQ(row.batch, 8U);
        EXPECT_EQ(row.repeats, 3U);
        EXPECT_EQ(row.verified_pages + row.mismatches, PAGES);
        EXPECT_GT(row.compress_gbps, 0.0);
        EXPECT_GT(row.decompress_gbps, 0.0);
    }
    EXPECT_EQ(rows[0].backend, "liblz4-2");
    EXPECT_EQ(rows[0].threads, 2U);
    EXPECT_EQ(rows[0].mismatches, 0U);
    EXPECT_EQ(rows[1].mismatches, 1U);
}

TEST(BenchMeasurement, Median) {
    EXPECT_EQ(median({}), 0.0);
    EXPECT_EQ(median({3.0}), 3.0);
    EXPECT_EQ(median({5.0, 1.0, 3.0}), 3.0);
    EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(BenchMeasurement, Ratio) {
    Measurement m{.bytes_in = 8192, .bytes_out = 2048};
    EXPECT_EQ(m.ratio(), 4.0);
    m.bytes_out = 0;
    EXPECT_TRUE(std::isinf(m.ratio()));
    m.bytes_in = 0;
    EXPECT_EQ(m.ratio(), 0.0);
}

}  // namespace
}  // namespace ozram::bench
