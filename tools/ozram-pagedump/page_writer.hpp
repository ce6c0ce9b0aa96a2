// The corpus file: a plain concatenation of 4 KiB pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ozram/page.hpp"

namespace ozram::pagedump {

// Appends whole pages to a file, buffering them so that a dump of many small
// runs costs few write() calls.  Throws std::system_error on any I/O error
// (ENOSPC, EIO, ...): a short corpus must never look like a complete one.
class PageWriter {
  public:
    explicit PageWriter(const std::string& path);
    ~PageWriter();
    PageWriter(const PageWriter&) = delete;
    PageWriter& operator=(const PageWriter&) = delete;

    void write_page(std::span<const std::uint8_t, PAGE_SIZE> page);
    // Flushes and closes; the destructor closes without reporting errors.
    void close();

    [[nodiscard]] std::uint64_t pages_written() const { return pages_written_; }

  private:
    void flush();

    std::string path_;
    int fd_ = -1;
    std::vector<std::uint8_t> buffer_;
    std::uint64_t pages_written_ = 0;
};

}  // namespace ozram::pagedump
