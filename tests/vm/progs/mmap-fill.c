/* mmap-fill: fills a block device through a shared mapping, as LTP's
 * zram03 does: SIZE bytes of one byte value with the last byte 0, written
 * by the page cache's writeback, then unmapped and closed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: mmap-fill DEVICE SIZE BYTE\n");
        return 2;
    }
    size_t size = strtoull(argv[2], NULL, 0);
    int byte = argv[3][0];
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) {
        perror("mmap-fill: open");
        return 1;
    }
    char* s = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s == MAP_FAILED) {
        perror("mmap-fill: mmap");
        return 1;
    }
    memset(s, byte, size - 1);
    s[size - 1] = '\0';
    munmap(s, size);
    close(fd);
    return 0;
}
