/* sysfs-write: write a value to a file with one write(2) and report the
 * outcome as an errno name ("OK", "EBUSY", "EINVAL", ...), so that tests can
 * compare exact error codes instead of a shell's translated message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE* out) {
    fprintf(out,
            "usage: sysfs-write [-n] FILE VALUE\n"
            "Writes VALUE followed by a newline (none with -n) to FILE in one\n"
            "write(2) and prints OK or the errno name (e.g. EBUSY).\n"
            "Exit status: 0 on success, 1 when open or write failed, 2 on usage error.\n");
}

int main(int argc, char** argv) {
    int newline = 1;
    int argi = 1;

    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "-n")) {
        newline = 0;
        argi++;
    }
    if (argc - argi != 2) {
        usage(stderr);
        return 2;
    }

    const char* path = argv[argi];
    char buf[4096];
    int len = snprintf(buf, sizeof(buf), "%s%s", argv[argi + 1], newline ? "\n" : "");
    if (len < 0 || (size_t)len >= sizeof(buf)) {
        fprintf(stderr, "sysfs-write: value too long\n");
        return 2;
    }

    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        printf("%s\n", strerrorname_np(errno));
        return 1;
    }
    ssize_t n = write(fd, buf, (size_t)len);
    int err = n < 0 ? errno : 0;
    if (close(fd) != 0 && err == 0)
        err = errno;
    if (err == 0 && n != len)
        err = EIO; /* a short write to sysfs means the value was not taken */
    printf("%s\n", err ? strerrorname_np(err) : "OK");
    return err ? 1 : 0;
}
