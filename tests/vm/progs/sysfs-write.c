/* sysfs-write: write a value to a file with one write(2) and report the
 * outcome as an errno name ("OK", "EBUSY", "EINVAL", ...), so that tests can
 * compare exact error codes instead of a shell's translated message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE* out) {
    fprintf(out,
            "usage: sysfs-write [-n] [-e] FILE VALUE\n"
            "Writes VALUE followed by a newline (none with -n) to FILE in one\n"
            "write(2) and prints OK or the errno name (e.g. EBUSY).\n"
            "  -e  VALUE holds escapes: \\0 (a NUL byte), \\n, \\t, \\\\ and \\xHH\n"
            "Exit status: 0 on success, 1 when open or write failed, 2 on usage error.\n");
}

/* Decodes the escapes of -e from `in` into `out`; returns the length or -1. */
static int unescape(const char* in, char* out, size_t room) {
    size_t n = 0;

    while (*in) {
        char c = *in++;

        if (c == '\\') {
            switch (*in++) {
                case '0':
                    c = '\0';
                    break;
                case 'n':
                    c = '\n';
                    break;
                case 't':
                    c = '\t';
                    break;
                case '\\':
                    c = '\\';
                    break;
                case 'x': {
                    char hex[3] = {0};
                    char* end;

                    if (!in[0] || !in[1])
                        return -1;
                    hex[0] = in[0];
                    hex[1] = in[1];
                    c = (char)strtoul(hex, &end, 16);
                    if (*end)
                        return -1;
                    in += 2;
                    break;
                }
                default:
                    return -1;
            }
        }
        if (n + 1 >= room)
            return -1;
        out[n++] = c;
    }
    return (int)n;
}

int main(int argc, char** argv) {
    int newline = 1, escapes = 0;
    int argi = 1;

    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    for (; argi < argc && argv[argi][0] == '-' && argv[argi][1]; argi++) {
        if (!strcmp(argv[argi], "-n")) {
            newline = 0;
        } else if (!strcmp(argv[argi], "-e")) {
            escapes = 1;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (argc - argi != 2) {
        usage(stderr);
        return 2;
    }

    const char* path = argv[argi];
    char buf[4096];
    int len;

    if (escapes) {
        len = unescape(argv[argi + 1], buf, sizeof(buf) - 1);
        if (len < 0) {
            fprintf(stderr, "sysfs-write: bad escape or value too long\n");
            return 2;
        }
        if (newline)
            buf[len++] = '\n';
    } else {
        len = snprintf(buf, sizeof(buf), "%s%s", argv[argi + 1], newline ? "\n" : "");
        if (len < 0 || (size_t)len >= sizeof(buf)) {
            fprintf(stderr, "sysfs-write: value too long\n");
            return 2;
        }
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
