#include "page_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

namespace ozram::pagedump {
namespace {

constexpr std::size_t BUFFER_PAGES = 256;

}  // namespace

PageWriter::PageWriter(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        throw std::system_error(errno, std::generic_category(), "cannot create " + path);
    }
    buffer_.reserve(BUFFER_PAGES * PAGE_SIZE);
}

PageWriter::~PageWriter() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

void PageWriter::write_page(std::span<const std::uint8_t, PAGE_SIZE> page) {
    buffer_.insert(buffer_.end(), page.begin(), page.end());
    ++pages_written_;
    if (buffer_.size() >= BUFFER_PAGES * PAGE_SIZE) {
        flush();
    }
}

void PageWriter::flush() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
        const auto n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            throw std::system_error(n < 0 ? errno : EIO, std::generic_category(),
                                    "cannot write " + path_);
        }
        done += static_cast<std::size_t>(n);
    }
    buffer_.clear();
}

void PageWriter::close() {
    if (fd_ < 0) {
        return;
    }
    flush();
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
        throw std::system_error(errno, std::generic_category(), "cannot close " + path_);
    }
}

}  // namespace ozram::pagedump
