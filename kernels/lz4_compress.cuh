// LZ4 compression of one 4 KiB page by one warp, into the standard LZ4 block
// format (no frame), written once over the warp abstraction (warp.cuh).
//
// The parse is liblz4's greedy parse without its acceleration skips: at the
// current position the 32 lanes look at 32 consecutive positions at once, and
// the lowest position that has a verified 4-byte match wins.  Each lane's
// candidate is the nearest earlier lane of the same window holding the same 4
// bytes (what a sequential parse would just have inserted), else the hash
// table's entry.  Matches are extended 128 bytes per step (4 per lane).
#pragma once

#include <cstdint>

#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels {

// 4096 entries of 16-bit positions: 8 KiB, liblz4's table for small inputs.
inline constexpr unsigned HASH_LOG = 12;
inline constexpr unsigned HASH_ENTRIES = 1u << HASH_LOG;

// The compressor's per-warp shared memory (12 KiB).
struct CompressScratch {
    alignas(16) std::uint8_t page[PAGE_SIZE];
    std::uint16_t hash_table[HASH_ENTRIES];
};

namespace detail {

// Last position a match may start at, and the end a match may not pass.
inline constexpr std::uint32_t MATCH_START_LIMIT = PAGE_SIZE - lz4::MF_LIMIT;
inline constexpr std::uint32_t MATCH_END_LIMIT = PAGE_SIZE - lz4::LAST_LITERALS;

// liblz4's multiplicative hash of 4 bytes.
OZRAM_KERNEL_FN std::uint32_t hash4(std::uint32_t sequence) {
    return (sequence * 2654435761u) >> (32 - HASH_LOG);
}

// Bytes that follow the token to finish a length whose nibble is 15.
OZRAM_KERNEL_FN std::uint32_t extra_length_bytes(std::uint32_t length) {
    return length < lz4::RUN_MASK ? 0 : (length - lz4::RUN_MASK) / 255 + 1;
}

// Writes the 255-run continuation of a length >= 15; returns the next byte.
OZRAM_KERNEL_FN std::uint8_t* put_extra_length(std::uint8_t* p, std::uint32_t length) {
    std::uint32_t rest = length - lz4::RUN_MASK;
    for (; rest >= 255; rest -= 255)
        *p++ = 255;
    *p++ = static_cast<std::uint8_t>(rest);
    return p;
}

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
    const std::uint32_t match_code = match_length == 0 ? 0 : match_length - lz4::MIN_MATCH;
    const std::uint32_t literal_at = block.size + 1 + extra_length_bytes(literal_length);
    std::uint32_t end = literal_at + literal_length;
    if (match_length != 0)
        end += 2 + extra_length_bytes(match_code);
    if (end > block.limit)
        return false;

    std::uint8_t* const out = block.out;
    warp.single([&] {
        const std::uint32_t lit_nibble =
            literal_length < lz4::RUN_MASK ? literal_length : lz4::RUN_MASK;
        const std::uint32_t match_nibble = match_code < lz4::RUN_MASK ? match_code : lz4::RUN_MASK;
        out[block.size] = static_cast<std::uint8_t>(lit_nibble << 4 | match_nibble);
        if (literal_length >= lz4::RUN_MASK)
            put_extra_length(out + block.size + 1, literal_length);
        if (match_length != 0) {
            std::uint8_t* p = out + literal_at + literal_length;
            *p++ = static_cast<std::uint8_t>(offset);
            *p++ = static_cast<std::uint8_t>(offset >> 8);
            if (match_code >= lz4::RUN_MASK)
                put_extra_length(p, match_code);
        }
    });
    warp.each([&](Lane l) {
        for (std::uint32_t i = l.id; i < literal_length; i += WARP_SIZE)
            out[literal_at + i] = literals[i];
    });
    block.size = end;
    return true;
}

