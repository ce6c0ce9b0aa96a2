/* memhog: allocate more anonymous memory than the machine has, fill every
 * page with a deterministic pattern (the pagemix of zero, same-filled,
 * text-like, integer and random pages), then read every page back and
 * compare it byte for byte.  Run with swap on a compressed block device, it
 * pushes pages out through the device and back in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pagemix.h"

static void usage(FILE* out) {
    fprintf(out,
            "usage: memhog --mb N [--seed S] [--passes P] [--incompressible PCT]\n"
            "Fills N MiB of anonymous memory with a deterministic page mix, then\n"
            "verifies every byte P times (default 1).  PCT percent of the pages\n"
            "(default 10) are random; the rest are zero, same-filled, text-like and\n"
            "integer pages.  Exit status 1 on any mismatch, 2 on usage error, 3 if\n"
            "the memory cannot be mapped.\n");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned incompressible_pct = 10;

/* The pagemix, with the share of random pages set by --incompressible: how
 * much swap a given amount of memory needs depends mostly on that share. */
static void fill_hog_page(uint8_t* page, uint64_t seed, uint64_t index) {
    uint64_t s = page_state(seed, index) ^ 0x486f67ULL;
    enum page_kind kind = page_kind_of(seed, index);

    if (splitmix64(&s) % 100 < incompressible_pct)
        kind = PAGE_RANDOM;
    else if (kind == PAGE_RANDOM)
        kind = PAGE_ZERO;
    fill_page_kind(page, seed, index, kind);
}

static uint64_t verify(const uint8_t* mem, uint64_t pages, uint64_t seed) {
    uint8_t expect[PAGE_BYTES];
    uint64_t bad = 0;

    for (uint64_t i = 0; i < pages; i++) {
        const uint8_t* page = mem + i * PAGE_BYTES;
        fill_hog_page(expect, seed, i);
        if (memcmp(page, expect, PAGE_BYTES) == 0)
            continue;
        if (bad < 10) {
            size_t off = 0;
            while (page[off] == expect[off])
                off++;
            fprintf(stderr, "memhog: page %llu differs at byte %zu: 0x%02x, expected 0x%02x\n",
                    (unsigned long long)i, off, page[off], expect[off]);
        }
        bad++;
    }
    return bad;
}

int main(int argc, char** argv) {
    uint64_t mb = 0, seed = 1, passes = 1;

    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (v && !strcmp(a, "--mb")) {
            mb = strtoull(v, NULL, 0);
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0);
        } else if (v && !strcmp(a, "--incompressible")) {
            incompressible_pct = (unsigned)strtoul(v, NULL, 0);
        } else if (v && !strcmp(a, "--passes")) {
            passes = strtoull(v, NULL, 0);
        } else {
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (mb == 0 || incompressible_pct > 100) {
        usage(stderr);
        return 2;
    }

    uint64_t pages = mb * 1024 * 1024 / PAGE_BYTES;
    uint8_t* mem = mmap(NULL, pages * PAGE_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        fprintf(stderr, "memhog: cannot map %llu MiB: %s\n", (unsigned long long)mb,
                strerror(errno));
        return 3;
    }

    double t0 = now_s();
    for (uint64_t i = 0; i < pages; i++)
        fill_hog_page(mem + i * PAGE_BYTES, seed, i);
    double t1 = now_s();
    printf("memhog: wrote %llu MiB (%llu pages) in %.3f s\n", (unsigned long long)mb,
           (unsigned long long)pages, t1 - t0);
    fflush(stdout);

    uint64_t bad = 0;
    for (uint64_t p = 0; p < passes; p++) {
        double v0 = now_s();
        uint64_t b = verify(mem, pages, seed);
        printf("memhog: verify pass %llu: %llu of %llu pages differ (%.3f s)\n",
               (unsigned long long)p + 1, (unsigned long long)b, (unsigned long long)pages,
               now_s() - v0);
        fflush(stdout);
        bad += b;
    }
    munmap(mem, pages * PAGE_BYTES);
    if (bad) {
        fprintf(stderr, "memhog: FAILED: %llu corrupted pages\n", (unsigned long long)bad);
        return 1;
    }
    printf("memhog: OK\n");
    return 0;
}
