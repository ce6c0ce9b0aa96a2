/* blkbench: 4 KiB sequential and random write/read throughput of block
 * devices, measured on the same data for each device.
 *
 * Every I/O is one 4 KiB pwrite/pread with O_DIRECT, so each one reaches the
 * driver (no page cache).  The data is the pagemix (zero, same-filled, text,
 * integer and random pages) from a fixed seed; random offsets are a fixed
 * permutation.  Each operation runs on the devices back to back, so drift in
 * the (emulated, shared) machine affects them alike; the median of the
 * repeats is reported, and each repeat too, for paired comparisons.  After
 * the timed runs every page is read back and compared.
 *
 * Each I/O's latency is recorded too (the time of its pwrite or pread
 * alone), and each pass prints its 50th, 99th and 99.9th percentiles, and
 * the busy time of all CPUs over the pass (whoever spent it: the writer,
 * the kernel, an agent), per page and as a share of what the CPUs had.
 *
 * A write pass ends when the device holds no staged or parked page: with
 * an agent, ozram completes a write once the page is staged or held and
 * compresses it later, so without this wait the figure would be the speed
 * of a memcpy, not of storing the data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pagemix.h"

#define MAX_DEVICES 8
#define MAX_REPEATS 64

enum op { SEQ_WRITE, SEQ_READ, RAND_WRITE, RAND_READ, NUM_OPS };
static const char* const op_names[NUM_OPS] = {"seq-write", "seq-read", "rand-write", "rand-read"};

static void usage(FILE* out) {
    fprintf(out,
            "usage: blkbench [--mb N] [--repeats R] [--seed S] DEVICE...\n"
            "Measures 4 KiB O_DIRECT sequential and random write and read throughput\n"
            "of each DEVICE on the same N MiB (default 64) of mixed pages, R times\n"
            "(default 5), and prints the median MiB/s per device and operation as\n"
            "lines 'RESULT dev=D op=O mibps=X' (each repeat as 'REPEAT r=N ...'), and\n"
            "the latency percentiles of each pass as 'LATENCY r=N dev=D op=O p50_us=X\n"
            "p99_us=Y p999_us=Z', and the CPUs' busy time over each pass as 'CPU r=N\n"
            "dev=D op=O busy_pct=X cpu_us_per_page=Y' (all CPUs; /proc/stat less idle\n"
            "and iowait).\n"
            "Within a repeat each operation runs on all devices back to back, the\n"
            "first device alternating.  A write pass lasts until the device's\n"
            "backend_stat (ozram) shows no staged or parked page.  The data is\n"
            "verified at the end.\n"
            "WARNING: overwrites the first N MiB of each DEVICE.\n");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Pages the device holds for its agent, staged or parked (ozram's
 * backend_stat), 0 for a device without that file (zram), or -1 when the
 * file does not parse. */
static long long staged_pages(const char* dev) {
    const char* name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
    char path[256], line[128];
    snprintf(path, sizeof(path), "/sys/block/%s/backend_stat", name);
    FILE* f = fopen(path, "r");
    if (!f)
        return 0;
    long long staged = -1, parked = -1, n;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "staged_pages: %lld", &n) == 1)
            staged = n;
        else if (sscanf(line, "parked_pages: %lld", &n) == 1)
            parked = n;
    }
    fclose(f);
    return staged < 0 || parked < 0 ? -1 : staged + parked;
}

/* Waits until every page written to DEV is stored (none staged or parked);
 * 0 or -1. */
static int settle(const char* dev) {
    double deadline = now_s() + 120;
    long long staged;
    while ((staged = staged_pages(dev)) != 0) {
        if (staged < 0 || now_s() > deadline) {
            fprintf(stderr, "blkbench: %s: %lld pages still staged or parked\n", dev, staged);
            return -1;
        }
        usleep(2000);
    }
    return 0;
}

/* Busy time of all CPUs since boot, in seconds: /proc/stat's user, nice,
 * system, irq, softirq and steal time; -1 if it does not parse. */
static double cpu_busy_s(void) {
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
    FILE* f = fopen("/proc/stat", "r");
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system,
                       &idle, &iowait, &irq, &softirq, &steal)
              : 0;
    if (f)
        fclose(f);
    if (n != 8)
        return -1;
    return (double)(user + nice + system + irq + softirq + steal) / (double)sysconf(_SC_CLK_TCK);
}

/* The PERMILLE-th value of the n sorted values. */
static double percentile(const double* sorted, uint64_t n, unsigned permille) {
    uint64_t at = (n * permille + 999) / 1000;
    return sorted[at ? at - 1 : 0];
}

/* One pass of one operation over all pages; returns seconds or -1.  The
 * latency of each I/O goes into lat[0..pages-1], in seconds. */
static double run_op(const char* dev, int fd, enum op op, uint8_t* data, uint8_t* scratch,
                     const uint64_t* order, uint64_t pages, double* lat) {
    int is_write = op == SEQ_WRITE || op == RAND_WRITE;
    int is_random = op == RAND_WRITE || op == RAND_READ;
    double t0 = now_s();

    for (uint64_t i = 0; i < pages; i++) {
        uint64_t page = is_random ? order[i] : i;
        off_t off = (off_t)(page * PAGE_BYTES);
        double start = now_s();
        ssize_t n = is_write ? pwrite(fd, data + page * PAGE_BYTES, PAGE_BYTES, off)
                             : pread(fd, scratch, PAGE_BYTES, off);
        lat[i] = now_s() - start;
        if (n != PAGE_BYTES) {
            fprintf(stderr, "blkbench: %s of page %llu: %s\n", op_names[op],
                    (unsigned long long)page, n < 0 ? strerror(errno) : "short transfer");
            return -1;
        }
    }
    if (is_write && settle(dev))
        return -1;
    return now_s() - t0;
}

