/* rogue-agent: a hostile agent for /dev/ozram-ring.
 *
 * Attaches to the kernel's offload ring like ozramd, then answers the pages
 * it is given with completions that are wrong in every way the kernel must
 * catch: slot ids out of range, stale generations, lengths beyond the
 * output area, unknown encodings and flags, positive statuses, LZ4 that
 * decodes to other bytes or not at all, same-filled pages with the wrong
 * word, and CQ tail jumps.  RAW answers whose output slot holds a page
 * with a flipped byte, or nothing, must still read back right: the kernel
 * stores its staged copy of a RAW page.  Unknown flag
 * bits and stale generations ride on otherwise honest RAW completions, so
 * that only the flags or the generation can get them refused.  A few
 * completions are honest (RAW copies of the staged page, with and without
 * OZRAM_RING_CQE_F_GPU, and -ENOMEM give-backs) so that the accepted path
 * runs too.  --kind NAME sends one kind only.
 *
 * With --feign-progress it takes no page and answers none; it only tries
 * to look alive: completions that claim no slot (out of range, or stale
 * generations of the pages it holds) and an sq_head moved back and forth.
 * The kernel must take its pages back after ring_timeout_ms, as it does
 * from an agent that has stopped.
 *
 * Before that it checks refusals: a second open of the device must fail
 * with EBUSY, the staging area must not become writable (mmap with
 * PROT_WRITE and mprotect must both fail), and read() and write() on the
 * device, which are no doorbells, must fail with EINVAL.  With --check-hup
 * it ends by detaching while a thread sleeps in poll(), which must wake
 * with POLLHUP.  Exit status 0 when every check holds and the run
 * finished, 1 otherwise; 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ozram_ring.h"
#include "ring_header.h"

enum rogue_kind {
    BAD_SLOT,
    STALE_GENERATION,
    LENGTH_BEYOND_AREA,
    UNKNOWN_ENCODING,
    WRONG_LZ4,
    GARBAGE_LZ4,
    WRONG_RAW,
    WRONG_FILL,
    BAD_STATUS,
    BAD_FLAGS,
    HONEST_RAW,
    HONEST_GPU,
    GIVE_BACK,
    ROGUE_KINDS,
};

static const char* const kind_names[ROGUE_KINDS] = {
    "bad_slot",    "stale_generation", "length_beyond_area", "unknown_encoding", "wrong_lz4",
    "garbage_lz4", "wrong_raw",        "wrong_fill",         "bad_status",       "bad_flags",
    "honest_raw",  "honest_gpu",       "give_back",
};

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static void usage(FILE* out) {
    fprintf(out,
            "usage: rogue-agent [--seconds N] [--device PATH] [--no-jump] [--kind NAME]\n"
            "                   [--all-algorithms] [--check-hup] [--feign-progress]\n"
            "Attaches to the ozram offload ring and answers its pages with invalid\n"
            "completions for N seconds (default 10), then prints what it sent.\n"
            "  --no-jump    never move cq_tail by a huge step\n"
            "  --kind NAME  answer every page the same way: bad_slot, stale_generation,\n"
            "               length_beyond_area, unknown_encoding, wrong_lz4, garbage_lz4,\n"
            "               wrong_raw, wrong_fill, bad_status, bad_flags, honest_raw,\n"
            "               honest_gpu or give_back (default: each in turn)\n"
            "  --all-algorithms  name every algorithm to the kernel, so that it sends\n"
            "               pages of each, recompressions included (default: LZ4 only)\n"
            "  --check-hup  at the end, detach while a thread sleeps in poll(): it\n"
            "               must wake with POLLHUP; run it when nothing writes any\n"
            "               more, so that the poller gets to sleep\n"
            "  --feign-progress  take no page and answer none; every 20 ms write\n"
            "               completions that claim no slot and move sq_head back\n"
            "               and forth, as if alive\n"
            "Checks first that a second open fails with EBUSY, that the staging\n"
            "area cannot be mapped or made writable, and that read() and write()\n"
            "fail with EINVAL.  Exit status: 0 ok, 1 a check failed or the ring\n"
            "could not be used, 2 usage.\n");
}

static uint32_t load_acquire(const uint32_t* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(uint32_t* p, uint32_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * An LZ4 block that decodes to exactly 4096 bytes: `period` bytes of
 * `pattern` repeated.  The period as literals, one match at offset `period`
 * up to 5 bytes before the end, then the 5 literals the format requires
 * there.  period <= 14 keeps the literal count inside the token.
 */
