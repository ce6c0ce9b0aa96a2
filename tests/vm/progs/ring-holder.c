/* ring-holder: holds /dev/ozram-ring the ways an agent's leftovers could,
 * to check that the kernel takes access back and that no stale page
 * reaches a later agent.
 *
 *   ring-holder probe MARKER [--after FILE]
 *       attaches, waits for FILE if given, then looks for the 16-byte
 *       MARKER at the start of every staging and output slot; exit 1 if
 *       it is there.  Completes nothing: the pages it is given stay in
 *       flight until the kernel takes them back.
 *   ring-holder fork-exit FILE
 *       attaches and maps the ring, forks a child that keeps the file
 *       descriptor, and exits.  The child checks it has no mapping of the
 *       ring, waits for FILE, then checks that the file is revoked:
 *       COMPLETE gives ENODEV, mmap() ENODEV, poll() POLLHUP.  Its report
 *       goes to FILE.result ("revoked" or what failed).
 *   ring-holder pin FILE
 *       attaches and maps the ring, pins staging slot 0 into a pipe with
 *       vmsplice(), forks a child that keeps only the pipe, and exits.  The
 *       child waits for FILE, then reads the pinned page and writes it to
 *       FILE.page: what the old memory still held.
 *   ring-holder write-header
 *       attaches and maps the ring; writing to the header page must fault
 *       (SIGBUS) and mprotect() of the mapping must fail.
 *
 * Exit status 0 when the checks hold, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ozram_ring.h"

#define MARKER_LEN 16

static void usage(FILE* out) {
    fprintf(out,
            "usage: ring-holder probe MARKER [--after FILE]\n"
            "       ring-holder fork-exit FILE\n"
            "       ring-holder pin FILE\n"
            "       ring-holder write-header\n"
            "Holds /dev/ozram-ring the ways an agent's leftovers could (see the\n"
            "source's header).  Exit status: 0 ok, 1 a check failed, 2 usage.\n");
}

struct ring {
    int fd;
    struct ozram_ring_header h;
    uint8_t* rw;      /* [0, staging.offset) */
    uint8_t* staging; /* read-only */
};

static int ring_attach(struct ring* r) {
    void* p;

    r->fd = open(OZRAM_RING_DEV_PATH, O_RDWR | O_CLOEXEC);
    if (r->fd < 0) {
        perror("ring-holder: open " OZRAM_RING_DEV_PATH);
        return -1;
    }
    p = mmap(NULL, OZRAM_RING_PAGE_SIZE, PROT_READ, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED) {
        perror("ring-holder: mmap header");
        return -1;
    }
    memcpy(&r->h, p, sizeof(r->h));
    munmap(p, OZRAM_RING_PAGE_SIZE);
    if (ozram_ring_check_header(&r->h, r->h.mapping_size) != OZRAM_RING_OK) {
        fprintf(stderr, "ring-holder: the kernel's header does not check\n");
        return -1;
    }
    r->rw = mmap(NULL, r->h.staging.offset, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    r->staging = mmap(NULL, r->h.staging.size, PROT_READ, MAP_SHARED, r->fd, r->h.staging.offset);
    if (r->rw == MAP_FAILED || r->staging == MAP_FAILED) {
        perror("ring-holder: mmap ring");
        return -1;
    }
    return 0;
}

static void wait_for(const char* file) {
    struct stat st;

    while (stat(file, &st) != 0)
        usleep(100 * 1000);
}

static int probe(const char* marker, const char* after) {
    struct ring r;
    uint32_t slot;
    int found = 0;

    if (strlen(marker) != MARKER_LEN) {
        fprintf(stderr, "ring-holder: the marker must be %d bytes\n", MARKER_LEN);
        return 2;
    }
    if (ring_attach(&r))
        return 1;
    printf("ring-holder: attached\n");
    fflush(stdout);
    if (after)
        wait_for(after);
    for (slot = 0; slot < r.h.slots; slot++) {
        const uint8_t* staged = r.staging + (size_t)slot * r.h.page_size;
        const uint8_t* out = r.rw + r.h.output.offset + (size_t)slot * r.h.page_size;

        if (!memcmp(staged, marker, MARKER_LEN)) {
            printf("ring-holder: marker found in staging slot %u\n", slot);
            found = 1;
        }
        if (!memcmp(out, marker, MARKER_LEN)) {
            printf("ring-holder: marker found in output slot %u\n", slot);
            found = 1;
        }
    }
    if (!found)
        printf("ring-holder: marker not found in %u slots\n", r.h.slots);
    return found;
}

/* Whether this process maps the ring, by /proc/self/maps. */
static int maps_ring(void) {
    char line[512];
    FILE* maps = fopen("/proc/self/maps", "r");
    int found = 0;

    if (!maps)
        return -1;
    while (fgets(line, sizeof(line), maps))
        found |= strstr(line, "ozram-ring") != NULL;
    fclose(maps);
    return found;
}

static int report(const char* file, const char* suffix, const char* text) {
    char path[256];
    FILE* f;

    snprintf(path, sizeof(path), "%s.%s", file, suffix);
    f = fopen(path, "w");
    if (!f)
        return 1;
    fputs(text, f);
    fclose(f);
    return 0;
}

/*
 * Forks; the parent says what its child keeps and exits with status 0.
 * Returns in the child only, or -1 when fork() failed.
 */
static int leave_child(const char* keeps) {
    pid_t child = fork();

    if (child < 0) {
        perror("ring-holder: fork");
        return -1;
    }
    if (child > 0) {
        printf("ring-holder: child %d %s; exiting\n", (int)child, keeps);
        exit(0);
    }
    return 0;
}

static int fork_exit(const char* file) {
    struct ring r;

    if (ring_attach(&r) || leave_child("keeps the ring's file"))
        return 1;
    /* The child: the descriptor, but no mapping (VM_DONTCOPY). */
    if (maps_ring() != 0)
        return report(file, "result", "the child inherited a mapping of the ring\n"), 1;
    wait_for(file);
    if (ioctl(r.fd, OZRAM_RING_IOC_COMPLETE) == 0 || errno != ENODEV)
        return report(file, "result", "COMPLETE on the old file did not give ENODEV\n"), 1;
    if (mmap(NULL, OZRAM_RING_PAGE_SIZE, PROT_READ, MAP_SHARED, r.fd, 0) != MAP_FAILED ||
        errno != ENODEV)
        return report(file, "result", "mmap() of the old file did not give ENODEV\n"), 1;
    struct pollfd pfd = {.fd = r.fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLHUP))
        return report(file, "result", "poll() of the old file did not give POLLHUP\n"), 1;
    return report(file, "result", "revoked\n");
}

