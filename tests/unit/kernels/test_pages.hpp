// Pages of every kind the codec meets, for the kernel tests: synthetic kinds
// made from a fixed seed, and real pages from this process's own memory.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ozram::testing {

using TestPage = std::array<std::uint8_t, 4096>;

struct NamedPage {
    std::string kind;
    TestPage bytes;
};

TestPage zero_page();
TestPage same_filled_page(std::uint64_t word);
TestPage random_page(std::uint64_t seed);
// English-like words and punctuation (compresses about 2x, like text files).
TestPage text_page(std::uint64_t seed);
// Text with a random hole, numeric tables, sparse structs: the mixes of real heaps.
TestPage mixed_page(std::uint64_t seed);
// A random pattern of `period` bytes repeated: overlapping matches (offset < length).
TestPage periodic_page(unsigned period, std::uint64_t seed);

// Random-length runs of zeros, noise, text, short periods and copies of
// earlier parts of the page: matches of every length and distance, ending
// anywhere, including at the block's end limits.
TestPage patchwork_page(std::uint64_t seed);

// Pages of the test binary's file and of this process's readable mappings
// (read with pread on /proc/self/mem, so unreadable ones are skipped).
std::vector<TestPage> real_pages(std::size_t max_pages);

// Every synthetic kind, several of each, plus `real` real pages.
std::vector<NamedPage> page_corpus(std::size_t real);

}  // namespace ozram::testing
