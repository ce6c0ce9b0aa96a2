/* pagegen: write pages of realistic, mixed content to stdout.
 *
 * The deterministic kinds (zero, same, text, ints, random, mixed) are a pure
 * function of --seed and the page index, so the same command line always
 * gives the same bytes.  The "heap" kind is real process memory: pages of
 * this program's own heap holding linked nodes with pointers and small
 * counters, like the anonymous memory a swap device receives; it differs
 * from run to run (addresses), so save it before comparing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pagemix.h"

struct node {
    struct node* next;
    struct node* prev;
    uint32_t id;
    uint32_t refs;
    char name[16];
};

static void usage(FILE* out) {
    fprintf(out,
            "usage: pagegen [--pages N] [--seed S] [--first I] [--kind KIND]\n"
            "Writes N (default 256) pages of 4096 bytes to stdout.\n"
            "  --seed S    pattern seed (default 1)\n"
            "  --first I   index of the first page (default 0), so that a range\n"
            "              of a longer stream can be produced on its own\n"
            "  --kind K    mixed (default), zero, same, text, ints, random, or heap\n"
            "              (heap: real pages of this process's heap, not repeatable)\n");
}

static int parse_kind(const char* s, enum page_kind* kind, int* heap) {
    static const struct {
        const char* name;
        enum page_kind kind;
    } kinds[] = {
        {"mixed", PAGE_MIXED}, {"zero", PAGE_ZERO}, {"same", PAGE_SAME},
        {"text", PAGE_TEXT},   {"ints", PAGE_INTS}, {"random", PAGE_RANDOM},
    };
    *heap = !strcmp(s, "heap");
    if (*heap)
        return 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (!strcmp(s, kinds[i].name)) {
            *kind = kinds[i].kind;
            return 0;
        }
    }
    return -1;
}

/* Builds a doubly linked list in one heap block and emits its pages. */
static int write_heap_pages(uint64_t pages) {
    size_t bytes = (size_t)pages * PAGE_BYTES;
    uint8_t* block = malloc(bytes);
    if (!block) {
        perror("pagegen: malloc");
        return 1;
    }
    size_t count = bytes / sizeof(struct node);
    struct node* nodes = (struct node*)block;
    memset(block, 0, bytes);
    for (size_t i = 0; i < count; i++) {
        nodes[i].next = i + 1 < count ? &nodes[i + 1] : NULL;
        nodes[i].prev = i ? &nodes[i - 1] : NULL;
        nodes[i].id = (uint32_t)i;
        nodes[i].refs = (uint32_t)(i % 7);
        snprintf(nodes[i].name, sizeof(nodes[i].name), "obj-%zu", i % 100000);
    }
    int rc = fwrite(block, PAGE_BYTES, pages, stdout) == pages ? 0 : 1;
    if (rc)
        perror("pagegen: write");
    free(block);
    return rc;
}

int main(int argc, char** argv) {
    uint64_t pages = 256, seed = 1, first = 0;
    enum page_kind kind = PAGE_MIXED;
    int heap = 0;

    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (v && !strcmp(a, "--pages")) {
            pages = strtoull(v, NULL, 0);
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0);
        } else if (v && !strcmp(a, "--first")) {
            first = strtoull(v, NULL, 0);
        } else if (v && !strcmp(a, "--kind")) {
            if (parse_kind(v, &kind, &heap)) {
                fprintf(stderr, "pagegen: unknown kind '%s'\n", v);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
        i++;
    }

    if (heap)
        return write_heap_pages(pages);

    uint8_t page[PAGE_BYTES];
    for (uint64_t i = 0; i < pages; i++) {
        fill_page_kind(page, seed, first + i, kind);
        if (fwrite(page, PAGE_BYTES, 1, stdout) != 1) {
            perror("pagegen: write");
            return 1;
        }
    }
    return fflush(stdout) ? 1 : 0;
}
