// What the page kernels exchange with the host: one descriptor per page, and
// the constants of the LZ4 block format that both directions obey.
//
// Pages are ozram::PAGE_SIZE bytes and their forms ozram::PageEncoding, the
// names the rest of the library uses (ozram/page.hpp).
#pragma once

#include <cstdint>

#include "ozram/page.hpp"

namespace ozram::kernels {

// Whether the kernel could do its job for the page.
enum PageStatus : std::uint8_t {
    PAGE_OK = 0,
    PAGE_CORRUPT = 1,         // decompression: not a valid LZ4 block of exactly PAGE_SIZE
    PAGE_BAD_DESCRIPTOR = 2,  // decompression: unknown encoding or impossible size
};

// 16 bytes, one per page of a batch.  The compression kernel writes every
// field; the decompression kernel reads encoding/size/fill_word and writes
// status.
struct PageDescriptor {
    std::uint64_t fill_word;  // PageEncoding::SameFilled: the repeated 64-bit word
    std::uint32_t size;       // payload bytes: 0, the LZ4 block size, or PAGE_SIZE
    PageEncoding encoding;
    std::uint8_t status;  // a PageStatus
    std::uint16_t reserved;
};
static_assert(sizeof(PageDescriptor) == 16);

// The LZ4 block format's rules (lz4_Block_format.md).
namespace lz4 {
inline constexpr std::uint32_t MIN_MATCH = 4;
inline constexpr std::uint32_t LAST_LITERALS = 5;  // the last 5 bytes are always literals
inline constexpr std::uint32_t MF_LIMIT = 12;      // no match starts in the last 12 bytes
inline constexpr std::uint32_t MAX_DISTANCE = 65535;
inline constexpr std::uint32_t RUN_MASK = 15;  // a length nibble of 15 continues in 255-runs
}  // namespace lz4

}  // namespace ozram::kernels