// How many bytes at page[a...] equal those at page[b...] (b < a), stopping
// at MATCH_END_LIMIT.  Each lane compares 4 bytes: 128 bytes per step.
OZRAM_KERNEL_FN std::uint32_t match_extension(const Warp& warp, const std::uint8_t* page,
                                              std::uint32_t a, std::uint32_t b) {
    for (std::uint32_t done = 0;; done += 4 * WARP_SIZE) {
        if (a + done >= MATCH_END_LIMIT)
            return MATCH_END_LIMIT - a;
        Lanes<std::uint32_t> stop_at;
        const LaneMask stopped = warp.ballot([&](Lane l) {
            for (std::uint32_t i = done + 4 * l.id; i < done + 4 * l.id + 4; ++i) {
                if (a + i >= MATCH_END_LIMIT || page[a + i] != page[b + i]) {
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
    const std::uint32_t pending = position - anchor;
    return block.size + 1 + extra_length_bytes(pending) + pending > block.limit;
}

// Encodes scratch.page as an LZ4 block of at most block.limit bytes.
OZRAM_KERNEL_FN bool encode_block(const Warp& warp, CompressScratch& scratch, BlockWriter& block) {
    const std::uint8_t* const page = scratch.page;
    std::uint16_t* const table = scratch.hash_table;

    // Entries start at position 0; every candidate is verified before use.
    warp.each([&](Lane l) {
        for (std::uint32_t i = l.id; i < HASH_ENTRIES; i += WARP_SIZE)
            table[i] = 0;
    });
    warp.sync();

    std::uint32_t anchor = 0;
    std::uint32_t position = 0;
    while (position <= MATCH_START_LIMIT) {
        const std::uint32_t left = MATCH_START_LIMIT - position + 1;
        const LaneMask in_page = left >= WARP_SIZE ? ~LaneMask{0} : lanes_below(left);

        Lanes<std::uint32_t> sequence, hash, candidate;
        warp.each([&](Lane l) {
            const bool valid = (in_page >> l.id) & 1u;
            sequence[l] = valid ? load_u32_le(page + position + l.id) : 0;
            hash[l] = valid ? hash4(sequence[l]) : 0;
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
            table[hash4(load_u32_le(page + position - 2))] =
                static_cast<std::uint16_t>(position - 2);
        });
        warp.sync();
    }
    return put_sequence(warp, block, page + anchor, PAGE_SIZE - anchor, 0, 0);
}

// Copies the page from global memory into shared memory, 8 bytes per lane.
OZRAM_KERNEL_FN void load_page(const Warp& warp, const std::uint8_t* src, std::uint8_t* dst) {
    warp.each([&](Lane l) {
        for (std::uint32_t i = 8 * l.id; i < PAGE_SIZE; i += 8 * WARP_SIZE)
            store_u64_aligned(dst + i, load_u64_aligned(src + i));
    });
    warp.sync();
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

}  // namespace detail

// Compresses the page at `src` (8-byte aligned) into the PAGE_SIZE slot at
// `out` (8-byte aligned) and describes it in `descriptor`: same-filled pages
// get their word and no bytes; pages whose LZ4 block would be longer than
// huge_threshold bytes (the largest block kept) are stored raw (the page
// copied to the slot).
OZRAM_KERNEL_FN void compress_page(const Warp& warp, CompressScratch& scratch,
                                   const std::uint8_t* src, std::uint8_t* out,
                                   PageDescriptor& descriptor, std::uint32_t huge_threshold) {
    detail::load_page(warp, src, scratch.page);

    PageDescriptor result{0, 0, PageEncoding::Lz4, PAGE_OK, 0};
    if (detail::same_filled(warp, scratch.page, result.fill_word)) {
        result.encoding = PageEncoding::SameFilled;
    } else {
        detail::BlockWriter block{
            out, 0, huge_threshold < PAGE_SIZE ? huge_threshold : std::uint32_t{PAGE_SIZE}};
        if (detail::encode_block(warp, scratch, block)) {
            result.size = block.size;
        } else {
            result.encoding = PageEncoding::Raw;
            result.size = std::uint32_t{PAGE_SIZE};
            detail::load_page(warp, scratch.page, out);
        }
    }
    warp.single([&] { descriptor = result; });
}

}  // namespace ozram::kernels
