// A file descriptor owned by one object: closed when the object goes.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace ozram {

class UniqueFd {
  public:
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    [[nodiscard]] int get() const { return fd_; }
    // Gives the descriptor up to the caller, who closes it.
    int release() { return std::exchange(fd_, -1); }
    // Closes now, for a caller that must know whether close() failed (a
    // write's error may surface only there); returns 0 or its errno.
    int close_now() { return ::close(release()) == 0 ? 0 : errno; }

  private:
    int fd_;
};

}  // namespace ozram
