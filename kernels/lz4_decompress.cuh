// LZ4 decompression of one page by one warp, written once over the warp
// abstraction (warp.cuh).  The sequence headers are parsed by uniform code (all
// lanes agree on every position); literal and match bytes are copied by the
// lanes in parallel.  Every read is checked against the input size and every
// write against the page: a malformed block yields PAGE_CORRUPT, never an
// access out of bounds.  The acceptance rules follow LZ4_decompress_safe for a
// block that must decode to exactly PAGE_SIZE.
#pragma once

#include <cstdint>

#include "lz4_format.cuh"
#include "page_codec.cuh"
#include "page_copy.cuh"
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

// Copies the match of `length` bytes at `offset` behind page[op].  Byte i of
// the match repeats byte (i mod offset) of the `offset` bytes before it:
// that is LZ4's overlapping-copy semantics, and it reads only bytes that
// existed before this copy, so no lane waits on another.  A match that does
// not overlap itself is a plain copy; one that does keeps each lane's
// (i mod offset) up to date with one addition a step.
OZRAM_KERNEL_FN void copy_match(const Warp& warp, std::uint8_t* page, std::uint32_t op,
                                std::uint32_t offset, std::uint32_t length) {
    const std::uint8_t* const from = page + op - offset;
    if (offset >= length) {
        for (std::uint32_t done = 0; done < length; done += WARP_SIZE) {
            warp.each([&](Lane l) {
                if (done + l.id < length)
                    page[op + done + l.id] = from[done + l.id];
            });
        }
        return;
    }
    const std::uint32_t step = WARP_SIZE % offset;
    Lanes<std::uint32_t> phase;  // (done + lane) mod offset
    warp.each([&](Lane l) { phase[l] = l.id % offset; });
    for (std::uint32_t done = 0; done < length; done += WARP_SIZE) {
        warp.each([&](Lane l) {
            if (done + l.id < length)
                page[op + done + l.id] = from[phase[l]];
            phase[l] += step;
            if (phase[l] >= offset)
                phase[l] -= offset;
        });
    }
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
        for (std::uint32_t done = 0; done < literal_length; done += WARP_SIZE) {
            warp.each([&](Lane l) {
                if (done + l.id < literal_length)
                    page[op + done + l.id] = in[ip + done + l.id];
            });
        }
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

        warp.sync();
        copy_match(warp, page, op, offset, match_length);
        op += match_length;
    }
    warp.sync();
    return op == PAGE_SIZE ? PAGE_OK : PAGE_CORRUPT;
}

// Copies the raw page at `from` (any alignment: a block lies where its
// payload put it) to `to` (16-byte aligned), through shared memory when
// `from` is not aligned.
OZRAM_KERNEL_FN void copy_raw_page(const Warp& warp, const std::uint8_t* from, std::uint8_t* to,
                                   std::uint8_t* scratch) {
    if (reinterpret_cast<std::uintptr_t>(from) % VECTOR_BYTES == 0) {
        copy_block(warp, from, to, PAGE_SIZE);
        return;
    }
    lz4::copy_bytes(warp, from, scratch, PAGE_SIZE);
    warp.sync();
    copy_block(warp, scratch, to, PAGE_SIZE);
}

}  // namespace detail

// Restores the page that `descriptor` and the block at `in` (any alignment,
// descriptor.size bytes) describe into the PAGE_SIZE bytes at `dst` (16-byte
// aligned: device memory or mapped host memory) and sets descriptor.status.
// On an error `dst` is left untouched.
OZRAM_KERNEL_FN void decompress_page(const Warp& warp, DecompressScratch& scratch,
                                     const std::uint8_t* in, PageDescriptor& descriptor,
                                     std::uint8_t* dst) {
    const PageDescriptor page = descriptor;
    PageStatus status = PAGE_BAD_DESCRIPTOR;
    switch (page.encoding) {
        case PageEncoding::SameFilled:
            if (page.size == 0) {
                for (std::uint32_t i = 0; i < PAGE_SIZE; i += 8 * WARP_SIZE)
                    warp.each(
                        [&](Lane l) { store_u64_aligned(dst + i + 8 * l.id, page.fill_word); });
                status = PAGE_OK;
            }
            break;
        case PageEncoding::Raw:
            if (page.size == PAGE_SIZE) {
                detail::copy_raw_page(warp, in, dst, scratch.page);
                status = PAGE_OK;
            }
            break;
        case PageEncoding::Lz4:
            if (page.size != 0 && page.size <= PAGE_SIZE) {
                status = detail::decode_block(warp, in, page.size, scratch.page);
                if (status == PAGE_OK)
                    copy_block(warp, scratch.page, dst, PAGE_SIZE);
            }
            break;
        default:
            break;
    }
    warp.sync();
    warp.single([&] { descriptor.status = status; });
}

}  // namespace ozram::kernels
