/* fill-check: checks what mmap-fill wrote, read back from the device
 * itself: SIZE bytes of one byte value with the last byte 0.  It reads
 * with O_DIRECT, so that the page cache, which may still hold the pages
 * the mapping wrote, cannot answer for the device.  Prints "OK", or the
 * first byte that differs and how many do; exit 1 then.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 1 << 20 };

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: fill-check DEVICE SIZE BYTE\n");
        return 2;
    }
    unsigned long long size = strtoull(argv[2], NULL, 0);
    unsigned char byte = (unsigned char)argv[3][0];
    unsigned long long pos = 0, differing = 0, first = 0;
    unsigned char *buf, *ref;

    if (size == 0 || size % 4096) {
        fprintf(stderr, "fill-check: SIZE must be a positive multiple of 4096\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY | O_DIRECT);
    if (fd < 0) {
        perror("fill-check: open");
        return 1;
    }
    ref = malloc(CHUNK);
    if (posix_memalign((void**)&buf, 4096, CHUNK) || !ref) {
        fprintf(stderr, "fill-check: out of memory\n");
        return 1;
    }
    memset(ref, byte, CHUNK);
    while (pos < size) {
        size_t want = size - pos < CHUNK ? (size_t)(size - pos) : CHUNK;
        ssize_t got = pread(fd, buf, want, (off_t)pos);

        if (got < 0) {
            perror("fill-check: read");
            return 1;
        }
        if ((size_t)got != want) {
            fprintf(stderr, "fill-check: short read at %llu: %zd of %zu bytes\n", pos, got,
                    want);
            return 1;
        }
        int last = pos + want == size;

        /* memcmp() first: byte by byte is slow under emulation. */
        if (memcmp(buf, ref, want - last) || (last && buf[want - 1]))
            for (size_t i = 0; i < want; i++) {
                unsigned char expected = pos + i == size - 1 ? 0 : byte;

                if (buf[i] != expected && !differing++)
                    first = pos + i;
            }
        pos += want;
    }
    close(fd);
    if (differing) {
        printf("%llu bytes differ, the first at %llu\n", differing, first);
        return 1;
    }
    printf("OK\n");
    return 0;
}
