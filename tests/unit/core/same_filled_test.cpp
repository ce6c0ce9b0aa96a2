// is_same_filled() and fill_page().
#include "cpu/same_filled.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ozram/backend.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

constexpr std::uint64_t WORDS[] = {0, 1, 0xff, 0xdeadbeefcafef00dULL, ~0ULL, 0x8000000000000000ULL};

TEST(SameFilled, DetectsEveryWord) {
    for (const std::uint64_t word : WORDS) {
        const Page page = test::filled_page(word);
        std::uint64_t found = ~word;
        EXPECT_TRUE(is_same_filled(page.data(), &found)) << std::hex << word;
        EXPECT_EQ(found, word);
    }
}

TEST(SameFilled, NullWordPointerIsAllowed) {
    const Page page = test::filled_page(42);
    EXPECT_TRUE(is_same_filled(page.data(), nullptr));
}

TEST(SameFilled, OneDifferentByteAnywhereRejects) {
    // Every byte position, so that each block and each lane of the scan is hit.
    for (const std::uint64_t word : {std::uint64_t{0}, std::uint64_t{0x0102030405060708}}) {
        Page page = test::filled_page(word);
        for (std::size_t at = 0; at < PAGE_SIZE; ++at) {
            page[at] ^= 0x10;
            std::uint64_t found = 12345;
            EXPECT_FALSE(is_same_filled(page.data(), &found)) << "byte " << at;
            EXPECT_EQ(found, 12345u) << "the word is only written on success";
            page[at] ^= 0x10;
        }
        EXPECT_TRUE(is_same_filled(page.data(), nullptr));
    }
}

TEST(SameFilled, RepeatedBytePatternThatIsNotAWordRepeatRejects) {
    // A 3-byte period is not a repeated 64-bit word.
    Page page;
    for (std::size_t i = 0; i < PAGE_SIZE; ++i) {
        page[i] = static_cast<std::uint8_t>(i % 3);
    }
    EXPECT_FALSE(is_same_filled(page.data(), nullptr));
}

TEST(SameFilled, WorksAtUnalignedAddresses) {
    std::vector<std::uint8_t> buffer(PAGE_SIZE + 16);
    for (std::size_t shift = 0; shift < 8; ++shift) {
        std::uint8_t* page = buffer.data() + shift;
        fill_page(page, 0x1122334455667788ULL);
        std::uint64_t found = 0;
        EXPECT_TRUE(is_same_filled(page, &found)) << "shift " << shift;
        EXPECT_EQ(found, 0x1122334455667788ULL);
        page[PAGE_SIZE - 1] ^= 1;
        EXPECT_FALSE(is_same_filled(page, &found)) << "shift " << shift;
    }
}

// Every scan the library can be built with, checked against a plain loop.
struct Scan {
    const char* name;
    bool (*matches)(const std::uint8_t*, std::uint64_t);
};

const Scan SCANS[] = {
    {"portable", same_filled::matches_word_portable},
#if defined(__SSE2__)
    {"sse2", same_filled::matches_word_sse2},
#endif
};

bool reference_matches(const std::uint8_t* page, std::uint64_t word) {
    for (std::size_t i = 0; i < PAGE_SIZE; i += 8) {
        std::uint64_t value;
        std::memcpy(&value, page + i, 8);
        if (value != word) {
            return false;
        }
    }
    return true;
}

TEST(SameFilledScans, AgreeWithAPlainLoopOnEveryByte) {
    std::vector<std::uint8_t> buffer(PAGE_SIZE + 8);
    for (const Scan& scan : SCANS) {
        for (const std::size_t shift : {std::size_t{0}, std::size_t{3}}) {
            std::uint8_t* page = buffer.data() + shift;
            for (const std::uint64_t word : WORDS) {
                fill_page(page, word);
                EXPECT_TRUE(scan.matches(page, word)) << scan.name;
                EXPECT_EQ(scan.matches(page, word ^ 1), word == (word ^ 1)) << scan.name;
                for (std::size_t at = 0; at < PAGE_SIZE; at += 1 + at % 5) {
                    page[at] ^= 0x80;
                    ASSERT_EQ(scan.matches(page, word), reference_matches(page, word))
                        << scan.name << " byte " << at;
                    page[at] ^= 0x80;
                }
            }
        }
    }
}

TEST(FillPage, WritesExactlyOnePage) {
    std::vector<std::uint8_t> buffer(PAGE_SIZE + 2, 0x5a);
    fill_page(buffer.data() + 1, 0x0807060504030201ULL);
    EXPECT_EQ(buffer.front(), 0x5a);
    EXPECT_EQ(buffer.back(), 0x5a);
    for (std::size_t i = 0; i < PAGE_SIZE; ++i) {
        ASSERT_EQ(buffer[1 + i], (i % 8) + 1) << "byte " << i;
    }
}

TEST(FillPage, InvertsIsSameFilled) {
    for (const std::uint64_t word : WORDS) {
        Page page;
        fill_page(page.data(), word);
        EXPECT_EQ(page, test::filled_page(word));
    }
}

}  // namespace
}  // namespace ozram