static int pin(const char* file) {
    struct iovec iov;
    struct ring r;
    int pipefd[2];

    if (ring_attach(&r))
        return 1;
    if (pipe(pipefd) < 0) {
        perror("ring-holder: pipe");
        return 1;
    }
    iov.iov_base = r.staging;
    iov.iov_len = r.h.page_size;
    /* Without SPLICE_F_GIFT the pipe holds a reference on the page. */
    if (vmsplice(pipefd[1], &iov, 1, 0) != (ssize_t)r.h.page_size) {
        perror("ring-holder: vmsplice");
        return 1;
    }
    if (leave_child("holds staging slot 0 in a pipe"))
        return 1;
    close(r.fd);
    wait_for(file);
    {
        char path[256], page[OZRAM_RING_PAGE_SIZE];
        ssize_t n = read(pipefd[0], page, sizeof(page));
        FILE* f;

        if (n != (ssize_t)sizeof(page))
            return 1;
        snprintf(path, sizeof(path), "%s.page", file);
        f = fopen(path, "w");
        if (!f || fwrite(page, 1, sizeof(page), f) != sizeof(page))
            return 1;
        fclose(f);
    }
    return 0;
}

static sigjmp_buf fault_jump;

static void on_fault(int sig) {
    siglongjmp(fault_jump, sig);
}

static int write_header(void) {
    volatile uint32_t* magic;
    struct ring r;
    int sig;

    if (ring_attach(&r))
        return 1;
    magic = (volatile uint32_t*)r.rw;
    signal(SIGBUS, on_fault);
    signal(SIGSEGV, on_fault);
    sig = sigsetjmp(fault_jump, 1);
    if (sig == 0) {
        *magic = 0xdeadbeefU;
        fprintf(stderr, "ring-holder: FAIL: the header page took a write\n");
        return 1;
    }
    if (sig != SIGBUS) {
        fprintf(stderr, "ring-holder: FAIL: a write to the header gave signal %d\n", sig);
        return 1;
    }
    printf("ring-holder: a write to the header page faults (SIGBUS)\n");
    if (mprotect(r.rw, r.h.staging.offset, PROT_READ) == 0) {
        fprintf(stderr, "ring-holder: FAIL: mprotect() changed the ring's mapping\n");
        return 1;
    }
    printf("ring-holder: mprotect() of the ring refused: %s\n", strerror(errno));
    /* The rest of the mapping stays writable: the control block. */
    ((struct ozram_ring_ctrl*)(r.rw + r.h.ctrl.offset))->cq_tail.value += 0;
    return 0;
}

int main(int argc, char** argv) {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "probe"))
        return probe(argv[2], NULL);
    if (argc == 5 && !strcmp(argv[1], "probe") && !strcmp(argv[3], "--after"))
        return probe(argv[2], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "fork-exit"))
        return fork_exit(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "pin"))
        return pin(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "write-header"))
        return write_header();
    usage(stderr);
    return 2;
}
