#include "textfile_export.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "ozram/error.hpp"
#include "ozram/unique_fd.hpp"

namespace ozramctl {
namespace {

// How many random names to try before giving up: a name taken by chance
// is as rare as 64 random bits colliding.
constexpr int NAME_TRIES = 16;

// Writes all of `text`; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = write(fd, text.data(), text.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
}

// An error whose message says the errno's words too: what an operator
// needs to mend a textfile directory.
[[noreturn]] void failed(int code, const std::string& what) {
    throw ozram::Error(code, what + ": " + std::strerror(code));
}

// A hidden name the collector ignores (no ".prom" ending) that nobody can
// guess in advance, so that nobody can plant anything under it.
std::string temporary_name() {
    std::uint64_t random = 0;
    if (getrandom(&random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) {
        throw ozram::Error(errno != 0 ? errno : EIO, "cannot get random bytes for a file name");
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random));
    std::string name(1, '.');
    name.append(TEXTFILE_NAME).append(1, '.').append(hex).append(".tmp");
    return name;
}

}  // namespace

void write_textfile(const std::filesystem::path& dir, std::string_view text) {
    const std::filesystem::path target = dir / TEXTFILE_NAME;
    // Every name below is looked up in this directory, whatever its path
    // comes to point at meanwhile.
    ozram::UniqueFd dir_fd(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (dir_fd.get() < 0) {
        failed(errno, "cannot open the directory " + dir.string());
    }
    // O_EXCL creates a new file or fails, and fails on a symbolic link too:
    // the write never lands in a file someone else put there.
    std::string hidden;
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < NAME_TRIES; ++tries) {
        hidden = temporary_name();
        fd = openat(dir_fd.get(), hidden.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) {
            break;
        }
    }
    const std::filesystem::path temporary = dir / hidden;
    if (fd < 0) {
        failed(errno, "cannot create " + temporary.string());
    }
    ozram::UniqueFd file(fd);
    // The file is for the collector to read, whatever the umask.
    int error = fchmod(file.get(), 0644) == 0 ? write_all(file.get(), text) : errno;
    if (const int closed = file.close_now(); error == 0) {
        error = closed;
    }
    // rename() replaces the final name itself, a symbolic link included,
    // and never follows it.
    if (error == 0 && renameat(dir_fd.get(), hidden.c_str(), dir_fd.get(),
                               std::string(TEXTFILE_NAME).c_str()) != 0) {
        error = errno;
        unlinkat(dir_fd.get(), hidden.c_str(), 0);
        failed(error, "cannot rename " + temporary.string() + " to " + target.string());
    }
    if (error != 0) {
        unlinkat(dir_fd.get(), hidden.c_str(), 0);
        failed(error, "cannot write " + temporary.string());
    }
}

void remove_textfile(const std::filesystem::path& dir) noexcept {
    const ozram::UniqueFd dir_fd(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (dir_fd.get() >= 0) {
        unlinkat(dir_fd.get(), std::string(TEXTFILE_NAME).c_str(), 0);
    }
}

}  // namespace ozramctl