static int verify_device(int fd, const char* dev, const uint8_t* data, uint8_t* scratch,
                         uint64_t pages) {
    for (uint64_t i = 0; i < pages; i++) {
        if (pread(fd, scratch, PAGE_BYTES, (off_t)(i * PAGE_BYTES)) != PAGE_BYTES ||
            memcmp(scratch, data + i * PAGE_BYTES, PAGE_BYTES) != 0) {
            fprintf(stderr, "blkbench: %s: page %llu does not read back as written\n", dev,
                    (unsigned long long)i);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    uint64_t mb = 64, repeats = 5, seed = 1;
    const char* devs[MAX_DEVICES];
    int ndev = 0;

    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (v && !strcmp(a, "--mb")) {
            mb = strtoull(v, NULL, 0);
            i++;
        } else if (v && !strcmp(a, "--repeats")) {
            repeats = strtoull(v, NULL, 0);
            i++;
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0);
            i++;
        } else if (a[0] != '-' && ndev < MAX_DEVICES) {
            devs[ndev++] = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (ndev == 0 || mb == 0 || repeats == 0 || repeats > MAX_REPEATS) {
        usage(stderr);
        return 2;
    }

    uint64_t pages = mb * 1024 * 1024 / PAGE_BYTES;
    uint8_t *data, *scratch;
    uint64_t* order = malloc(pages * sizeof(*order));
    double* lat = malloc(pages * sizeof(*lat));
    if (posix_memalign((void**)&data, PAGE_BYTES, pages * PAGE_BYTES) ||
        posix_memalign((void**)&scratch, PAGE_BYTES, PAGE_BYTES) || !order || !lat) {
        fprintf(stderr, "blkbench: out of memory for %llu MiB\n", (unsigned long long)mb);
        return 3;
    }
    for (uint64_t i = 0; i < pages; i++) {
        fill_page(data + i * PAGE_BYTES, seed, i);
        order[i] = i;
    }
    uint64_t rng = seed ^ 0xb10cb10cULL; /* Fisher-Yates with a fixed seed */
    for (uint64_t i = pages - 1; i > 0; i--) {
        uint64_t j = splitmix64(&rng) % (i + 1);
        uint64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }

    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpus < 1)
        ncpus = 1;
    int fds[MAX_DEVICES];
    for (int d = 0; d < ndev; d++) {
        fds[d] = open(devs[d], O_RDWR | O_DIRECT);
        if (fds[d] < 0) {
            fprintf(stderr, "blkbench: open %s: %s\n", devs[d], strerror(errno));
            return 1;
        }
    }

    /* Each operation runs on every device back to back, so that the devices'
     * figures of one repeat were taken under the same load; the device that
     * goes first alternates from repeat to repeat. */
    static double secs[MAX_DEVICES][NUM_OPS][MAX_REPEATS];
    for (uint64_t r = 0; r < repeats; r++) {
        for (int op = 0; op < NUM_OPS; op++) {
            for (int k = 0; k < ndev; k++) {
                int d = r % 2 ? ndev - 1 - k : k;
                double busy0 = cpu_busy_s();
                double s = run_op(devs[d], fds[d], (enum op)op, data, scratch, order, pages, lat);
                double busy = cpu_busy_s() - busy0;
                if (s < 0)
                    return 1;
                secs[d][op][r] = s;
                printf("REPEAT r=%llu dev=%s op=%s mibps=%.1f\n", (unsigned long long)r, devs[d],
                       op_names[op], (double)mb / s);
                qsort(lat, pages, sizeof(*lat), cmp_double);
                printf("LATENCY r=%llu dev=%s op=%s p50_us=%.1f p99_us=%.1f p999_us=%.1f\n",
                       (unsigned long long)r, devs[d], op_names[op],
                       percentile(lat, pages, 500) * 1e6, percentile(lat, pages, 990) * 1e6,
                       percentile(lat, pages, 999) * 1e6);
                if (busy0 >= 0 && busy >= 0)
                    printf("CPU r=%llu dev=%s op=%s busy_pct=%.0f cpu_us_per_page=%.1f\n",
                           (unsigned long long)r, devs[d], op_names[op],
                           busy * 100 / (s * (double)ncpus), busy * 1e6 / (double)pages);
            }
        }
        fflush(stdout);
    }

    int rc = 0;
    for (int d = 0; d < ndev; d++) {
        if (verify_device(fds[d], devs[d], data, scratch, pages))
            rc = 1;
        for (int op = 0; op < NUM_OPS; op++) {
            qsort(secs[d][op], repeats, sizeof(double), cmp_double);
            double median = secs[d][op][repeats / 2];
            printf("RESULT dev=%s op=%s mibps=%.1f\n", devs[d], op_names[op], (double)mb / median);
        }
        close(fds[d]);
    }
    return rc;
}
