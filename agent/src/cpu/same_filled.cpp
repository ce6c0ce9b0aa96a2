// Same-filled pages: a page that is one 64-bit word repeated is stored as
// that word, as zram does.  The scan is the hot loop of every backend (it runs
// on every page before LZ4), so it is written for the vectorizer: each block
// ORs the XOR of its words with the first word without branching, which GCC
// and Clang turn into SIMD compares, and leaves early at the first block that
// differs, which is the first block for almost every page that is not
// same-filled.
#include <cstring>

#include "ozram/backend.hpp"

namespace ozram {
namespace {

constexpr std::size_t WORD_SIZE = sizeof(std::uint64_t);
constexpr std::size_t WORDS_PER_PAGE = PAGE_SIZE / WORD_SIZE;
// 8 words = 64 bytes: one cache line, two AVX2 or four SSE2 vectors per block.
constexpr std::size_t WORDS_PER_BLOCK = 8;
static_assert(WORDS_PER_PAGE % WORDS_PER_BLOCK == 0);

// Pages can sit at any address (a corpus file, a ring slot): load through
// memcpy, which compiles to one unaligned load.
inline std::uint64_t load_word(const std::uint8_t* at) {
    std::uint64_t word;
    std::memcpy(&word, at, WORD_SIZE);
    return word;
}

}  // namespace

bool is_same_filled(const std::uint8_t* page, std::uint64_t* word) {
    const std::uint64_t first = load_word(page);
    // Like zram, look at the last word first: a cheap rejection of pages that
    // start with a run of zeros (headers, padding) but hold data further on.
    if (load_word(page + PAGE_SIZE - WORD_SIZE) != first) {
        return false;
    }
    for (std::size_t block = 0; block < WORDS_PER_PAGE; block += WORDS_PER_BLOCK) {
        const std::uint8_t* at = page + block * WORD_SIZE;
        std::uint64_t difference = 0;
        for (std::size_t i = 0; i < WORDS_PER_BLOCK; ++i) {
            difference |= load_word(at + i * WORD_SIZE) ^ first;
        }
        if (difference != 0) {
            return false;
        }
    }
    if (word != nullptr) {
        *word = first;
    }
    return true;
}

void fill_page(std::uint8_t* page, std::uint64_t word) {
    for (std::size_t i = 0; i < WORDS_PER_PAGE; ++i) {
        std::memcpy(page + i * WORD_SIZE, &word, WORD_SIZE);
    }
}

}  // namespace ozram
