// LZ4 decompression of one page by one warp, written once over the warp
// abstraction (warp.cuh).  The sequence headers are parsed by uniform code (all
// lanes agree on every position); literal and match bytes are copied by the
// lanes in parallel.  Every read is checked against the input size and every
// write against the page: a malformed block yields PAGE_CORRUPT, never an
// access out of bounds.  The acceptance rules follow LZ4_decompress_safe for a
// block that must decode to exactly PAGE_SIZE.
#pragma once

#include <cstdint>

#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels {

// The decompressor's per-warp shared memory: the page being rebuilt, so that
// match copies read shared rather than global memory.
struct DecompressScratch {
    alignas(16) std::uint8_t page[PAGE_SIZE];
};

namespace detail {

// Adds a length's 255-run continuation to `length`.  False if the input ends
// first or the length exceeds any possible page.
OZRAM_KERNEL_FN bool read_extra_length(const std::uint8_t* in, std::uint32_t in_size,
                                       std::uint32_t& ip, std::uint32_t& length) {
    std::uint32_t byte = 255;
    while (byte == 255) {
        if (ip >= in_size || length > PAGE_SIZE)
            return false;
        byte = in[ip++];
        length += byte;
    }
    return true;
}

// Decodes the LZ4 block in[0, in_size) into page[0, PAGE_SIZE).
OZRAM_KERNEL_FN PageStatus decode_block(const Warp& warp, const std::uint8_t* in,
                                        std::uint32_t in_size, std::uint8_t* page) {
    std::uint32_t ip = 0;
    std::uint32_t op = 0;
    for (;;) {
        if (ip >= in_size)
            return PAGE_CORRUPT;
        const std::uint32_t token = in[ip++];

        std::uint32_t literal_length = token >> 4;
        if (literal_length == lz4::RUN_MASK && !read_extra_length(in, in_size, ip, literal_length))
            return PAGE_CORRUPT;
        if (literal_length > in_size - ip || literal_length > PAGE_SIZE - op)
            return PAGE_CORRUPT;
        warp.each([&](Lane l) {
            for (std::uint32_t i = l.id; i < literal_length; i += WARP_SIZE)
                page[op + i] = in[ip + i];
        });
        ip += literal_length;
        op += literal_length;
        if (ip == in_size)
            break;  // the last sequence is literals only
        // Like LZ4_decompress_safe: literals that reach into the last 12 bytes
        // of the page, or leave no room for a match and 5 literals, end the block.
        if (op > PAGE_SIZE - lz4::MF_LIMIT || in_size - ip < 2 + 1 + lz4::LAST_LITERALS)
            return PAGE_CORRUPT;

        const std::uint32_t offset = in[ip] | (std::uint32_t{in[ip + 1]} << 8);
        ip += 2;
        if (offset == 0 || offset > op)
            return PAGE_CORRUPT;

        std::uint32_t match_length = token & lz4::RUN_MASK;
        if (match_length == lz4::RUN_MASK && !read_extra_length(in, in_size, ip, match_length))
            return PAGE_CORRUPT;
        match_length += lz4::MIN_MATCH;
        if (match_length > PAGE_SIZE - lz4::LAST_LITERALS - op)
            return PAGE_CORRUPT;

        // Byte i of the match repeats byte (i mod offset) of the `offset` bytes
        // before it, which is exactly LZ4's overlapping-copy semantics and
        // reads only bytes that existed before this copy: no lane waits on another.
        warp.sync();
        warp.each([&](Lane l) {
            for (std::uint32_t i = l.id; i < match_length; i += WARP_SIZE)
                page[op + i] = page[op - offset + i % offset];
        });
        op += match_length;
    }
    warp.sync();
    return op == PAGE_SIZE ? PAGE_OK : PAGE_CORRUPT;
}

// Copies a page between 8-byte aligned buffers, 8 bytes per lane.
OZRAM_KERNEL_FN void copy_page(const Warp& warp, const std::uint8_t* src, std::uint8_t* dst) {
    warp.each([&](Lane l) {
        for (std::uint32_t i = 8 * l.id; i < PAGE_SIZE; i += 8 * WARP_SIZE)
            store_u64_aligned(dst + i, load_u64_aligned(src + i));
    });
    warp.sync();
}

}  // namespace detail

// Restores the page that `descriptor` and the slot at `in` (8-byte aligned,
// descriptor.size bytes used) describe into the PAGE_SIZE at `dst` (8-byte
// aligned) and sets descriptor.status.  On an error `dst` is left untouched.
OZRAM_KERNEL_FN void decompress_page(const Warp& warp, DecompressScratch& scratch,
                                     const std::uint8_t* in, PageDescriptor& descriptor,
                                     std::uint8_t* dst) {
    const PageDescriptor page = descriptor;
    PageStatus status = PAGE_BAD_DESCRIPTOR;
    switch (page.encoding) {
        case PageEncoding::SameFilled:
            if (page.size == 0) {
                warp.each([&](Lane l) {
                    for (std::uint32_t i = 8 * l.id; i < PAGE_SIZE; i += 8 * WARP_SIZE)
                        store_u64_aligned(dst + i, page.fill_word);
                });
                status = PAGE_OK;
            }
            break;
        case PageEncoding::Raw:
            if (page.size == PAGE_SIZE) {
                detail::copy_page(warp, in, dst);
                status = PAGE_OK;
            }
            break;
        case PageEncoding::Lz4:
            if (page.size != 0 && page.size <= PAGE_SIZE) {
                status = detail::decode_block(warp, in, page.size, scratch.page);
                if (status == PAGE_OK)
                    detail::copy_page(warp, scratch.page, dst);
            }
            break;
        default:
            break;
    }
    warp.sync();
    warp.single([&] { descriptor.status = status; });
}

}  // namespace ozram::kernels
