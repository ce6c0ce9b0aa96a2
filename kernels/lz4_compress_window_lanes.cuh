// The window parse with each sequence's work done by the lanes: the same
// parse as lz4_compress_window.cuh, and the same block, byte for byte, in
// fewer warp instructions.
//
// In the window parse, all the work of a sequence ran as uniform code, once
// per sequence for the whole warp: the first words of its forward
// extension, the check before a backward extension, and its encoded size
// and place in the block.  A page has about two sequences a window.  Here
// the lanes do that work for the window at once:
//  - right after the probe, each lane whose candidate matches compares the
//    next LANE_EXTENSION bytes itself, and looks at the byte before;
//  - the parse then walks the match mask as before, but a match needs the
//    warp only when it runs on past those bytes or may extend backwards;
//    each match taken goes to the next pending lane, unsized;
//  - after the walk, the lanes of the window's new sequences size them, and
//    a warp prefix sum places them in the block.
#pragma once

#include <cstdint>

#include "lz4_compress_window.cuh"
#include "lz4_format.cuh"
#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels::window_lanes {

using window::BlockWriter;
using window::PendingSequences;

// Bytes past a match's first 4 that its lane compares on its own: two words.
inline constexpr std::uint32_t LANE_EXTENSION = 8;

// A lane's finding on its own match, in one word: the bytes past the first 4
// that match (at most LANE_EXTENSION), OPEN if more may follow, BACK if the
// byte before it matches too.
inline constexpr std::uint32_t EXTENSION_MASK = 0xffu;
inline constexpr std::uint32_t OPEN = 1u << 8;
inline constexpr std::uint32_t BACK = 1u << 9;

// Each lane of `found` looks at its own match: position base + lane against
// its candidate.  The forward length stops at MATCH_END_LIMIT, as
// window::forward_extension() does.
OZRAM_KERNEL_FN Lanes<std::uint32_t> look_at_matches(const Warp& warp, const std::uint8_t* page,
                                                     std::uint32_t base, LaneMask found,
                                                     const Lanes<std::uint32_t>& candidate) {
    Lanes<std::uint32_t> finding;
    warp.each([&](Lane l) {
        finding[l] = 0;
        if (((found >> l.id) & 1u) == 0)
            return;
        const std::uint32_t here = base + l.id;
        const std::uint32_t from = candidate[l];
        const std::uint32_t a = here + lz4::MIN_MATCH;
        const std::uint32_t b = from + lz4::MIN_MATCH;
        const std::uint32_t limit = lz4::MATCH_END_LIMIT - a;
        std::uint32_t length = 0;
        bool open = true;
        for (std::uint32_t i = 0; i < LANE_EXTENSION && open; i += 4) {
            if (i >= limit) {
                length = limit;
                open = false;
                break;
            }
            const std::uint32_t differ = load_u32_at(page, a + i) ^ load_u32_at(page, b + i);
            length = differ != 0 ? i + lowest_lane(differ) / 8 : i + 4;
            if (differ != 0 || length >= limit) {
                length = length < limit ? length : limit;
                open = false;
            }
        }
        std::uint32_t word = length | (open ? OPEN : 0u);
        if (from > 0 && page[here - 1] == page[from - 1])
            word |= BACK;
        finding[l] = word;
    });
    return finding;
}

// Places the pending sequences of lanes first..count-1 in the block: each
// lane sizes its own, and a prefix sum gives their positions.  False,
// placing nothing, when they would take the block past its limit.
OZRAM_KERNEL_FN bool place_pending(const Warp& warp, BlockWriter& block, PendingSequences& pending,
                                   std::uint32_t first) {
    const std::uint32_t count = pending.count;
    const std::uint32_t size = block.size;
    Lanes<std::uint32_t> bytes;
    warp.each([&](Lane l) {
        bytes[l] = l.id >= first && l.id < count
                       ? lz4::sequence_bytes(pending.literals[l], pending.match[l] & 0xffffu)
                       : 0u;
    });
    std::uint32_t total = 0;
    const Lanes<std::uint32_t> offset = warp.exclusive_sum(bytes, total);
    if (size + total > block.limit)
        return false;
    warp.each([&](Lane l) {
        if (l.id >= first && l.id < count)
            pending.at[l] = size + offset[l];
    });
    block.size = size + total;
    return true;
}

