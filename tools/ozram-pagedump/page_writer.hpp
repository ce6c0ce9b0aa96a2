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
//
// The pages go to a new file beside `path`, readable by its owner only
// (they are another process's memory), which close() renames to `path`.
// Until then whatever is at `path` stays as it was, and a writer destroyed
// before close() removes its file: a failed dump leaves nothing behind and
// destroys nothing.  `path` must be a regular file or nothing.
class PageWriter {
  public:
    explicit PageWriter(const std::string& path);
    ~PageWriter();
    PageWriter(const PageWriter&) = delete;
    PageWriter& operator=(const PageWriter&) = delete;

    void write_page(std::span<const std::uint8_t, PAGE_SIZE> page);
    // Flushes, closes and puts the file at the path.
    void close();

    [[nodiscard]] std::uint64_t pages_written() const { return pages_written_; }

  private:
    void flush();

    std::string path_;
    std::string temporary_;  // the file being written, until close()
    int fd_ = -1;
    std::vector<std::uint8_t> buffer_;
    std::uint64_t pages_written_ = 0;
};

}  // namespace ozram::pagedump
