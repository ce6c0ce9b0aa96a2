// The window parse: LZ4 compression of one 4 KiB page by one warp that
// probes 32 positions at once and then takes every match that window holds
// before it probes again.
//
// A probe step gives each lane l the position base + l, its 4 bytes, their
// hash, and a candidate: the nearest earlier lane of the window with the same
// hash, else the hash table's entry (the last position with that hash in an
// earlier window).  A ballot of the lanes whose candidate holds the same 4
// bytes is the window's match mask; every position of the window that no
// match covers then goes into the table.  The parse walks the mask: the
// lowest match at or after the parse position wins, is extended backwards
// over pending literals and forwards 128 bytes a step, and the parse resumes
// at its end, in the same window while the end lies inside it.  A window is
// probed once, however many matches it holds; positions that a match covers
// past the window's end are skipped, as liblz4 skips them.
//
// Sequences are not written as they are found: lane k keeps the k-th of up to
// 32.  Before a window that could find more than the lanes have room for, the
// lanes size theirs, place them with a prefix sum, write their headers at
// once, and the warp copies the long literal runs, 32 bytes a step.  Finding
// a sequence is then a few instructions of uniform code, with no test of the
// lanes' room or of the block's limit; its sizing runs on its own lane.
//
// The output is a valid LZ4 block, not liblz4's block: every probed position
// that no match covers is a match candidate for later ones (liblz4 inserts
// only those it probes) and there are no acceleration skips, so it is
// usually a little smaller.
#pragma once

#include <cstdint>

#include "lz4_format.cuh"
#include "page_codec.cuh"
#include "warp.cuh"