// Adds a sequence to the pending ones, unplaced; when they are 32, places
// those not yet placed and writes them all.  False when the block would
// pass its limit.
OZRAM_KERNEL_FN bool add_sequence(const Warp& warp, BlockWriter& block, PendingSequences& pending,
                                  std::uint32_t& placed, const std::uint8_t* page,
                                  std::uint32_t literal_start, std::uint32_t literals,
                                  std::uint32_t match) {
    const std::uint32_t k = pending.count;
    warp.each([&](Lane l) {
        if (l.id == k) {
            pending.literal_start[l] = literal_start;
            pending.literals[l] = literals;
            pending.match[l] = match;
        }
    });
    if (++pending.count < WARP_SIZE)
        return true;
    if (!place_pending(warp, block, pending, placed))
        return false;
    window::flush(warp, pending, page, block.out);
    placed = 0;
    return true;
}

// Encodes the page in shared memory as an LZ4 block of at most block.limit
// bytes into block.out; false when it does not fit.  The block is the one
// window::encode_block() writes.
template <unsigned HashLog>
OZRAM_KERNEL_FN bool encode_block(const Warp& warp, const std::uint8_t* page, std::uint16_t* table,
                                  BlockWriter& block) {
    constexpr std::uint32_t TABLE_BYTES = (1u << HashLog) * sizeof(std::uint16_t);
    auto* const table_bytes = reinterpret_cast<std::uint8_t*>(table);
    for (std::uint32_t i = 0; i < TABLE_BYTES; i += 16 * WARP_SIZE)
        warp.each([&](Lane l) { store_vec16(table_bytes + i + 16 * l.id, Vec16{}); });
    warp.sync();

    PendingSequences pending;
    Lanes<std::uint32_t> candidate, hash;
    Lanes<LaneMask> same_hash;
    std::uint32_t placed = 0;  // pending sequences already placed in the block
    std::uint32_t anchor = 0;
    for (std::uint32_t base = 0; base <= lz4::MATCH_START_LIMIT;) {
        if (block.size + lz4::sequence_bytes(base - anchor, 0) > block.limit)
            return false;
        const LaneMask found =
            window::probe<HashLog>(warp, page, table, base, candidate, hash, same_hash);
        const Lanes<std::uint32_t> finding = look_at_matches(warp, page, base, found, candidate);
        LaneMask covered = 0;  // positions inside a match, past its start
        while (anchor < base + WARP_SIZE) {
            const std::uint32_t from_lane = anchor > base ? anchor - base : 0;
            const LaneMask ahead = found & ~lanes_below(from_lane);
            if (ahead == 0)
                break;
            const unsigned winner = lowest_lane(ahead);
            std::uint32_t start = base + winner;
            std::uint32_t from = warp.broadcast(candidate, winner);
            const std::uint32_t word = warp.broadcast(finding, winner);
            std::uint32_t back = 0;
            if ((word & BACK) != 0 && start > anchor) {
                back = window::backward_extension(warp, page, start, from,
                                                  start - anchor < from ? start - anchor : from);
            }
            std::uint32_t length = back + lz4::MIN_MATCH + (word & EXTENSION_MASK);
            if ((word & OPEN) != 0) {
                length +=
                    window::forward_extension(warp, page, start + lz4::MIN_MATCH + LANE_EXTENSION,
                                              from + lz4::MIN_MATCH + LANE_EXTENSION);
            }
            start -= back;
            from -= back;
            if (!add_sequence(warp, block, pending, placed, page, anchor, start - anchor,
                              (start - from) << 16 | length))
                return false;
            anchor = start + length;
            covered |= lanes_between(winner + 1, anchor - base);
        }
        if (pending.count > placed) {
            if (!place_pending(warp, block, pending, placed))
                return false;
            placed = pending.count;
        }
        const LaneMask in_page = lanes_between(0, lz4::MATCH_START_LIMIT + 1 - base);
        window::insert_positions(warp, table, base, hash, same_hash, in_page & ~covered);
        base = anchor > base + WARP_SIZE ? anchor : base + WARP_SIZE;
    }
    if (!add_sequence(warp, block, pending, placed, page, anchor, PAGE_SIZE - anchor, 0) ||
        !place_pending(warp, block, pending, placed))
        return false;
    window::flush(warp, pending, page, block.out);
    return true;
}

}  // namespace ozram::kernels::window_lanes
