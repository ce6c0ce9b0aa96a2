// The scans behind is_same_filled(), exposed so that tests can check every
// variant the library may be built with, not only the one this machine uses.
#pragma once

#include <cstdint>

namespace ozram::same_filled {

// Whether all PAGE_SIZE bytes at `page` are `word` repeated.
// Plain C++, for any target.
[[nodiscard]] bool matches_word_portable(const std::uint8_t* page, std::uint64_t word);
#if defined(__SSE2__)
// SSE2 (every x86-64): 16-byte compares; what is_same_filled() uses there.
[[nodiscard]] bool matches_word_sse2(const std::uint8_t* page, std::uint64_t word);
#endif

}  // namespace ozram::same_filled
