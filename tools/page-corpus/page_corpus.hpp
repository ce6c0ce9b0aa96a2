// A page corpus: a file of whole 4 KiB pages, as ozram-pagedump writes it,
// the input of ozram-bench and ozram-ringload.  The file is mapped and
// faulted in whole, so that no timed pass and no feeding of the ring waits
// on the disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ozram {

class PageCorpus {
  public:
    // Maps the first max_pages pages of `path` (0: all) read-only.  Throws
    // ozram::Error: the errno of open, fstat or mmap, or EINVAL when the
    // file is not a regular one, is empty, or its size is not a multiple of
    // PAGE_SIZE.
    explicit PageCorpus(const std::string& path, std::size_t max_pages = 0);
    ~PageCorpus();
    PageCorpus(const PageCorpus&) = delete;
    PageCorpus& operator=(const PageCorpus&) = delete;

    [[nodiscard]] std::span<const std::uint8_t* const> pages() const { return pages_; }
    [[nodiscard]] std::size_t page_count() const { return pages_.size(); }
    [[nodiscard]] const std::string& path() const { return path_; }
    // The mapping that holds every page, in order.
    [[nodiscard]] std::span<const std::uint8_t> bytes() const {
        return {static_cast<const std::uint8_t*>(mapping_), mapping_size_};
    }

  private:
    std::string path_;
    void* mapping_ = nullptr;
    std::size_t mapping_size_ = 0;
    std::vector<const std::uint8_t*> pages_;
};

}  // namespace ozram
