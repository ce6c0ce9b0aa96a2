// Pages and their compressed forms.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ozram {

inline constexpr std::size_t PAGE_SIZE = 4096;

// One uncompressed page.  Batches are passed as spans of pointers to pages so
// that they can live anywhere: a std::vector<Page>, a corpus file mapped into
// memory, or the staging slots of the kernel's ring.
using Page = std::array<std::uint8_t, PAGE_SIZE>;

// How a page is stored, with zram's three cases.
enum class PageEncoding : std::uint8_t {
    Lz4,         // an LZ4 block (standard block format, no framing)
    Raw,         // incompressible ("huge" in zram): the PAGE_SIZE bytes as they are
    SameFilled,  // one machine word repeated over the page; no payload
    Compressed,  // a block in the compressor's algorithm other than LZ4 (CpuConfig)
};

// Where a compressed page's bytes are: a range of its BatchResult's payload.
struct CompressedPage {
    PageEncoding encoding = PageEncoding::Raw;
    std::uint64_t fill_word = 0;  // SameFilled only
    std::uint32_t offset = 0;     // into BatchResult::payload
    std::uint32_t size = 0;       // bytes: 0 for SameFilled, PAGE_SIZE for Raw

    // Bytes this page takes when stored (what mm_stat's compr_data_size counts).
    [[nodiscard]] std::size_t stored_size() const { return size; }
};

}  // namespace ozram
