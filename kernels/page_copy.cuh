// Moving pages and compressed blocks between device memory and host memory
// mapped into the device (registered with the driver, or pinned and mapped),
// one warp a page, 16 bytes a lane: a warp moves 512 contiguous bytes with
// one access, which the bus carries as whole transactions.  Mapped host
// memory answers in microseconds, not nanoseconds, so a gather issues all of
// a page's loads before its first store: the bandwidth of a copy over the
// bus is the bytes in flight over that latency.
#pragma once

#include <cstdint>

#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels {

inline constexpr std::uint32_t VECTOR_BYTES = 16;
inline constexpr std::uint32_t WARP_VECTOR_BYTES = VECTOR_BYTES * WARP_SIZE;

// A length rounded up to whole 16-byte vectors: what copy_block() moves.
OZRAM_KERNEL_FN std::uint32_t vector_bytes(std::uint32_t bytes) {
    return (bytes + VECTOR_BYTES - 1) & ~(VECTOR_BYTES - 1);
}

// Bytes a buffer holds past its last page: word reads of a page's last
// bytes (copy_to_unaligned) read them, never as part of a result.
inline constexpr std::uint32_t BUFFER_PAD = 16;

// The bytes a compressed page stores: its LZ4 block, the page itself for a
// raw page when the output holds raw pages (`raw_kept`), nothing for a
// same-filled page.  Never more than a page: the offsets and copies that
// follow the compression kernel use its descriptors before the host has
// checked them, and an impossible size must not carry a copy past the
// page's slot or the output.
OZRAM_KERNEL_FN std::uint32_t stored_bytes(const PageDescriptor& page, bool raw_kept) {
    if (page.encoding == PageEncoding::Lz4)
        return page.size < PAGE_SIZE ? page.size : PAGE_SIZE;
    if (page.encoding == PageEncoding::Raw && raw_kept)
        return PAGE_SIZE;
    return 0;
}

// Copies a page from `from` to `to` (both 16-byte aligned), every load in
// flight before the first store.
OZRAM_KERNEL_FN void gather_page(const Warp& warp, const std::uint8_t* from, std::uint8_t* to) {
    constexpr std::uint32_t STEPS = PAGE_SIZE / WARP_VECTOR_BYTES;
    Lanes<Vec16> in_flight[STEPS];
    for (std::uint32_t k = 0; k < STEPS; ++k)
        warp.each([&](Lane l) {
            in_flight[k][l] = load_vec16_once(from + k * WARP_VECTOR_BYTES + VECTOR_BYTES * l.id);
        });
    for (std::uint32_t k = 0; k < STEPS; ++k)
        warp.each([&](Lane l) {
            store_vec16(to + k * WARP_VECTOR_BYTES + VECTOR_BYTES * l.id, in_flight[k][l]);
        });
}

// Copies vector_bytes(bytes) bytes from `from` to `to` (both 16-byte
// aligned; any memory but mapped host memory as the source).
OZRAM_KERNEL_FN void copy_block(const Warp& warp, const std::uint8_t* from, std::uint8_t* to,
                                std::uint32_t bytes) {
    const std::uint32_t vectors = vector_bytes(bytes);
    for (std::uint32_t done = 0; done < vectors; done += WARP_VECTOR_BYTES)
        warp.each([&](Lane l) {
            const std::uint32_t at = done + VECTOR_BYTES * l.id;
            if (at < vectors)
                store_vec16(to + at, load_vec16(from + at));
        });
}

// Copies `bytes` bytes from `from` (4-byte aligned, readable 8 bytes past the
// end) to `to` at any alignment, as aligned 4-byte words but for up to 3
// bytes at either end: packed outputs put one page's bytes right after the
// last page's.
OZRAM_KERNEL_FN void copy_to_unaligned(const Warp& warp, const std::uint8_t* from, std::uint8_t* to,
                                       std::uint32_t bytes) {
    const std::uint32_t misalignment =
        static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(to) & 3u);
    const std::uint32_t head = (4u - misalignment) & 3u;
    const std::uint32_t lead = head < bytes ? head : bytes;
    const std::uint32_t words = (bytes - lead) / 4;
    const std::uint32_t tail_at = lead + 4 * words;
    warp.each([&](Lane l) {
        if (l.id < lead)
            to[l.id] = from[l.id];
        if (l.id < bytes - tail_at)
            to[tail_at + l.id] = from[tail_at + l.id];
    });
    auto* const to_words = reinterpret_cast<std::uint32_t*>(to + lead);
    for (std::uint32_t done = 0; done < words; done += WARP_SIZE)
        warp.each([&](Lane l) {
            const std::uint32_t w = done + l.id;
            if (w < words)
                to_words[w] = load_u32_at(from, lead + 4 * w);
        });
}

}  // namespace ozram::kernels
