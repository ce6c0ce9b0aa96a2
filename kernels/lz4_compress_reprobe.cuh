// The reprobe parse: the first compression kernel, kept to compare the
// window parse against (make bench counts both).  liblz4's greedy parse
// without its acceleration skips: at the current position the 32 lanes look
// at 32 consecutive positions at once, and the lowest position that has a
// verified 4-byte match wins.  Each lane's candidate is the nearest earlier
// lane of the same window holding the same 4 bytes (what a sequential parse
// would just have inserted), else the hash table's entry.  After every match
// the 32 positions after its end are probed anew.  Matches are extended 128
// bytes per step (4 per lane); each sequence is written as it is found, its
// header by one lane.
#pragma once

#include <cstdint>

#include "lz4_format.cuh"
#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels::reprobe {

inline constexpr unsigned HASH_LOG = 12;

// The compressed block being written, bounded by `limit` bytes.
struct BlockWriter {
    std::uint8_t* out;
    std::uint32_t size;
    std::uint32_t limit;
};

// Appends one sequence: literals, then (unless match_length is 0, which ends
// the block) a match.  Returns false, writing nothing, when it would not fit.
OZRAM_KERNEL_FN bool put_sequence(const Warp& warp, BlockWriter& block,
                                  const std::uint8_t* literals, std::uint32_t literal_length,
                                  std::uint32_t offset, std::uint32_t match_length) {
    const std::uint32_t end = block.size + lz4::sequence_bytes(literal_length, match_length);
    if (end > block.limit)
        return false;
    std::uint8_t* const at = block.out + block.size;
    warp.single([&] { lz4::put_sequence_header(at, literal_length, offset, match_length); });
    lz4::copy_bytes(warp, literals, at + lz4::literals_at(literal_length), literal_length);
    block.size = end;
    return true;
}

// How many bytes at page[a...] equal those at page[b...] (b < a), stopping
// at MATCH_END_LIMIT.  Each lane compares 4 bytes: 128 bytes per step.
OZRAM_KERNEL_FN std::uint32_t match_extension(const Warp& warp, const std::uint8_t* page,
                                              std::uint32_t a, std::uint32_t b) {
    for (std::uint32_t done = 0;; done += 4 * WARP_SIZE) {
        if (a + done >= lz4::MATCH_END_LIMIT)
            return lz4::MATCH_END_LIMIT - a;
        Lanes<std::uint32_t> stop_at;
        const LaneMask stopped = warp.ballot([&](Lane l) {
            for (std::uint32_t i = done + 4 * l.id; i < done + 4 * l.id + 4; ++i) {
                if (a + i >= lz4::MATCH_END_LIMIT || page[a + i] != page[b + i]) {
                    stop_at[l] = i;
                    return true;
                }
            }
            return false;
        });
        if (stopped != 0)
            return warp.broadcast(stop_at, lowest_lane(stopped));
    }
}

// Whether the literals pending from `anchor` up to `position` can no longer
// fit: then no parse of the rest of the page fits either.
OZRAM_KERNEL_FN bool literals_overflow(const BlockWriter& block, std::uint32_t anchor,
                                       std::uint32_t position) {
    return block.size + lz4::sequence_bytes(position - anchor, 0) > block.limit;
}

// Encodes the page in shared memory as an LZ4 block of at most block.limit
// bytes into block.out; false when it does not fit.
OZRAM_KERNEL_FN bool encode_block(const Warp& warp, const std::uint8_t* page, std::uint16_t* table,
                                  BlockWriter& block) {
    constexpr std::uint32_t ENTRIES = 1u << HASH_LOG;
    // Entries start at position 0; every candidate is verified before use.
    for (std::uint32_t i = 0; i < ENTRIES; i += WARP_SIZE)
        warp.each([&](Lane l) { table[i + l.id] = 0; });
    warp.sync();

    std::uint32_t anchor = 0;
    std::uint32_t position = 0;
    while (position <= lz4::MATCH_START_LIMIT) {
        const std::uint32_t left = lz4::MATCH_START_LIMIT - position + 1;
        const LaneMask in_page = left >= WARP_SIZE ? ~LaneMask{0} : lanes_below(left);

        Lanes<std::uint32_t> sequence, hash, candidate;
        warp.each([&](Lane l) {
            const bool valid = (in_page >> l.id) & 1u;
            sequence[l] = valid ? load_u32_le(page + position + l.id) : 0;
            hash[l] = valid ? lz4::hash4<HASH_LOG>(sequence[l]) : 0;
            candidate[l] = valid ? table[hash[l]] : 0;
        });
        const Lanes<LaneMask> same_sequence = warp.match_any(sequence);
        const Lanes<LaneMask> same_hash = warp.match_any(hash);

        const LaneMask found = warp.ballot([&](Lane l) {
            if (((in_page >> l.id) & 1u) == 0)
                return false;
            const std::uint32_t here = position + l.id;
            const LaneMask earlier = same_sequence[l] & in_page & lanes_below(l.id);
            if (earlier != 0) {
                candidate[l] = position + highest_lane(earlier);
                return true;
            }
            const std::uint32_t from = candidate[l];
            return from < here && here - from <= lz4::MAX_DISTANCE &&
                   load_u32_le(page + from) == sequence[l];
        });

        // Record the positions this step consumed: up to the match, or all.
        // Of several lanes with the same hash, the last one (the nearest
        // position) writes, as a sequential parse would leave it.
        const LaneMask consumed =
            found != 0 ? lanes_below(lowest_lane(found)) | (LaneMask{1} << lowest_lane(found))
                       : in_page;
        warp.sync();  // every lane has read the table before any lane writes it
        warp.each([&](Lane l) {
            const LaneMask group = same_hash[l] & consumed;
            if ((group >> l.id) == 1u)
                table[hash[l]] = static_cast<std::uint16_t>(position + l.id);
        });
        warp.sync();

        if (found == 0) {
            position += WARP_SIZE;
            if (literals_overflow(block, anchor, position))
                return false;
            continue;
        }

        const unsigned winner = lowest_lane(found);
        std::uint32_t start = position + winner;
        std::uint32_t from = warp.broadcast(candidate, winner);
        while (start > anchor && from > 0 && page[start - 1] == page[from - 1]) {
            --start;
            --from;
        }
        const std::uint32_t length =
            lz4::MIN_MATCH +
            match_extension(warp, page, start + lz4::MIN_MATCH, from + lz4::MIN_MATCH);
        if (!put_sequence(warp, block, page + anchor, start - anchor, start - from, length))
            return false;
        position = start + length;
        anchor = position;

        // Like liblz4, remember the position two bytes before the match end.
        warp.single([&] {
            table[lz4::hash4<HASH_LOG>(load_u32_le(page + position - 2))] =
                static_cast<std::uint16_t>(position - 2);
        });
        warp.sync();
    }
    return put_sequence(warp, block, page + anchor, PAGE_SIZE - anchor, 0, 0);
}

}  // namespace ozram::kernels::reprobe
