// Which parts of a process's address space hold its anonymous memory, read
// from /proc/PID/maps.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ozram::pagedump {

enum class RegionKind : std::uint8_t {
    Heap,       // [heap]: the brk area
    Stack,      // [stack]: the main thread's stack
    Anonymous,  // private mappings with no file: mmap'd heaps, thread stacks, arenas
};
inline constexpr std::size_t REGION_KIND_COUNT = 3;

[[nodiscard]] std::string_view to_string(RegionKind kind);

struct Region {
    std::uint64_t start = 0;  // first byte
    std::uint64_t end = 0;    // one past the last byte
    RegionKind kind = RegionKind::Anonymous;
};

// Parses one line of /proc/PID/maps.  Returns the region when it is readable,
// private anonymous memory; nullopt for file mappings, shared mappings, the
// kernel's special areas ([vdso], [vvar], [vsyscall]) and lines that do not
// parse.
[[nodiscard]] std::optional<Region> parse_anonymous_region(std::string_view maps_line);

// Every anonymous region of a process, in address order.  Throws
// std::system_error with the errno of opening or reading /proc/PID/maps.
[[nodiscard]] std::vector<Region> read_anonymous_regions(pid_t pid);

}  // namespace ozram::pagedump
