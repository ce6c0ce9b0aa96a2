// A device's sysfs attributes as ozramctl reads and writes them.  Each is a
// plain path, so that the tests run the same code on a directory tree of
// their own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ozramctl {

// The first line of `file`, without its newline; nothing if it cannot be
// read or is empty.
[[nodiscard]] std::optional<std::string> read_first_line(const std::filesystem::path& file);

// The decimal number that `file` starts with; nothing if it has none.
[[nodiscard]] std::optional<std::uint64_t> read_number(const std::filesystem::path& file);

// Writes `value` with one write(2), as sysfs takes an attribute's value
// whole, and returns 0 or the errno of the open, the write or the close.
// The open truncates, as the shell's "echo >" does: sysfs ignores that, and
// a test's plain file then holds the value alone.
[[nodiscard]] int write_attribute(const std::filesystem::path& file, std::string_view value);

}  // namespace ozramctl