static size_t encode_periodic_lz4(const uint8_t* pattern, unsigned int period, uint8_t* out) {
    unsigned int extra = OZRAM_RING_PAGE_SIZE - period - 5 - 4 - 15;
    size_t n = 0;
    unsigned int i;

    out[n++] = (uint8_t)(period << 4 | 15); /* match length 4 + 15 + extra */
    for (i = 0; i < period; i++)
        out[n++] = pattern[i];
    out[n++] = (uint8_t)period; /* offset, little endian */
    out[n++] = 0;
    while (extra >= 255) {
        out[n++] = 255;
        extra -= 255;
    }
    out[n++] = (uint8_t)extra;
    out[n++] = 0x50; /* 5 literals, no match */
    for (i = OZRAM_RING_PAGE_SIZE - 5; i < OZRAM_RING_PAGE_SIZE; i++)
        out[n++] = pattern[i % period];
    return n;
}

/*
 * 4096 bytes of 'A'.  No staged page is all 'A' (same-filled pages are
 * never staged), so it always decodes to other bytes than the page.
 */
static size_t make_wrong_lz4(uint8_t* out) {
    return encode_periodic_lz4((const uint8_t*)"A", 1, out);
}

/* The page's period if it is at most 14 bytes, else 0. */
static unsigned int short_period(const uint8_t* page) {
    unsigned int period;

    for (period = 1; period <= 14; period++)
        if (!memcmp(page, page + period, OZRAM_RING_PAGE_SIZE - period))
            return period;
    return 0;
}

struct sleeping_poller {
    int fd;
    pid_t tid;
    int ret;
    short revents;
    int done;
};

