#include "page_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

namespace ozram::pagedump {
namespace {

constexpr std::size_t BUFFER_PAGES = 256;

}  // namespace

PageWriter::PageWriter(const std::string& path) : path_(path) {
    struct stat existing {};
    if (::lstat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
        throw std::system_error(EEXIST, std::generic_category(),
                                path + " is there and is not a regular file");
    }
    // mkostemp() creates it with O_EXCL and mode 0600, in the directory of
    // the path, so that the rename stays within one filesystem.
    const std::filesystem::path target(path);
    std::string name = ".";
    name.append(target.filename().string()).append(".XXXXXX");
    temporary_ = (target.parent_path() / name).string();
    fd_ = ::mkostemp(temporary_.data(), O_CLOEXEC);
    if (fd_ < 0) {
        const int error = errno;
        temporary_.clear();
        throw std::system_error(error, std::generic_category(), "cannot create " + path);
    }
    buffer_.reserve(BUFFER_PAGES * PAGE_SIZE);
}

PageWriter::~PageWriter() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (!temporary_.empty()) {
        ::unlink(temporary_.c_str());
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
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
        throw std::system_error(errno, std::generic_category(), "cannot rename to " + path_);
    }
    temporary_.clear();
}

}  // namespace ozram::pagedump
