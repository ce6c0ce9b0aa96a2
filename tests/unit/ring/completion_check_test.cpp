// The producer's byte check: it must catch a completion that does not
// restore the submitted page, whatever the encoding.
#include "completion_check.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>
#include <vector>

#include "heap_ring.hpp"
#include "load_driver.hpp"

namespace {

using ozram::ringload::CompletionCheck;

TEST(CompletionCheck, AcceptsAFaithfulLz4PageAndCatchesAnyChange) {
    const auto pages = ozram::ring::test::mixed_pages(1);
    std::vector<std::uint8_t> output(OZRAM_RING_PAGE_SIZE);
    const int size = LZ4_compress_default(reinterpret_cast<const char*>(pages[0].data()),
                                          reinterpret_cast<char*>(output.data()),
                                          OZRAM_RING_PAGE_SIZE, OZRAM_RING_PAGE_SIZE);
    ASSERT_GT(size, 0);
    const ozram_ring_cqe cqe{0, 1, 0, OZRAM_RING_ENC_LZ4, static_cast<std::uint32_t>(size), 0, 0};
    CompletionCheck check;
    EXPECT_TRUE(check.restores(cqe, output.data(), pages[0].data()));

    auto other = pages[0];
    other[4000] ^= 1;  // the agent compressed something else
    EXPECT_FALSE(check.restores(cqe, output.data(), other.data()));

    ozram_ring_cqe short_length = cqe;
    short_length.length -= 1;  // a truncated block
    EXPECT_FALSE(check.restores(short_length, output.data(), pages[0].data()));

    output[size / 2] ^= 0xff;  // damaged bytes
    EXPECT_FALSE(check.restores(cqe, output.data(), pages[0].data()));
}

TEST(CompletionCheck, RawKeepsTheOriginalAndSameFilledIsComparedInFull) {
    const auto pages = ozram::ring::test::mixed_pages(2);
    CompletionCheck check;
    std::vector<std::uint8_t> output(OZRAM_RING_PAGE_SIZE, 0xa5);
    // RAW: the producer keeps its own copy; the output slot is not read.
    const ozram_ring_cqe raw{0, 1, 0, OZRAM_RING_ENC_RAW, 0, 0, 0};
    EXPECT_TRUE(check.restores(raw, output.data(), pages[1].data()));

    ozram::Page filled;
    const std::uint64_t word = 0x0102030405060708ULL;
    for (std::size_t at = 0; at < filled.size(); at += sizeof(word)) {
        std::memcpy(filled.data() + at, &word, sizeof(word));
    }
    const ozram_ring_cqe same{0, 1, 0, OZRAM_RING_ENC_SAME_FILLED, 0, 0, word};
    EXPECT_TRUE(check.restores(same, output.data(), filled.data()));
    filled[2048] ^= 1;
    EXPECT_FALSE(check.restores(same, output.data(), filled.data()));

    const ozram_ring_cqe unknown{0, 1, 0, 9, 0, 0, 0};
    EXPECT_FALSE(check.restores(unknown, output.data(), filled.data()));
}

// ozram-ringload's status: "every page verified".  An agent that gives
// every page back with an error has verified none.
TEST(LoadReport, PagesGivenBackWithAnErrorAreNotClean) {
    ozram::ringload::LoadReport report;
    report.pages = 10;
    EXPECT_TRUE(report.clean());
    report.fallback = 1;
    EXPECT_FALSE(report.clean());
}

}  // namespace
