#include "sysfs_attribute.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace ozramctl {

std::optional<std::string> read_first_line(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line)) {
        return std::nullopt;
    }
    return line;
}

std::optional<std::uint64_t> read_number(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::uint64_t value = 0;
    if (!(in >> value)) {
        return std::nullopt;
    }
    return value;
}

int write_attribute(const std::filesystem::path& file, std::string_view value) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    const ssize_t written = ::write(fd, value.data(), value.size());
    int error = written < 0 ? errno : (written == static_cast<ssize_t>(value.size()) ? 0 : EIO);
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    return error;
}

}  // namespace ozramctl
