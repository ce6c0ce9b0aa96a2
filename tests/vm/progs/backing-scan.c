/* backing-scan: what a backing device holds after a writeback, block by
 * block, checked against the pages that were written to the ozram device.
 *
 * Every 4 KiB block of IMAGE must be one of:
 *   - all zeros (never written, or the end of a packed bio);
 *   - a page of PAGES, stored raw (a page that did not compress);
 *   - zstd frames packed byte after byte, each one decoding to a page of
 *     PAGES, the last one of a bio followed by zeros up to its block's end.
 * Any other byte is one that no object put there (stale memory written to
 * the disk): the scan names its offset and fails.
 *
 * The device must compress with zstd (comp_algorithm=zstd): a zstd frame
 * says where it ends (ZSTD_findFrameCompressedSize), so the scan walks
 * from one object to the next without knowing their sizes.
 *
 * Prints "objects N raw R zero Z" and exits 0, or 1 after the first byte
 * that is none of the above.  Usage: backing-scan IMAGE PAGES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pagemix.h"

struct pages {
    uint8_t* data;
    size_t nr;
    uint64_t* sorted; /* (hash << 20 | index) of every page, sorted */
};

static uint64_t fnv1a(const uint8_t* p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static int compare_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

static uint8_t* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    uint8_t* data = NULL;
    size_t cap = 0, len = 0, n;

    if (!f) {
        perror(path);
        return NULL;
    }
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 20;
            data = realloc(data, cap);
            if (!data) {
                fprintf(stderr, "backing-scan: out of memory\n");
                exit(2);
            }
        }
        n = fread(data + len, 1, cap - len, f);
        len += n;
    } while (n);
    if (ferror(f)) {
        perror(path);
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    *size = len;
    return data;
}

/* The index of the page of @pages equal to @page, or -1. */
static long page_index(const struct pages* pages, const uint8_t* page) {
    uint64_t key = fnv1a(page, PAGE_BYTES) << 20;
    size_t lo = 0, hi = pages->nr;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((pages->sorted[mid] & ~0xfffffULL) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < pages->nr && (pages->sorted[lo] & ~0xfffffULL) == key; lo++) {
        size_t i = pages->sorted[lo] & 0xfffff;
        if (!memcmp(pages->data + i * PAGE_BYTES, page, PAGE_BYTES))
            return (long)i;
    }
    return -1;
}

static int all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int main(int argc, char** argv) {
    struct pages pages;
    size_t image_size, pages_size, objects = 0, raw = 0, zero = 0;
    uint8_t *image, page[PAGE_BYTES];
    size_t pos = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: backing-scan IMAGE PAGES\n");
        return 2;
    }
    image = read_file(argv[1], &image_size);
    pages.data = read_file(argv[2], &pages_size);
    if (!image || !pages.data)
        return 2;
    pages.nr = pages_size / PAGE_BYTES;
    if (pages.nr >= 1 << 20) {
        fprintf(stderr, "backing-scan: at most %d pages\n", (1 << 20) - 1);
        return 2;
    }
    pages.sorted = malloc((pages.nr + 1) * sizeof(*pages.sorted));
    if (!pages.sorted)
        return 2;
    for (size_t i = 0; i < pages.nr; i++)
        pages.sorted[i] = fnv1a(pages.data + i * PAGE_BYTES, PAGE_BYTES) << 20 | i;
    qsort(pages.sorted, pages.nr, sizeof(*pages.sorted), compare_u64);

    image_size -= image_size % PAGE_BYTES;
    while (pos < image_size) {
        const uint8_t* block = image + pos;

        /* At a block's start, between objects: what kind of block. */
        if (all_zero(block, PAGE_BYTES)) {
            zero++;
            pos += PAGE_BYTES;
            continue;
        }
        if (page_index(&pages, block) >= 0) {
            raw++;
            pos += PAGE_BYTES;
            continue;
        }
        if (!block[0]) {
            fprintf(stderr,
                    "backing-scan: block %zu is neither zeros, nor a page written, nor "
                    "objects\n",
                    pos / PAGE_BYTES);
            return 1;
        }
        /* Packed objects, until a zero byte ends the run in this block. */
        while (pos < image_size && image[pos]) {
            size_t size = ZSTD_findFrameCompressedSize(image + pos, image_size - pos);
            size_t out;

            if (ZSTD_isError(size)) {
                fprintf(stderr,
                        "backing-scan: byte %zu (block %zu + %zu) is neither zero nor the "
                        "start of an object: %s\n",
                        pos, pos / PAGE_BYTES, pos % PAGE_BYTES, ZSTD_getErrorName(size));
                return 1;
            }
            out = ZSTD_decompress(page, sizeof(page), image + pos, size);
            if (ZSTD_isError(out) || out != PAGE_BYTES || page_index(&pages, page) < 0) {
                fprintf(stderr,
                        "backing-scan: the object at byte %zu (%zu bytes) is not a page "
                        "written\n",
                        pos, size);
                return 1;
            }
            objects++;
            pos += size;
            if (pos % PAGE_BYTES == 0)
                break;
        }
        /* The end of a bio: zeros to the end of the block. */
        if (pos % PAGE_BYTES) {
            size_t end = (pos / PAGE_BYTES + 1) * PAGE_BYTES;

            for (size_t i = pos; i < end; i++) {
                if (image[i]) {
                    fprintf(stderr,
                            "backing-scan: byte %zu (block %zu + %zu) after the last object "
                            "of its block is 0x%02x, not zero\n",
                            i, i / PAGE_BYTES, i % PAGE_BYTES, image[i]);
                    return 1;
                }
            }
            pos = end;
        }
    }
    printf("objects %zu raw %zu zero %zu\n", objects, raw, zero);
    return 0;
}
