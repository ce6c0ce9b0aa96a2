// What both compression kernels share: the LZ4 block format's length
// encoding, liblz4's hash, and the page copies in and out of shared memory.
#pragma once

#include <cstdint>

#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels::lz4 {

// Last position a match may start at, and the end a match may not pass.
inline constexpr std::uint32_t MATCH_START_LIMIT = PAGE_SIZE - MF_LIMIT;
inline constexpr std::uint32_t MATCH_END_LIMIT = PAGE_SIZE - LAST_LITERALS;

// liblz4's multiplicative hash of 4 bytes, to hash_log bits.
template <unsigned HashLog>
OZRAM_KERNEL_FN std::uint32_t hash4(std::uint32_t sequence) {
    return (sequence * 2654435761u) >> (32 - HashLog);
}

// n / 255 for n < 2^16 (every length in a page) as a multiply and a shift:
// an integer division is some twenty instructions on the device, and the
// encoders size every sequence.
OZRAM_KERNEL_FN std::uint32_t divide_by_255(std::uint32_t n) {
    return (n * 0x8081u) >> 23;
}

// Bytes that follow the token to finish a length whose nibble is 15.
OZRAM_KERNEL_FN std::uint32_t extra_length_bytes(std::uint32_t length) {
    return length < RUN_MASK ? 0 : divide_by_255(length - RUN_MASK) + 1;
}

// Writes the 255-run continuation of a length >= 15; returns the next byte.
OZRAM_KERNEL_FN std::uint8_t* put_extra_length(std::uint8_t* p, std::uint32_t length) {
    std::uint32_t rest = length - RUN_MASK;
    for (; rest >= 255; rest -= 255)
        *p++ = 255;
    *p++ = static_cast<std::uint8_t>(rest);
    return p;
}

// Encoded bytes of a sequence of `literals` literals and a match of
// `match_length` bytes (0: the last sequence, literals only).
OZRAM_KERNEL_FN std::uint32_t sequence_bytes(std::uint32_t literals, std::uint32_t match_length) {
    std::uint32_t bytes = 1 + extra_length_bytes(literals) + literals;
    if (match_length != 0)
        bytes += 2 + extra_length_bytes(match_length - MIN_MATCH);
    return bytes;
}

// Writes a sequence's token, literal length, and (for a match) its offset and
// match length, leaving the literals' bytes to the caller: they go at
// out + literals_at(literals), the match fields after them.
OZRAM_KERNEL_FN std::uint32_t literals_at(std::uint32_t literals) {
    return 1 + extra_length_bytes(literals);
}
OZRAM_KERNEL_FN void put_sequence_header(std::uint8_t* out, std::uint32_t literals,
                                         std::uint32_t offset, std::uint32_t match_length) {
    const std::uint32_t match_code = match_length == 0 ? 0 : match_length - MIN_MATCH;
    const std::uint32_t lit_nibble = literals < RUN_MASK ? literals : RUN_MASK;
    const std::uint32_t match_nibble = match_code < RUN_MASK ? match_code : RUN_MASK;
    out[0] = static_cast<std::uint8_t>(lit_nibble << 4 | match_nibble);
    if (literals >= RUN_MASK)
        put_extra_length(out + 1, literals);
    if (match_length != 0) {
        std::uint8_t* p = out + literals_at(literals) + literals;
        *p++ = static_cast<std::uint8_t>(offset);
        *p++ = static_cast<std::uint8_t>(offset >> 8);
        if (match_code >= RUN_MASK)
            put_extra_length(p, match_code);
    }
}

// Copies `count` bytes from `from` to `to` (neither overlapping the other),
// a byte per lane per step.
OZRAM_KERNEL_FN void copy_bytes(const Warp& warp, const std::uint8_t* from, std::uint8_t* to,
                                std::uint32_t count) {
    for (std::uint32_t done = 0; done < count; done += WARP_SIZE) {
        warp.each([&](Lane l) {
            if (done + l.id < count)
                to[done + l.id] = from[done + l.id];
        });
    }
}

}  // namespace ozram::kernels::lz4
