#include "page_corpus.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "ozram/error.hpp"

namespace ozram::ringload {

std::vector<Page> read_corpus(const std::string& path, std::size_t max_pages) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        throw Error(errno != 0 ? errno : EIO, "cannot open " + path);
    }
    // A directory opens as a stream whose size reads as -1.
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        throw Error(EINVAL, path + ": not a regular file");
    }
    const auto size = static_cast<std::size_t>(file.tellg());
    if (size == 0 || size % PAGE_SIZE != 0) {
        throw Error(EINVAL, path + ": " + std::to_string(size) +
                                " bytes is not a whole, non-zero number of 4096-byte pages");
    }
    std::size_t count = size / PAGE_SIZE;
    if (max_pages != 0 && max_pages < count) {
        count = max_pages;
    }
    std::vector<Page> pages(count);
    file.seekg(0);
    if (!file.read(reinterpret_cast<char*>(pages.data()),
                   static_cast<std::streamsize>(count * PAGE_SIZE))) {
        throw Error(EIO, "cannot read " + path);
    }
    return pages;
}

}  // namespace ozram::ringload
