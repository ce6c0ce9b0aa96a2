// Synthetic but realistic pages for calibration: what an anonymous-memory
// swap stream looks like to a compressor, in known proportions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ozram/page.hpp"

namespace ozram {

// The kinds of page in the mix (see make_synthetic_pages()).
enum class SyntheticKind : std::uint8_t {
    Zero,    // never-written or cleared memory: same-filled
    Text,    // log-like text: LZ4 compresses it about 1.9x
    Struct,  // arrays of records with counters and pointers: about 2.3x
    Random,  // encrypted or already compressed data: stored raw
};

// Fills `page` with one page of the given kind, deterministically from `seed`.
void make_synthetic_page(SyntheticKind kind, std::uint64_t seed, Page& page);

// `count` pages in the mix 25% Zero, 35% Text, 25% Struct, 15% Random,
// interleaved in a seeded random order.
[[nodiscard]] std::vector<Page> make_synthetic_pages(std::size_t count, std::uint64_t seed);

}  // namespace ozram
