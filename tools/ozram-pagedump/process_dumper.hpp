// Copies the resident anonymous pages of one process into a PageWriter.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <system_error>

#include "page_writer.hpp"
#include "proc_maps.hpp"

namespace ozram::pagedump {

struct DumpLimits {
    std::uint64_t max_pages = 0;  // 0: no limit (counts pages written by this call)
    bool include_zero = false;    // all-zero pages are left out unless asked for
};

struct ProcessDump {
    pid_t pid = 0;
    std::string command;  // /proc/PID/comm, its control bytes as '?'
    std::array<std::uint64_t, REGION_KIND_COUNT> pages_by_kind{};
    std::uint64_t regions = 0;
    std::uint64_t zero_pages_left_out = 0;
    std::uint64_t pages_skipped = 0;    // present, but reading them failed
    std::uint64_t regions_skipped = 0;  // whose page map could not be read
    bool truncated = false;             // stopped at max_pages

    [[nodiscard]] std::uint64_t pages_written() const;
};

// Why a process could not be dumped at all; each maps to its own exit code.
enum class DumpFailure : std::uint8_t { NoSuchProcess, PermissionDenied, Other };

class DumpError : public std::system_error {
  public:
    DumpError(DumpFailure failure, int errno_value, const std::string& message)
        : std::system_error(errno_value, std::generic_category(), message), failure_(failure) {}
    [[nodiscard]] DumpFailure failure() const { return failure_; }

  private:
    DumpFailure failure_;
};

// Reads /proc/PID/maps, /proc/PID/pagemap and /proc/PID/mem.  A page is taken
// when pagemap says it is present (bit 63) and not swapped (bit 62); pagemap
// hides the frame number from readers without CAP_SYS_ADMIN but still gives
// these bits.  Regions or pages that cannot be read (the process unmapped them
// meanwhile, or they are I/O memory) are skipped and counted.  Throws
// DumpError when the process is gone or may not be read, and
// std::system_error when writing the corpus fails.
[[nodiscard]] ProcessDump dump_process(pid_t pid, const DumpLimits& limits, PageWriter& writer);

}  // namespace ozram::pagedump
