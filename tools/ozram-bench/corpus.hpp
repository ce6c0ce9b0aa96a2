// A page corpus: a file of whole 4 KiB pages, as ozram-pagedump writes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ozram::bench {

class Corpus {
  public:
    // Maps the file read-only and faults it in, so that no timed pass pays for
    // reading it.  Uses the first max_pages pages (0: all).  Throws ozram::Error:
    // the errno of open/mmap, or EINVAL when the file is empty or its size is
    // not a multiple of PAGE_SIZE.
    explicit Corpus(const std::string& path, std::size_t max_pages = 0);
    ~Corpus();
    Corpus(const Corpus&) = delete;
    Corpus& operator=(const Corpus&) = delete;

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

}  // namespace ozram::bench
