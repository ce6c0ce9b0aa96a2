/* Deterministic page contents shared by the VM test programs.
 *
 * Each page is a pure function of (seed, index), so a writer and a later
 * verifier (possibly in another process, after swap or a remount) agree on
 * every byte without keeping a copy.  The mix imitates what a swap device
 * sees: zero pages, pages filled with one word (zram's "same" pages),
 * text-like pages, small-integer arrays, and incompressible data.
 */
#ifndef OZRAM_VM_PAGEMIX_H
#define OZRAM_VM_PAGEMIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PAGE_BYTES 4096

enum page_kind {
    PAGE_ZERO,
    PAGE_SAME,   /* one 64-bit word repeated */
    PAGE_TEXT,   /* words from a small vocabulary: compresses well */
    PAGE_INTS,   /* array of small integers: compresses moderately */
    PAGE_RANDOM, /* incompressible */
    PAGE_MIXED,  /* not a kind of its own: pick one of the above per page */
};

static inline uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t page_state(uint64_t seed, uint64_t index) {
    uint64_t s = seed * 0x100000001b3ULL ^ index;
    return splitmix64(&s);
}

/* Share of each kind in a mixed stream, in percent: zero 15, same 10,
 * text 40, ints 15, random 20. */
static inline enum page_kind page_kind_of(uint64_t seed, uint64_t index) {
    uint64_t s = page_state(seed, index) ^ 0x5bd1e995ULL;
    unsigned pick = (unsigned)(splitmix64(&s) % 100);

    if (pick < 15)
        return PAGE_ZERO;
    if (pick < 25)
        return PAGE_SAME;
    if (pick < 65)
        return PAGE_TEXT;
    if (pick < 80)
        return PAGE_INTS;
    return PAGE_RANDOM;
}

static inline void fill_text(uint8_t* page, uint64_t* s) {
    static const char* const words[] = {
        "the ",    "page ", "swap ",   "memory ", "kernel ", "device ", "block ",
        "data ",   "zram ", "write ",  "read ",   "and ",    "of ",     "to ",
        "buffer ", "\n",    "struct ", "return ", "{ ",      "} ",      "int ",
    };
    const size_t nwords = sizeof(words) / sizeof(words[0]);
    size_t pos = 0;

    while (pos < PAGE_BYTES) {
        const char* w = words[splitmix64(s) % nwords];
        size_t len = strlen(w);

        if (len > PAGE_BYTES - pos)
            len = PAGE_BYTES - pos;
        memcpy(page + pos, w, len);
        pos += len;
    }
}

static inline void fill_page_kind(uint8_t* page, uint64_t seed, uint64_t index,
                                  enum page_kind kind) {
    uint64_t s = page_state(seed, index);

    if (kind == PAGE_MIXED)
        kind = page_kind_of(seed, index);

    switch (kind) {
        case PAGE_ZERO:
            memset(page, 0, PAGE_BYTES);
            break;
        case PAGE_SAME: {
            uint64_t word = splitmix64(&s) | 1; /* never the zero page */
            for (size_t i = 0; i < PAGE_BYTES; i += sizeof(word))
                memcpy(page + i, &word, sizeof(word));
            break;
        }
        case PAGE_TEXT:
            fill_text(page, &s);
            break;
        case PAGE_INTS:
            for (size_t i = 0; i < PAGE_BYTES; i += 4) {
                uint32_t v = (uint32_t)(splitmix64(&s) % 1000);
                memcpy(page + i, &v, sizeof(v));
            }
            break;
        case PAGE_RANDOM:
        default:
            for (size_t i = 0; i < PAGE_BYTES; i += 8) {
                uint64_t v = splitmix64(&s);
                memcpy(page + i, &v, sizeof(v));
            }
            break;
    }
}

static inline void fill_page(uint8_t* page, uint64_t seed, uint64_t index) {
    fill_page_kind(page, seed, index, PAGE_MIXED);
}

#endif