namespace ozram::kernels::window {

// The block being written, bounded by `limit` bytes; size counts the
// sequences written.
struct BlockWriter {
    std::uint8_t* out;
    std::uint32_t size;
    std::uint32_t limit;
};

// Sequences found but not yet written: lane k holds the k-th.
struct PendingSequences {
    Lanes<std::uint32_t> literal_start;  // page position of the literals
    Lanes<std::uint32_t> literals;       // how many
    Lanes<std::uint32_t> match;          // offset << 16 | match length (0: last sequence)
    std::uint32_t count = 0;
};

// Literal runs up to this long are copied by the lane that holds their
// sequence; longer ones by the whole warp.  Most runs are a few bytes: a
// lane's own loop beats three broadcasts and a warp-wide copy for each.
inline constexpr std::uint32_t SHORT_LITERALS = 16;

// Writes the pending sequences after the block's bytes: each lane sizes its
// sequence, a prefix sum places them, each lane writes its header and short
// literals, then the warp the long literal runs one after the other.  False,
// writing nothing, when they would take the block past its limit: the block
// is then marked full (its size past the limit), so that the parse stops and
// every later flush fails too.
OZRAM_KERNEL_FN bool flush(const Warp& warp, PendingSequences& pending, const std::uint8_t* page,
                           BlockWriter& block) {
    const std::uint32_t count = pending.count;
    Lanes<std::uint32_t> size;  // each lane's sequence's bytes
    warp.each([&](Lane l) {
        size[l] =
            l.id < count ? lz4::sequence_bytes(pending.literals[l], pending.match[l] & 0xffffu) : 0;
    });
    // Where each lane's sequence ends, counted from where the first starts.
    const Lanes<std::uint32_t> end = warp.inclusive_sum(size);
    const std::uint32_t bytes = warp.broadcast(end, WARP_SIZE - 1);
    pending.count = 0;
    if (block.size + bytes > block.limit) {
        block.size = block.limit + 1;
        return false;
    }
    Lanes<std::uint32_t> at;  // block position of each lane's token
    const LaneMask long_runs = warp.ballot([&](Lane l) {
        if (l.id >= count)
            return false;
        const std::uint32_t literals = pending.literals[l];
        at[l] = block.size + end[l] - size[l];
        std::uint8_t* const to = block.out + at[l];
        lz4::put_sequence_header(to, literals, pending.match[l] >> 16, pending.match[l] & 0xffffu);
        if (literals > SHORT_LITERALS)
            return true;
        const std::uint8_t* const from = page + pending.literal_start[l];
        std::uint8_t* const literals_to = to + lz4::literals_at(literals);
        for (std::uint32_t i = 0; i < literals; ++i)
            literals_to[i] = from[i];
        return false;
    });
    for (LaneMask rest = long_runs; rest != 0; rest &= rest - 1) {
        const unsigned k = lowest_lane(rest);
        const std::uint32_t literals = warp.broadcast(pending.literals, k);
        const std::uint32_t from = warp.broadcast(pending.literal_start, k);
        const std::uint32_t to = warp.broadcast(at, k) + lz4::literals_at(literals);
        lz4::copy_bytes(warp, page + from, block.out + to, literals);
    }
    block.size += bytes;
    return true;
}

// Adds a sequence (match_length 0: the last one, literals only); the caller
// makes room first.
OZRAM_KERNEL_FN void add_sequence(const Warp& warp, PendingSequences& pending,
                                  std::uint32_t literal_start, std::uint32_t literals,
                                  std::uint32_t offset, std::uint32_t match_length) {
    const std::uint32_t k = pending.count;
    warp.each([&](Lane l) {
        if (l.id == k) {
            pending.literal_start[l] = literal_start;
            pending.literals[l] = literals;
            pending.match[l] = offset << 16 | match_length;
        }
    });
    ++pending.count;
}

// A window adds at most this many sequences: each match starts in it, at or
// after the end of the one before, and is at least MIN_MATCH bytes long.
inline constexpr std::uint32_t SEQUENCES_PER_WINDOW = WARP_SIZE / lz4::MIN_MATCH;

// Writes the pending sequences if `sequences` more would not fit in the
// lanes: tested once a window instead of once a sequence.
OZRAM_KERNEL_FN void make_room(const Warp& warp, PendingSequences& pending,
                               const std::uint8_t* page, BlockWriter& block,
                               std::uint32_t sequences) {
    if (pending.count + sequences > WARP_SIZE)
        flush(warp, pending, page, block);
}

// One probe of the window [base, base + 32): each lane's candidate, and the
// mask of lanes whose candidate holds the same 4 bytes.  Then the window's
// positions go into the table (of lanes with one hash, the last).  Lanes past
// the last position a match may start at (in the page's last window or two)
// take no part; they are masked, not branched around, so that every lane
// runs the same instructions.
template <unsigned HashLog>
OZRAM_KERNEL_FN LaneMask probe(const Warp& warp, const std::uint8_t* page,
                               const std::uint16_t* table, std::uint32_t base,
                               Lanes<std::uint32_t>& candidate, Lanes<std::uint32_t>& hash,
                               Lanes<LaneMask>& same_hash) {
    Lanes<std::uint32_t> sequence;
    warp.each([&](Lane l) {
        const std::uint32_t here = base + l.id;
        const std::uint32_t at = here <= lz4::MATCH_START_LIMIT ? here : lz4::MATCH_START_LIMIT;
        sequence[l] = load_u32_at(page, at);
        const std::uint32_t at_hash = lz4::hash4<HashLog>(sequence[l]);
        candidate[l] = table[at_hash];
        // No real hash has the value of a lane past the limit: it matches no lane.
        hash[l] = here <= lz4::MATCH_START_LIMIT ? at_hash : 0x80000000u | l.id;
    });
    same_hash = warp.match_any(hash);
    const LaneMask found = warp.ballot([&](Lane l) {
        const std::uint32_t here = base + l.id;
        const LaneMask earlier = same_hash[l] & warp.lanes_before(l);
        if (earlier != 0)
            candidate[l] = base + highest_lane(earlier);
        // The tests are all made, with no branch between them: a candidate
        // is a page position, so its word is always in the page or its pad.
        const bool in_page = here <= lz4::MATCH_START_LIMIT;
        const bool before = candidate[l] < here;
        const bool same = load_u32_at(page, candidate[l]) == sequence[l];
        return in_page && before && same;
    });
    return found;
}

// Puts the window's positions of `insert` into the table: of lanes with one
// hash, the last.
OZRAM_KERNEL_FN void insert_positions(const Warp& warp, std::uint16_t* table, std::uint32_t base,
                                      const Lanes<std::uint32_t>& hash,
                                      const Lanes<LaneMask>& same_hash, LaneMask insert) {
    warp.sync();  // every lane has read the table before any lane writes it
    warp.each([&](Lane l) {
        const LaneMask group = same_hash[l] & insert;
        if ((group >> l.id) == 1u)
            table[hash[l]] = static_cast<std::uint16_t>(base + l.id);
    });
    warp.sync();
}

// How many bytes before page[a] equal those before page[b] (b < a), at most
// `most`.  Most matches extend by none, which one comparison tells.
OZRAM_KERNEL_FN std::uint32_t backward_extension(const Warp& warp, const std::uint8_t* page,
                                                 std::uint32_t a, std::uint32_t b,
                                                 std::uint32_t most) {
    if (most == 0 || page[a - 1] != page[b - 1])
        return 0;
    for (std::uint32_t done = 0;; done += WARP_SIZE) {
        const LaneMask differs = warp.ballot([&](Lane l) {
            const std::uint32_t i = done + l.id + 1;
            return i > most || page[a - i] != page[b - i];
        });
        if (differs != 0)
            return done + lowest_lane(differs);
    }
}

// How many bytes at page[a...] equal those at page[b...] (b < a), stopping at
// MATCH_END_LIMIT, for the bytes after a match's first 4 (a is at most
// MATCH_START_LIMIT + MIN_MATCH).  Each lane compares 4 bytes as a word: 128
// bytes a step.
OZRAM_KERNEL_FN std::uint32_t forward_extension(const Warp& warp, const std::uint8_t* page,
                                                std::uint32_t a, std::uint32_t b) {
    const std::uint32_t limit = lz4::MATCH_END_LIMIT - a;
    // Nearly half of all matches end within their next 4 bytes: one word
    // compare tells, without the warp.  Its first differing byte (0 to 3)
    // is never past the limit, which leaves at least 3 bytes, so the word
    // needs no test of the limit.
    static_assert(lz4::MATCH_END_LIMIT - (lz4::MATCH_START_LIMIT + lz4::MIN_MATCH) >= 3);
    const std::uint32_t differ = load_u32_at(page, a) ^ load_u32_at(page, b);
    if (differ != 0)
        return lowest_lane(differ) / 8;
    for (std::uint32_t done = 0;; done += 4 * WARP_SIZE) {
        if (done >= limit)
            return limit;
        Lanes<std::uint32_t> stop;
        const LaneMask stopped = warp.ballot([&](Lane l) {
            const std::uint32_t i = done + 4 * l.id;
            if (i >= limit) {
                stop[l] = limit;
                return true;
            }
            const std::uint32_t differ = load_u32_at(page, a + i) ^ load_u32_at(page, b + i);
            const std::uint32_t at = differ != 0 ? i + lowest_lane(differ) / 8 : i + 4;
            stop[l] = at < limit ? at : limit;
            return differ != 0 || i + 4 >= limit;
        });
        if (stopped != 0)
            return warp.broadcast(stop, lowest_lane(stopped));
    }
}

// Encodes the page in shared memory as an LZ4 block of at most block.limit
// bytes into block.out; false when it does not fit.
template <unsigned HashLog>
OZRAM_KERNEL_FN bool encode_block(const Warp& warp, const std::uint8_t* page, std::uint16_t* table,
                                  BlockWriter& block) {
    // Entries start at position 0; every candidate is verified before use.
    // The table is cleared 16 bytes a lane.
    constexpr std::uint32_t TABLE_BYTES = (1u << HashLog) * sizeof(std::uint16_t);
    auto* const table_bytes = reinterpret_cast<std::uint8_t*>(table);
    for (std::uint32_t i = 0; i < TABLE_BYTES; i += 16 * WARP_SIZE)
        warp.each([&](Lane l) { store_vec16(table_bytes + i + 16 * l.id, Vec16{}); });
    warp.sync();

    PendingSequences pending;
    Lanes<std::uint32_t> candidate, hash;
    Lanes<LaneMask> same_hash;
    std::uint32_t anchor = 0;
    // A flush that passes the limit ends the parse at the next window; the
    // last flush then fails too, and the page is stored raw.
    for (std::uint32_t base = 0; base <= lz4::MATCH_START_LIMIT && block.size <= block.limit;) {
        make_room(warp, pending, page, block, SEQUENCES_PER_WINDOW);
        const LaneMask found = probe<HashLog>(warp, page, table, base, candidate, hash, same_hash);
        LaneMask covered = 0;  // positions inside a match, past its start
        while (anchor < base + WARP_SIZE) {
            const std::uint32_t from_lane = anchor > base ? anchor - base : 0;
            const LaneMask ahead = found & lanes_between(from_lane, WARP_SIZE);
            if (ahead == 0)
                break;
            const unsigned winner = lowest_lane(ahead);
            std::uint32_t start = base + winner;
            std::uint32_t from = warp.broadcast(candidate, winner);
            const std::uint32_t back = backward_extension(
                warp, page, start, from, start - anchor < from ? start - anchor : from);
            start -= back;
            from -= back;
            const std::uint32_t length =
                back + lz4::MIN_MATCH +
                forward_extension(warp, page, start + back + lz4::MIN_MATCH,
                                  from + back + lz4::MIN_MATCH);
            add_sequence(warp, pending, anchor, start - anchor, start - from, length);
            anchor = start + length;
            covered |= lanes_between(winner + 1, anchor - base);
        }
        const LaneMask in_page = lanes_between(0, lz4::MATCH_START_LIMIT + 1 - base);
        insert_positions(warp, table, base, hash, same_hash, in_page & ~covered);
        base = anchor > base + WARP_SIZE ? anchor : base + WARP_SIZE;
    }
    make_room(warp, pending, page, block, 1);
    add_sequence(warp, pending, anchor, PAGE_SIZE - anchor, 0, 0);
    return flush(warp, pending, page, block);
}

}  // namespace ozram::kernels::window
