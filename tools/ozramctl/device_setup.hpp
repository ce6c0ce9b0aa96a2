// "ozramctl setup": the zramctl convenience over sysfs.  Finds a free device
// (or takes the one named), sets its disk size, and optionally makes it swap.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "device_names.hpp"

namespace ozramctl {

struct SetupRequest {
    std::optional<std::uint32_t> device;  // empty: the first free one
    std::uint64_t size = 0;               // bytes
    bool swap = false;
    std::optional<int> priority;  // swapon priority
};

// Where the sysfs files are, and what the module names its devices; tests
// point it at a directory tree of their own.
struct SysfsRoot {
    std::filesystem::path block = "/sys/block";
    std::filesystem::path classes = "/sys/class";
    std::filesystem::path dev = "/dev";
    DeviceNaming naming = OZRAM_NAMING;

    std::filesystem::path control() const { return classes / naming.control_class; }
};

// The lowest-numbered device whose disksize is 0, or a new one from
// hot_add.  Throws ozram::Error (ENOENT when the module is not loaded).
std::uint32_t find_free_device(const SysfsRoot& root);

// Runs the whole setup; returns the device's path ("/dev/ozram0", or
// "/dev/zram0" under zram's names).
std::string setup_device(const SetupRequest& request, const SysfsRoot& root = {});

}  // namespace ozramctl
