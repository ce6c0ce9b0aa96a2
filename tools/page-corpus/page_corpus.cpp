#include "page_corpus.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ozram/error.hpp"
#include "ozram/page.hpp"

namespace ozram {

PageCorpus::PageCorpus(const std::string& path, std::size_t max_pages) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw Error(errno, "cannot open " + path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int saved = errno;
        ::close(fd);
        throw Error(saved, "cannot stat " + path);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(EINVAL, path + ": not a regular file");
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size == 0 || size % PAGE_SIZE != 0) {
        ::close(fd);
        throw Error(EINVAL, path + ": size " + std::to_string(size) +
                                " is not a positive multiple of " + std::to_string(PAGE_SIZE) +
                                " (a corpus is whole pages)");
    }
    auto count = size / PAGE_SIZE;
    if (max_pages != 0) {
        count = std::min(count, max_pages);
    }
    mapping_size_ = count * PAGE_SIZE;
    mapping_ = ::mmap(nullptr, mapping_size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    const int saved = errno;
    ::close(fd);
    if (mapping_ == MAP_FAILED) {
        mapping_ = nullptr;
        throw Error(saved, "cannot map " + path);
    }
    const auto* base = static_cast<const std::uint8_t*>(mapping_);
    pages_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        pages_.push_back(base + i * PAGE_SIZE);
    }
}

PageCorpus::~PageCorpus() {
    if (mapping_ != nullptr) {
        ::munmap(mapping_, mapping_size_);
    }
}

}  // namespace ozram
