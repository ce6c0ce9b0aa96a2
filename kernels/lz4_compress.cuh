// LZ4 compression of one 4 KiB page by one warp, into the standard LZ4 block
// format (no frame), written once over the warp abstraction (warp.cuh).  This
// file holds what every compression kernel does around its parse: the page
// into shared memory, the same-filled test, and the raw decision.  The
// parses are lz4_compress_window.cuh and lz4_compress_reprobe.cuh; the
// kernels by name are in compress_kernel.hpp.
#pragma once

#include <cstdint>

#include "compress_kernel.hpp"
#include "lz4_compress_reprobe.cuh"
#include "lz4_compress_window.cuh"
#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels {

// Bytes after the page in shared memory: word loads at the page's last
// positions read them (never as part of a result).
inline constexpr std::uint32_t PAGE_PAD = 16;

// A compression kernel's per-warp shared memory: the page and its hash table.
template <CompressKernel Kernel>
struct CompressScratch {
    alignas(16) std::uint8_t page[PAGE_SIZE + PAGE_PAD];
    alignas(16) std::uint16_t hash_table[1u << HASH_LOG_OF<Kernel>];
};

namespace detail {

// Copies the page from global memory into shared memory, 8 bytes per lane,
// and zeroes the pad after it.
OZRAM_KERNEL_FN void load_page(const Warp& warp, const std::uint8_t* src, std::uint8_t* dst) {
    for (std::uint32_t i = 0; i < PAGE_SIZE; i += 8 * WARP_SIZE)
        warp.each([&](Lane l) {
            store_u64_aligned(dst + i + 8 * l.id, load_u64_aligned(src + i + 8 * l.id));
        });
    warp.each([&](Lane l) {
        if (l.id < PAGE_PAD)
            dst[PAGE_SIZE + l.id] = 0;
    });
    warp.sync();
}

// Copies the page in shared memory to a PAGE_SIZE slot, 8 bytes per lane.
OZRAM_KERNEL_FN void store_page(const Warp& warp, const std::uint8_t* src, std::uint8_t* dst) {
    for (std::uint32_t i = 0; i < PAGE_SIZE; i += 8 * WARP_SIZE)
        warp.each([&](Lane l) {
            store_u64_aligned(dst + i + 8 * l.id, load_u64_aligned(src + i + 8 * l.id));
        });
}

// Whether the page is one 64-bit word repeated (the lanes compare 16 words each).
OZRAM_KERNEL_FN bool same_filled(const Warp& warp, const std::uint8_t* page, std::uint64_t& word) {
    const std::uint64_t first = load_u64_aligned(page);
    const LaneMask differs = warp.ballot([&](Lane l) {
        for (std::uint32_t i = 8 * l.id; i < PAGE_SIZE; i += 8 * WARP_SIZE) {
            if (load_u64_aligned(page + i) != first)
                return true;
        }
        return false;
    });
    word = first;
    return differs == 0;
}

template <CompressKernel Kernel>
OZRAM_KERNEL_FN bool encode(const Warp& warp, CompressScratch<Kernel>& scratch, std::uint8_t* out,
                            std::uint32_t limit, std::uint32_t& size) {
    if constexpr (Kernel == CompressKernel::Reprobe) {
        reprobe::BlockWriter block{out, 0, limit};
        const bool fits = reprobe::encode_block(warp, scratch.page, scratch.hash_table, block);
        size = block.size;
        return fits;
    } else {
        window::BlockWriter block{out, 0, limit};
        const bool fits = window::encode_block<HASH_LOG_OF<Kernel>>(warp, scratch.page,
                                                                    scratch.hash_table, block);
        size = block.size;
        return fits;
    }
}

}  // namespace detail

// Compresses the page at `src` (8-byte aligned) into the PAGE_SIZE slot at
// `out` (8-byte aligned) and describes it in `descriptor`: same-filled pages
// get their word and no bytes; pages whose LZ4 block would be longer than
// huge_threshold bytes (the largest block kept) are stored raw (the page
// copied to the slot).  Returns the descriptor to every lane.
template <CompressKernel Kernel>
OZRAM_KERNEL_FN PageDescriptor compress_page(const Warp& warp, CompressScratch<Kernel>& scratch,
                                             const std::uint8_t* src, std::uint8_t* out,
                                             PageDescriptor& descriptor,
                                             std::uint32_t huge_threshold) {
    detail::load_page(warp, src, scratch.page);

    PageDescriptor result{0, 0, PageEncoding::Lz4, PAGE_OK, 0};
    if (detail::same_filled(warp, scratch.page, result.fill_word)) {
        result.encoding = PageEncoding::SameFilled;
    } else {
        const std::uint32_t limit =
            huge_threshold < PAGE_SIZE ? huge_threshold : std::uint32_t{PAGE_SIZE};
        if (!detail::encode<Kernel>(warp, scratch, out, limit, result.size)) {
            result.encoding = PageEncoding::Raw;
            result.size = std::uint32_t{PAGE_SIZE};
            detail::store_page(warp, scratch.page, out);
        }
    }
    warp.single([&] { descriptor = result; });
    return result;
}

}  // namespace ozram::kernels
