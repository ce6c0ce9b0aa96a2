#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace ozramctl {

// The loaded module's parameters, one file each.
inline const std::filesystem::path MODULE_PARAMETERS = "/sys/module/ozram/parameters";

// The value of the module's boolean parameter NAME ("Y" or "N" in sysfs);
// empty when the module is not loaded or the file does not hold a boolean.
std::optional<bool> module_flag(std::string_view name,
                                const std::filesystem::path& parameters = MODULE_PARAMETERS);

}  // namespace ozramctl
