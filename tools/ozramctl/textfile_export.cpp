#include "textfile_export.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "ozram/error.hpp"

namespace ozramctl {
namespace {

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

}  // namespace

void write_textfile(const std::filesystem::path& dir, std::string_view text) {
    const std::filesystem::path target = dir / TEXTFILE_NAME;
    // A name the collector ignores (no ".prom" ending), unique per process.
    std::string hidden(1, '.');
    hidden.append(TEXTFILE_NAME).append(".").append(std::to_string(getpid())).append(".tmp");
    const std::filesystem::path temporary = dir / hidden;
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw ozram::Error(errno, "cannot create " + temporary.string());
    }
    // The file is for the collector to read, whatever the umask.
    int error = fchmod(fd, 0644) == 0 ? write_all(fd, text) : errno;
    if (close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error == 0 && rename(temporary.c_str(), target.c_str()) != 0) {
        error = errno;
        unlink(temporary.c_str());
        throw ozram::Error(error, "cannot rename " + temporary.string() + " to " + target.string());
    }
    if (error != 0) {
        unlink(temporary.c_str());
        throw ozram::Error(error, "cannot write " + temporary.string());
    }
}

}  // namespace ozramctl