static void* poll_until_woken(void* arg) {
    struct sleeping_poller* p = arg;
    struct pollfd pfd = {.fd = p->fd, .events = POLLIN};

    __atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    p->ret = poll(&pfd, 1, 10000);
    p->revents = pfd.revents;
    __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The scheduler state of thread @tid of this process ('S': sleeping). */
static char thread_state(pid_t tid) {
    char path[64], line[256], *close_paren;
    FILE* f;

    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    f = fopen(path, "r");
    if (!f)
        return '?';
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    fclose(f);
    close_paren = strrchr(line, ')');
    return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/*
 * One round of --feign-progress: a completion for a slot out of range, one
 * with a stale generation for the oldest page posted (if any), and sq_head
 * one back from @sq_head on odd rounds, at it on even ones.  None of it
 * takes a page or claims a slot.  Returns the completions written.
 */
static uint32_t feign_progress(struct ozram_ring_ctrl* ctrl, const struct ozram_ring_header* h,
                               const struct ozram_ring_sqe* sq, struct ozram_ring_cqe* cq,
                               uint32_t sq_head, uint32_t* cq_tail, unsigned long round) {
    struct ozram_ring_cqe c = {0};
    uint32_t n = 0;

    c.slot = h->slots + (uint32_t)round;
    c.encoding = OZRAM_RING_ENC_RAW;
    c.length = h->page_size;
    cq[(*cq_tail)++ & (h->cq_entries - 1)] = c;
    n++;
    if (load_acquire(&ctrl->sq_tail.value) != sq_head) {
        const struct ozram_ring_sqe e = sq[sq_head & (h->sq_entries - 1)];

        c.slot = e.slot;
        c.generation = e.generation - 1;
        cq[(*cq_tail)++ & (h->cq_entries - 1)] = c;
        n++;
    }
    store_release(&ctrl->sq_head.value, round & 1 ? sq_head - 1 : sq_head);
    store_release(&ctrl->cq_tail.value, *cq_tail);
    return n;
}

/*
 * A poll() that sleeps for work must wake with POLLHUP when the agent
 * detaches meanwhile.  Everything queued is taken first (the kernel takes
 * those pages back), so that the poller sleeps; if a write queues a page
 * meanwhile, the poller wakes with POLLIN and the check is tried again.
 * Detaches the ring.  Returns 0 when the check held.
 */
static int check_hup_on_detach(int fd, struct ozram_ring_ctrl* ctrl) {
    int attempt;

    for (attempt = 0; attempt < 60; attempt++) {
        struct sleeping_poller p = {.fd = fd};
        pthread_t poller;
        pid_t tid;

        store_release(&ctrl->sq_head.value, load_acquire(&ctrl->sq_tail.value));
        if (pthread_create(&poller, NULL, poll_until_woken, &p)) {
            fprintf(stderr, "rogue-agent: pthread_create failed\n");
            return 1;
        }
        usleep(300 * 1000);
        tid = __atomic_load_n(&p.tid, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p.done, __ATOMIC_ACQUIRE) || !tid || thread_state(tid) != 'S') {
            /* New work woke it (or it is not asleep yet): not the case under test. */
            pthread_join(poller, NULL);
            if (p.ret != 1 || !(p.revents & POLLIN)) {
                fprintf(stderr, "rogue-agent: FAIL: poll() before the detach gave %d, revents %#x\n",
                        p.ret, (unsigned int)p.revents);
                return 1;
            }
            continue;
        }
        if (ioctl(fd, OZRAM_RING_IOC_DETACH) < 0) {
            perror("rogue-agent: detach");
            pthread_join(poller, NULL);
            return 1;
        }
        pthread_join(poller, NULL);
        if (p.ret != 1 || !(p.revents & POLLHUP)) {
            fprintf(stderr, "rogue-agent: FAIL: a poll() asleep at the detach gave %d, revents %#x\n",
                    p.ret, (unsigned int)p.revents);
            return 1;
        }
        printf("rogue-agent: a poll() asleep at the detach woke with POLLHUP\n");
        return 0;
    }
    fprintf(stderr, "rogue-agent: FAIL: poll() never slept: pages kept arriving\n");
    return 1;
}

/* read() and write() are no doorbells of the device: EINVAL, nothing done. */
static int check_no_read_write(int fd) {
    uint32_t word = 0;
    ssize_t r = read(fd, &word, sizeof(word));
    int read_errno = errno;
    ssize_t w = write(fd, &word, sizeof(word));
    int write_errno = errno;

    if (r != -1 || read_errno != EINVAL || w != -1 || write_errno != EINVAL) {
        fprintf(stderr, "rogue-agent: FAIL: read() gave %zd (%s), write() gave %zd (%s)\n", r,
                r < 0 ? strerror(read_errno) : "a count", w, w < 0 ? strerror(write_errno) : "a count");
        return 1;
    }
    printf("rogue-agent: read() and write() refused with EINVAL\n");
    return 0;
}

int main(int argc, char** argv) {
    const char* path = OZRAM_RING_DEV_PATH;
    unsigned long sent[ROGUE_KINDS] = {0};
    struct ozram_ring_header h;
    unsigned int seconds = 10, jumps = 0, k;
    int fd, fd2, failed = 0, allow_jump = 1, only = -1, check_hup = 0, all_algorithms = 0;
    int feign = 0;
    unsigned long feigned = 0, feign_rounds = 0;
    uint8_t *rw, *staging;
    uint32_t sq_head, cq_tail, kind = 0;
    struct ozram_ring_ctrl* ctrl;
    struct ozram_ring_sqe* sq;
    struct ozram_ring_cqe* cq;
    uint8_t* output;
    time_t end;
    void* p;
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            path = argv[++i];
        } else if (!strcmp(argv[i], "--no-jump")) {
            allow_jump = 0;
        } else if (!strcmp(argv[i], "--check-hup")) {
            check_hup = 1;
        } else if (!strcmp(argv[i], "--feign-progress")) {
            feign = 1;
        } else if (!strcmp(argv[i], "--all-algorithms")) {
            all_algorithms = 1;
        } else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            i++;
            for (k = 0; k < ROGUE_KINDS; k++)
                if (!strcmp(argv[i], kind_names[k]))
                    only = (int)k;
            if (only < 0) {
                fprintf(stderr, "rogue-agent: unknown kind '%s'\n", argv[i]);
                usage(stderr);
                return 2;
            }
            kind = (uint32_t)only;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "rogue-agent: open %s: %s\n", path, strerror(errno));
        return 1;
    }
    fd2 = open(path, O_RDWR | O_CLOEXEC);
    if (fd2 >= 0 || errno != EBUSY) {
        fprintf(stderr, "rogue-agent: FAIL: second open gave %s, not EBUSY\n",
                fd2 >= 0 ? "success" : strerror(errno));
        failed = 1;
        if (fd2 >= 0)
            close(fd2);
    } else {
        printf("rogue-agent: second open refused with EBUSY\n");
    }

    if (check_no_read_write(fd))
        failed = 1;

    if (ring_read_header(fd, &h, "rogue-agent") < 0)
        return 1;
    rw = mmap(NULL, h.staging.offset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rw == MAP_FAILED) {
        perror("rogue-agent: mmap ring");
        return 1;
    }

    /* The staging area must never be writable by the agent. */
    p = mmap(NULL, h.staging.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, h.staging.offset);
    if (p != MAP_FAILED) {
        fprintf(stderr, "rogue-agent: FAIL: staging mapped writable\n");
        failed = 1;
        munmap(p, h.staging.size);
    } else {
        printf("rogue-agent: writable staging mapping refused: %s\n", strerror(errno));
    }
    staging = mmap(NULL, h.staging.size, PROT_READ, MAP_SHARED, fd, h.staging.offset);
    if (staging == MAP_FAILED) {
        perror("rogue-agent: mmap staging");
        return 1;
    }
    if (mprotect(staging, h.staging.size, PROT_READ | PROT_WRITE) == 0) {
        fprintf(stderr, "rogue-agent: FAIL: staging made writable by mprotect\n");
        failed = 1;
    } else {
        printf("rogue-agent: mprotect of staging to writable refused: %s\n", strerror(errno));
    }
    /* A mapping past the ring, or at an odd offset, is refused too. */
    p = mmap(NULL, OZRAM_RING_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, h.mapping_size);
    if (p != MAP_FAILED) {
        fprintf(stderr, "rogue-agent: FAIL: mapped beyond the ring\n");
        failed = 1;
    }

    if (all_algorithms) {
        uint32_t mask = (1U << OZRAM_RING_ALG_NR) - 1;

        if (ioctl(fd, OZRAM_RING_IOC_SET_ALGORITHMS, &mask) < 0) {
            perror("rogue-agent: OZRAM_RING_IOC_SET_ALGORITHMS");
            return 1;
        }
        printf("rogue-agent: every algorithm named\n");
    }

    ctrl = (struct ozram_ring_ctrl*)(rw + h.ctrl.offset);
    sq = (struct ozram_ring_sqe*)(rw + h.sq.offset);
    cq = (struct ozram_ring_cqe*)(rw + h.cq.offset);
    output = rw + h.output.offset;
    sq_head = load_acquire(&ctrl->sq_head.value);
    cq_tail = load_acquire(&ctrl->cq_tail.value);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    end = time(NULL) + seconds;
    while (!stop && time(NULL) < end) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        uint32_t tail, posted = 0;

        if (feign) {
            feigned += feign_progress(ctrl, &h, sq, cq, sq_head, &cq_tail, feign_rounds++);
            if (ioctl(fd, OZRAM_RING_IOC_COMPLETE) < 0) {
                perror("rogue-agent: doorbell");
                failed = 1;
                break;
            }
            usleep(20 * 1000);
            continue;
        }
        if (poll(&pfd, 1, 100) < 0 && errno != EINTR) {
            perror("rogue-agent: poll");
            failed = 1;
            break;
        }
        tail = load_acquire(&ctrl->sq_tail.value);
        if (tail - sq_head > h.sq_entries)
            sq_head = tail - h.sq_entries;
        while (sq_head != tail && posted < h.cq_entries / 2) {
            struct ozram_ring_sqe e = sq[sq_head & (h.sq_entries - 1)];
            struct ozram_ring_cqe c = {0};
            uint8_t* out;

            sq_head++;
            if (e.slot >= h.slots)
                continue;
            out = output + (size_t)e.slot * h.page_size;
            c.slot = e.slot;
            c.generation = e.generation;
            c.encoding = OZRAM_RING_ENC_LZ4;
            c.length = 16;
            switch (kind) {
                case BAD_SLOT:
                    c.slot = (e.slot & 1) ? 0xffffffffU : h.slots + e.slot;
                    break;
                case STALE_GENERATION:
                    /* A correct page: only the generation can refuse it. */
                    memcpy(out, staging + (size_t)e.slot * h.page_size, h.page_size);
                    c.encoding = OZRAM_RING_ENC_RAW;
                    c.length = h.page_size;
                    c.generation = e.generation - 1 - (e.slot & 7);
                    break;
                case LENGTH_BEYOND_AREA:
                    c.length = (e.slot & 1) ? h.page_size * 4 : 0xfffffff0U;
                    break;
                case UNKNOWN_ENCODING:
                    c.encoding = 77 + (e.slot & 3);
                    break;
                case WRONG_LZ4:
                    c.length = make_wrong_lz4(out);
                    break;
                case GARBAGE_LZ4:
                    memset(out, 0xee, 64);
                    c.length = 64;
                    break;
                case WRONG_RAW:
                    memcpy(out, staging + (size_t)e.slot * h.page_size, h.page_size);
                    out[e.generation % h.page_size] ^= 0x5a;
                    c.encoding = OZRAM_RING_ENC_RAW;
                    c.length = (e.slot & 1) ? 0 : h.page_size;
                    break;
                case WRONG_FILL:
                    memcpy(&c.fill, staging + (size_t)e.slot * h.page_size, sizeof(c.fill));
                    c.fill ^= 1;
                    c.encoding = OZRAM_RING_ENC_SAME_FILLED;
                    c.length = 0;
                    break;
                case BAD_STATUS:
                    c.status = 5;
                    break;
                case BAD_FLAGS:
                    /* A correct page: only an unknown bit can reject it. */
                    memcpy(out, staging + (size_t)e.slot * h.page_size, h.page_size);
                    c.encoding = OZRAM_RING_ENC_RAW;
                    c.length = h.page_size;
                    c.flags = (uint32_t)~OZRAM_RING_CQE_F_KNOWN;
                    if (e.slot % 3 == 1)
                        c.flags = 0x80;
                    else if (e.slot % 3 == 2)
                        c.flags = OZRAM_RING_CQE_F_GPU | 0x2;
                    break;
                case HONEST_RAW:
                    memcpy(out, staging + (size_t)e.slot * h.page_size, h.page_size);
                    c.encoding = OZRAM_RING_ENC_RAW;
                    c.length = h.page_size;
                    break;
                case HONEST_GPU: {
                    /*
                     * Claims a GPU.  A short-period page gets a correct
                     * LZ4 block (counted as agent_gpu), any other page
                     * its RAW copy (counted as huge).
                     */
                    const uint8_t* page = staging + (size_t)e.slot * h.page_size;
                    unsigned int period = short_period(page);

                    c.flags = OZRAM_RING_CQE_F_GPU;
                    if (period) {
                        c.length = encode_periodic_lz4(page, period, out);
                        break;
                    }
                    memcpy(out, page, h.page_size);
                    c.encoding = OZRAM_RING_ENC_RAW;
                    c.length = h.page_size;
                    break;
                }
                case GIVE_BACK:
                    c.status = -ENOMEM;
                    break;
            }
            sent[kind]++;
            if (only < 0)
                kind = (kind + 1) % ROGUE_KINDS;
            cq[cq_tail & (h.cq_entries - 1)] = c;
            cq_tail++;
            posted++;
        }
        store_release(&ctrl->sq_head.value, sq_head);
        /*
         * From the first batch on, once per 50 bad slots: a tail far
         * beyond anything the CQ can hold.
         */
        if (allow_jump && posted && sent[BAD_SLOT] >= jumps * 50) {
            cq_tail += 1000000;
            jumps++;
        }
        store_release(&ctrl->cq_tail.value, cq_tail);
        if (posted && ioctl(fd, OZRAM_RING_IOC_COMPLETE) < 0) {
            perror("rogue-agent: doorbell");
            failed = 1;
            break;
        }
    }

    for (k = 0; k < ROGUE_KINDS; k++)
        printf("rogue-agent: sent %s=%lu\n", kind_names[k], sent[k]);
    printf("rogue-agent: cq tail jumps=%u\n", jumps);
    if (feign) {
        /* Where the kernel left it: the next checks expect an honest head. */
        store_release(&ctrl->sq_head.value, sq_head);
        printf("rogue-agent: feigned progress rounds=%lu completions=%lu\n", feign_rounds, feigned);
    }
    if (check_hup && check_hup_on_detach(fd, ctrl))
        failed = 1;

    /*
     * Leave a scribbled SQ tail behind (the header page is read-only: see
     * ring-holder write-header): the next agent must find the queues as the
     * kernel left them.
     */
    ctrl->sq_tail.value += 12345;
    /* The file is released only when no mapping holds it any more. */
    munmap(staging, h.staging.size);
    munmap(rw, h.staging.offset);
    close(fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "rogue-agent: reopen %s: %s\n", path, strerror(errno));
        return 1;
    }
    rw = mmap(NULL, h.staging.offset, PROT_READ, MAP_SHARED, fd, 0);
    if (rw == MAP_FAILED) {
        perror("rogue-agent: mmap ring again");
        return 1;
    }
    ctrl = (struct ozram_ring_ctrl*)(rw + h.ctrl.offset);
    if (memcmp(rw, &h, sizeof(h)) != 0 ||
        /* Writers may have queued pages since: at most a queue's worth. */
        load_acquire(&ctrl->sq_tail.value) - load_acquire(&ctrl->sq_head.value) > h.sq_entries) {
        fprintf(stderr, "rogue-agent: FAIL: the next agent sees the old agent's header or tail\n");
        failed = 1;
    } else {
        printf("rogue-agent: header and SQ tail restored for the next agent\n");
    }
    munmap(rw, h.staging.offset);
    close(fd);
    return failed;
}
