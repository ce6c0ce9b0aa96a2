// The names the loaded module gives its disks and its control class: its own
// ("ozramN", ozram-control), or zram's ("zramN", zram-control) when it was
// loaded with compat=1 for zramctl and zram-generator.  Every device name
// ozramctl prints, reads or is given goes through one of these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "module_parameters.hpp"

namespace ozramctl {

struct DeviceNaming {
    std::string_view prefix;         // of the disks: PREFIX + number
    std::string_view control_class;  // under /sys/class

    std::string name(std::uint32_t number) const;

    // N of "PREFIXN" (decimal, no leading zero); empty on anything else.
    std::optional<std::uint32_t> number_of(std::string_view name) const;

    bool operator==(const DeviceNaming&) const = default;
};

inline constexpr DeviceNaming OZRAM_NAMING{"ozram", "ozram-control"};
inline constexpr DeviceNaming ZRAM_NAMING{"zram", "zram-control"};

// The naming of the loaded module, from its compat parameter (PARAMETERS is
// the module's parameters directory); empty when the module is not loaded.
std::optional<DeviceNaming> loaded_module_naming(
    const std::filesystem::path& parameters = MODULE_PARAMETERS);

// A device as given on the command line: "ozram3", "/dev/zram3" or "3".
// PREFIX is the naming it was written in, empty for a bare number.
struct DeviceArgument {
    std::uint32_t number = 0;
    std::string_view prefix;

    bool operator==(const DeviceArgument&) const = default;
};

// Empty on anything that is not a device in either naming.
std::optional<DeviceArgument> parse_device_argument(std::string_view text);

// Why ARGUMENT names no device of a module named by NAMING ("zram0" given
// to a module loaded without compat=1), or empty when it may.
std::optional<std::string> naming_mismatch(const DeviceArgument& argument,
                                           const DeviceNaming& naming);

}  // namespace ozramctl
