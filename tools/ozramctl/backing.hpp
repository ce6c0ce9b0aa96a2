// The backing device of a device, in zram's ABI: bd_stat, and "ozramctl
// writeback" over the writeback, writeback_limit and writeback_limit_enable
// files.  The functions take the directory of the device's sysfs files
// (/sys/block/ozramN) so that tests can point them at a tree of their own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device_names.hpp"

namespace ozramctl {

// zram counts writeback and its limit in units of 4 KiB, whatever the page
// size of the machine.
inline constexpr std::uint64_t WRITEBACK_UNIT = 4096;

// bd_stat, in 4 KiB blocks of the backing device (a page each in zram):
// held there now, read from it and written to it since initialization.
struct BackingStat {
    std::uint64_t count = 0;   // bd_count
    std::uint64_t reads = 0;   // bd_reads
    std::uint64_t writes = 0;  // bd_writes

    BackingStat& operator+=(const BackingStat& other);
    bool operator==(const BackingStat&) const = default;
};

// From the text of bd_stat (three numbers); nothing on anything else.
std::optional<BackingStat> parse_bd_stat(std::string_view text);

// DIR/bd_stat; nothing when the module has no such file (no writeback) or
// it cannot be read.
std::optional<BackingStat> read_bd_stat(const std::filesystem::path& dir);

// The writeback types zram's writeback file takes: "idle", "huge",
// "huge_idle" (zram 6.1) and "incompressible" (zram 6.2 on).
bool is_writeback_type(std::string_view type);

struct WritebackRequest {
    std::optional<std::string> type;           // what to write back
    std::optional<std::uint64_t> limit_bytes;  // --limit: the budget to set first
    std::optional<bool> compressed;            // --compressed: compressed_writeback to set first
};

// The budget in zram's writeback_limit unit: whole 4 KiB pages, rounded down.
std::uint64_t writeback_limit_pages(std::uint64_t bytes);

// What a writeback did, read from the device's files around the request.
struct WritebackResult {
    BackingStat before;
    BackingStat after;
    std::optional<std::uint64_t> limit_left;  // writeback_limit, when enabled
    int error = 0;                            // the errno of the request, 0 on success
};

// Sets the limit if asked (writeback_limit, then writeback_limit_enable=1),
// then writes the type to DIR/writeback and reads bd_stat before and after.
// A refused request is in result.error (the pages it had written back by
// then are in `after`); throws ozram::Error when DIR has no writeback
// support, no backing device, or a file cannot be read or written.
WritebackResult run_writeback(const std::filesystem::path& dir, std::string_view name,
                              const WritebackRequest& request);

// The initialized devices (directories of BLOCK named as NAMING names disks,
// whose disksize is not 0), by number.
std::vector<std::string> initialized_devices(const std::filesystem::path& block,
                                             const DeviceNaming& naming);

// Whether DIR/backing_dev names a device (zram shows "none" until one is set).
bool has_backing_device(const std::filesystem::path& dir);

// zram's errno of a write to the writeback file, in words for `name`.
// `limit_used_up`: writeback_limit_enable is on and writeback_limit is 0,
// which makes zram answer EIO without writing.
std::string writeback_error_message(std::string_view name, std::string_view type, int error,
                                    bool limit_used_up);

// The blocks written back (bd_writes after minus before, with their size),
// then bd_stat before and after as a table, then the budget left.
std::string writeback_summary(std::string_view name, const WritebackResult& result, bool bytes);

}  // namespace ozramctl
