// Same-filled pages: one 64-bit word repeated over the page, stored as the
// word alone, as zram stores them.  The scans behind is_same_filled() are
// exposed too, so that tests can check every variant the library may be
// built with, not only the one this machine uses.
#pragma once

#include <cstdint>

namespace ozram {

// Whether the page is one 64-bit word repeated; *word gets it.
[[nodiscard]] bool is_same_filled(const std::uint8_t* page, std::uint64_t* word);
// Fills a page with a word (the inverse of is_same_filled()).
void fill_page(std::uint8_t* page, std::uint64_t word);

namespace same_filled {

// Whether all PAGE_SIZE bytes at `page` are `word` repeated.
// Plain C++, for any target.
[[nodiscard]] bool matches_word_portable(const std::uint8_t* page, std::uint64_t word);
#if defined(__SSE2__)
// SSE2 (every x86-64): 16-byte compares; what is_same_filled() uses there.
[[nodiscard]] bool matches_word_sse2(const std::uint8_t* page, std::uint64_t word);
#endif

}  // namespace same_filled
}  // namespace ozram
