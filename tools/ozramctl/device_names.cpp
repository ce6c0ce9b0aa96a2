#include "device_names.hpp"

#include <charconv>
#include <fstream>

namespace ozramctl {

std::string DeviceNaming::name(std::uint32_t number) const {
    return std::string(prefix) + std::to_string(number);
}

std::optional<std::uint32_t> DeviceNaming::number_of(std::string_view name) const {
    if (!name.starts_with(prefix)) {
        return std::nullopt;
    }
    name.remove_prefix(prefix.size());
    if (name.empty() || (name.size() > 1 && name.front() == '0')) {
        return std::nullopt;  // "ozram" and "ozram01" name no device
    }
    std::uint32_t number = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
    if (error != std::errc() || end != name.data() + name.size()) {
        return std::nullopt;
    }
    return number;
}

std::optional<DeviceNaming> loaded_module_naming(const std::filesystem::path& parameters) {
    const auto compat = module_flag("compat", parameters);
    if (!compat) {
        return std::nullopt;
    }
    return *compat ? ZRAM_NAMING : OZRAM_NAMING;
}

std::optional<DeviceArgument> parse_device_argument(std::string_view text) {
    const bool path = text.starts_with("/dev/");
    if (path) {
        text.remove_prefix(5);
    }
    for (const DeviceNaming& naming : {OZRAM_NAMING, ZRAM_NAMING}) {
        if (text.starts_with(naming.prefix)) {
            if (auto number = naming.number_of(text)) {
                return DeviceArgument{*number, naming.prefix};
            }
            return std::nullopt;
        }
    }
    if (auto number = path ? std::nullopt : DeviceNaming{"", ""}.number_of(text)) {
        return DeviceArgument{*number, ""};
    }
    return std::nullopt;
}

std::optional<std::string> naming_mismatch(const DeviceArgument& argument,
                                           const DeviceNaming& naming) {
    if (argument.prefix.empty() || argument.prefix == naming.prefix) {
        return std::nullopt;
    }
    const std::string given = std::string(argument.prefix) + std::to_string(argument.number);
    if (naming == ZRAM_NAMING) {
        return "no such device: " + given +
               " (the ozram module is loaded with compat=1 and names its devices zramN: " +
               naming.name(argument.number) + ")";
    }
    return "no such device: " + given +
           " (the ozram module names its devices ozramN: " + naming.name(argument.number) +
           "; zramN with compat=1)";
}

}  // namespace ozramctl
