#include "test_pages.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

namespace ozram::test {

Page text_page(std::uint64_t seed) {
    static constexpr std::array<std::string_view, 16> WORDS{
        "alpha", "beta",  "swap",  "zram", "page", "block", "queue",  "write",
        "read",  "error", "value", "the",  "of",   "and",   "device", "memory"};
    std::mt19937_64 rng(seed);
    std::string text;
    while (text.size() < PAGE_SIZE) {
        text += std::to_string(rng() % 100000);
        for (int i = 0; i < 8; ++i) {
            text += ' ';
            text += WORDS[rng() % WORDS.size()];
        }
        text += '\n';
    }
    Page page;
    std::memcpy(page.data(), text.data(), PAGE_SIZE);
    return page;
}

Page random_page(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Page page;
    for (std::size_t i = 0; i < PAGE_SIZE; i += 8) {
        const std::uint64_t word = rng();
        std::memcpy(page.data() + i, &word, 8);
    }
    return page;
}

Page filled_page(std::uint64_t word) {
    Page page;
    for (std::size_t i = 0; i < PAGE_SIZE; i += 8) {
        std::memcpy(page.data() + i, &word, 8);
    }
    return page;
}

std::vector<const std::uint8_t*> pointers(const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> out;
    for (const Page& page : pages) {
        out.push_back(page.data());
    }
    return out;
}

std::vector<std::uint8_t*> pointers(std::vector<Page>& pages) {
    std::vector<std::uint8_t*> out;
    for (Page& page : pages) {
        out.push_back(page.data());
    }
    return out;
}

EncodingCounts expect_faithful(const BatchResult& result, std::span<const Page> originals,
                               std::size_t huge_threshold) {
    EncodingCounts counts;
    EXPECT_EQ(result.pages.size(), originals.size());
    if (result.pages.size() != originals.size()) {
        return counts;
    }
    for (std::size_t i = 0; i < originals.size(); ++i) {
        const CompressedPage& entry = result.pages[i];
        const Page& original = originals[i];
        if (std::size_t{entry.offset} + entry.size > result.payload.size()) {
            ADD_FAILURE() << "page " << i << " lies outside the payload";
            continue;
        }
        switch (entry.encoding) {
            case PageEncoding::SameFilled: {
                ++counts.same_filled;
                EXPECT_EQ(entry.size, 0u) << "page " << i;
                EXPECT_EQ(filled_page(entry.fill_word), original) << "page " << i;
                break;
            }
            case PageEncoding::Lz4: {
                ++counts.lz4;
                EXPECT_LE(entry.size, huge_threshold) << "page " << i;
                Page decoded;
                const int n = LZ4_decompress_safe(
                    reinterpret_cast<const char*>(result.payload.data() + entry.offset),
                    reinterpret_cast<char*>(decoded.data()), static_cast<int>(entry.size),
                    static_cast<int>(PAGE_SIZE));
                EXPECT_EQ(n, static_cast<int>(PAGE_SIZE)) << "page " << i;
                EXPECT_EQ(decoded, original) << "page " << i;
                break;
            }
            case PageEncoding::Raw: {
                ++counts.raw;
                EXPECT_EQ(entry.size, PAGE_SIZE) << "page " << i;
                EXPECT_EQ(0, std::memcmp(result.payload.data() + entry.offset, original.data(),
                                         PAGE_SIZE))
                    << "page " << i;
                break;
            }
            case PageEncoding::Compressed:
                ADD_FAILURE() << "page " << i << ": an LZ4 compressor returned another format";
                break;
        }
    }
    return counts;
}

EncodingCounts expect_round_trip(PageCompressor& compressor, std::span<const Page> originals,
                                 std::size_t huge_threshold) {
    std::vector<const std::uint8_t*> in;
    for (const Page& page : originals) {
        in.push_back(page.data());
    }
    BatchResult result;
    compressor.compress(in, result);
    const EncodingCounts counts = expect_faithful(result, originals, huge_threshold);

    std::vector<Page> restored(originals.size());
    // Poison the destination so that a page left untouched cannot pass.
    for (Page& page : restored) {
        page.fill(0xa5);
    }
    compressor.decompress(result, pointers(restored));
    for (std::size_t i = 0; i < originals.size(); ++i) {
        EXPECT_EQ(restored[i], originals[i]) << "page " << i;
    }
    return counts;
}

}  // namespace ozram::test
