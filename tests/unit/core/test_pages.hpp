// Page generators and the independent round-trip check shared by the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ozram/backend.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram::test {

// Text made of words and numbers, as in logs and source files.
[[nodiscard]] Page text_page(std::uint64_t seed);
// Uniformly random bytes: LZ4 cannot shrink them.
[[nodiscard]] Page random_page(std::uint64_t seed);
// One word repeated.
[[nodiscard]] Page filled_page(std::uint64_t word);

// Pointers to each page, in the form the backends take.
[[nodiscard]] std::vector<const std::uint8_t*> pointers(const std::vector<Page>& pages);
[[nodiscard]] std::vector<std::uint8_t*> pointers(std::vector<Page>& pages);

// What checking a compressed batch found, by encoding.
struct EncodingCounts {
    std::size_t same_filled = 0;
    std::size_t lz4 = 0;
    std::size_t raw = 0;
};

// Checks `result` against the original pages without the library's decoder:
// every LZ4 page goes through liblz4's LZ4_decompress_safe here, must decode
// to exactly PAGE_SIZE bytes equal to the original and take at most
// huge_threshold bytes; raw pages must be byte-equal copies; same-filled pages
// must equal their word repeated.  Reports failures through GoogleTest.
EncodingCounts expect_faithful(const BatchResult& result, std::span<const Page> originals,
                               std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD);

// Compresses with `compressor`, checks with expect_faithful(), then restores
// with the compressor's own decompress() and compares every byte.
EncodingCounts expect_round_trip(PageCompressor& compressor, std::span<const Page> originals,
                                 std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD);

}  // namespace ozram::test
