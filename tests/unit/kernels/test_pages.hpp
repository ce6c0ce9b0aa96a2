// Pages of every kind the codec meets, for the kernel tests: synthetic kinds
// made from a fixed seed, and real pages from this process's own memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ozram/page.hpp"

namespace ozram::testing {

struct NamedPage {
    std::string kind;
    Page bytes;
};

Page zero_page();
Page same_filled_page(std::uint64_t word);
Page random_page(std::uint64_t seed);
// English-like words and punctuation (compresses about 2x, like text files).
Page text_page(std::uint64_t seed);
// Text with a random hole, numeric tables, sparse structs: the mixes of real heaps.
Page mixed_page(std::uint64_t seed);
// A random pattern of `period` bytes repeated: overlapping matches (offset < length).
Page periodic_page(unsigned period, std::uint64_t seed);

// Random-length runs of zeros, noise, text, short periods and copies of
// earlier parts of the page: matches of every length and distance, ending
// anywhere, including at the block's end limits.
Page patchwork_page(std::uint64_t seed);

// Pages of the test binary's file and of this process's readable mappings
// (read with pread on /proc/self/mem, so unreadable ones are skipped).
std::vector<Page> real_pages(std::size_t max_pages);

// Every synthetic kind, several of each, plus `real` real pages.
std::vector<NamedPage> page_corpus(std::size_t real);

}  // namespace ozram::testing
