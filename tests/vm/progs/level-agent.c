/* level-agent: an agent for /dev/ozram-ring that asks for levels (ring ABI
 * 1.5) and compresses zstd pages with libzstd, to test what the kernel
 * makes of results at a level it did not ask for.
 *
 * It declares zstd and levels, then for N seconds (or until SIGTERM)
 * answers every page: a zstd page with a zstd frame, an LZ4 page with its
 * RAW copy.  It counts the level each zstd submission carries and fails if
 * one differs from --expect-level.  --mode picks the frame:
 *   other-level  the page at --level (another level than the device's):
 *                it decodes to the page, so the kernel must accept it;
 *   wrong-page   the page with one byte changed, at --level: it decodes
 *                to other bytes, so the kernel must reject it and
 *                compress the page itself.
 * A page whose frame would not fit under the ring's huge threshold gets
 * its RAW copy.  Exit status 0 when every level was the expected one, 1
 * otherwise or when the ring could not be used, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "ozram_ring.h"
#include "ring_header.h"

static volatile sig_atomic_t terminated;

static void on_sigterm(int sig) {
    (void)sig;
    terminated = 1;
}

static void usage(FILE* out) {
    fprintf(out,
            "usage: level-agent --expect-level N --mode other-level|wrong-page\n"
            "                   [--level N] [--seconds N]\n"
            "Answers the ozram ring's zstd pages for N seconds (default 10), or\n"
            "until SIGTERM, with frames at --level (default 1) of the page\n"
            "(other-level) or of the page with one byte changed (wrong-page);\n"
            "fails if a zstd page's level is not --expect-level.\n");
}

int main(int argc, char** argv) {
    int expect = 0, level = 1, wrong = -1, seconds = 10, failed = 0, i;
    unsigned long zstd_pages = 0, mismatched = 0, compressed = 0, raw = 0;
    uint32_t mask = (1U << OZRAM_RING_ALG_ZSTD) | OZRAM_RING_ALGS_LEVELS;
    uint8_t page[OZRAM_RING_PAGE_SIZE];
    struct ozram_ring_header h;
    struct ozram_ring_ctrl* ctrl;
    struct ozram_ring_sqe* sq;
    struct ozram_ring_cqe* cq;
    uint8_t *rw, *staging, *output;
    uint32_t sq_head, cq_tail;
    int have_expect = 0;
    time_t end;
    int fd;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-level") && i + 1 < argc) {
            expect = atoi(argv[++i]);
            have_expect = 1;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            level = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "other-level"))
                wrong = 0;
            else if (!strcmp(argv[i], "wrong-page"))
                wrong = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (wrong < 0 || !have_expect) {
        usage(stderr);
        return 2;
    }

    /* Before the ring is opened, which is when the kernel sees an agent:
     * a SIGTERM from then on ends the loop, not the process.  Without
     * SA_RESTART, so that it ends the poll() at once. */
    sigaction(SIGTERM, &(struct sigaction){.sa_handler = on_sigterm}, NULL);
    fd = open(OZRAM_RING_DEV_PATH, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "level-agent: open: %s\n", strerror(errno));
        return 1;
    }
    if (ring_read_header(fd, &h, "level-agent") < 0)
        return 1;
    if (!(h.features & OZRAM_RING_FEAT_LEVELS)) {
        fprintf(stderr, "level-agent: the kernel's ring has no levels\n");
        return 1;
    }
    rw = mmap(NULL, h.staging.offset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    staging = mmap(NULL, h.staging.size, PROT_READ, MAP_SHARED, fd, h.staging.offset);
    if (rw == MAP_FAILED || staging == MAP_FAILED) {
        perror("level-agent: mmap ring");
        return 1;
    }
    if (ioctl(fd, OZRAM_RING_IOC_SET_ALGORITHMS, &mask) < 0) {
        perror("level-agent: OZRAM_RING_IOC_SET_ALGORITHMS");
        return 1;
    }
    ctrl = (struct ozram_ring_ctrl*)(rw + h.ctrl.offset);
    sq = (struct ozram_ring_sqe*)(rw + h.sq.offset);
    cq = (struct ozram_ring_cqe*)(rw + h.cq.offset);
    output = rw + h.output.offset;
    sq_head = __atomic_load_n(&ctrl->sq_head.value, __ATOMIC_RELAXED);
    cq_tail = __atomic_load_n(&ctrl->cq_tail.value, __ATOMIC_RELAXED);
    printf("level-agent: attached, answering zstd pages (%s)\n",
           wrong ? "wrong-page" : "other-level");
    fflush(stdout);

    end = time(NULL) + seconds;
    while (!terminated && time(NULL) < end) {
        uint32_t sq_tail = __atomic_load_n(&ctrl->sq_tail.value, __ATOMIC_ACQUIRE);
        struct pollfd pfd = {fd, POLLIN, 0};

        if (sq_head == sq_tail) {
            poll(&pfd, 1, 100);
            continue;
        }
        while (sq_head != sq_tail) {
            struct ozram_ring_sqe e = sq[sq_head & (h.sq_entries - 1)];
            struct ozram_ring_cqe c = {0};
            uint8_t* out;
            size_t len;

            sq_head++;
            if (ozram_ring_check_sqe(&e, h.slots, 1) != OZRAM_RING_OK)
                continue;
            out = output + (size_t)e.slot * h.page_size;
            memcpy(page, staging + (size_t)e.slot * h.page_size, sizeof(page));
            c.slot = e.slot;
            c.generation = e.generation;
            c.encoding = OZRAM_RING_ENC_RAW;
            if (ozram_ring_sqe_algorithm(&e) == OZRAM_RING_ALG_ZSTD) {
                zstd_pages++;
                if (ozram_ring_sqe_level(&e) != expect) {
                    if (!mismatched)
                        fprintf(stderr, "level-agent: FAIL: a zstd page at level %d, not %d\n",
                                ozram_ring_sqe_level(&e), expect);
                    mismatched++;
                }
                if (wrong)
                    page[e.generation % sizeof(page)] ^= 0x5a;
                len = ZSTD_compress(out, h.page_size, page, sizeof(page), level);
                if (!ZSTD_isError(len) && len > 0 && len <= h.huge_threshold) {
                    c.encoding = OZRAM_RING_ENC_COMPRESSED;
                    c.length = (uint32_t)len;
                    compressed++;
                }
            }
            if (c.encoding == OZRAM_RING_ENC_RAW)
                raw++;
            cq[cq_tail & (h.cq_entries - 1)] = c;
            cq_tail++;
        }
        __atomic_store_n(&ctrl->sq_head.value, sq_head, __ATOMIC_RELEASE);
        __atomic_store_n(&ctrl->cq_tail.value, cq_tail, __ATOMIC_RELEASE);
        if (ioctl(fd, OZRAM_RING_IOC_COMPLETE) < 0) {
            perror("level-agent: OZRAM_RING_IOC_COMPLETE");
            failed = 1;
            break;
        }
    }
    ioctl(fd, OZRAM_RING_IOC_DETACH);
    printf("level-agent: zstd_pages %lu mismatched_levels %lu compressed %lu raw %lu\n",
           zstd_pages, mismatched, compressed, raw);
    return failed || mismatched ? 1 : 0;
}
