// ozramctl recompress: zram's recompression request for a device's
// recompress file, and what it saved, read from backend_stat before and
// after.
// Pure functions here; commands.cpp does the I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ozramctl {

struct RecompressRequest {
    std::optional<std::string> type;         // idle, huge or huge_idle
    std::optional<std::uint64_t> threshold;  // bytes: only objects at least this large
    std::optional<std::uint64_t> max_pages;  // at most this many pages
    std::optional<std::string> algo;         // the recompression algorithm by name
};

// What recompress takes, in zram's syntax ("type=idle threshold=1024").  An
// empty request asks for every stored page, as an empty write to zram's.
std::string recompress_argument(const RecompressRequest& request);

// The recompression numbers: pages stored recompressed and bytes saved.
struct RecompressCounts {
    std::uint64_t pages = 0;
    std::uint64_t saved = 0;
};

// From the text of backend_stat ("name: value" lines, the numbers named as
// in the module's list); nothing when it lacks either.
std::optional<RecompressCounts> parse_recompress_counts(std::string_view backend_stat);

// "ozram0: 16384 pages recompressed, 15.3 MiB saved", from the counts before
// and after; sizes in bytes with `bytes`.
std::string recompress_summary(std::string_view device, const RecompressCounts& before,
                               const RecompressCounts& after, bool bytes);

}  // namespace ozramctl
