/* The ring header as a test agent reads it: a private copy, checked.
 *
 * An agent maps the first page of /dev/ozram-ring read-only, copies the
 * header out of it and checks the copy with the same function the daemon
 * uses, before it maps the rest of the ring by the geometry the copy gives.
 */
#ifndef OZRAM_VM_RING_HEADER_H
#define OZRAM_VM_RING_HEADER_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ozram_ring.h"

/* 0, or -1 with the reason on stderr, after "PROG: ". */
static inline int ring_read_header(int fd, struct ozram_ring_header* h, const char* prog) {
    void* p = mmap(NULL, OZRAM_RING_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "%s: mmap header: %s\n", prog, strerror(errno));
        return -1;
    }
    memcpy(h, p, sizeof(*h));
    munmap(p, OZRAM_RING_PAGE_SIZE);
    if (ozram_ring_check_header(h, h->mapping_size) != OZRAM_RING_OK) {
        fprintf(stderr, "%s: the kernel's header does not check\n", prog);
        return -1;
    }
    return 0;
}

#endif
