// A page corpus (a file of whole 4 KiB pages, as ozram-pagedump writes it),
// read into memory so that feeding the ring never waits on the disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ozram/page.hpp"

namespace ozram::ringload {

// Reads the first `max_pages` pages (0: all).  Throws Error: the errno of
// reading, or EINVAL for an empty file or one whose size is not a multiple of
// PAGE_SIZE.
[[nodiscard]] std::vector<Page> read_corpus(const std::string& path, std::size_t max_pages = 0);

}  // namespace ozram::ringload
