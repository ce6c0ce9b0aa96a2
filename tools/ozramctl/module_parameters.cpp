#include "module_parameters.hpp"

#include <fstream>
#include <string>

namespace ozramctl {

std::optional<bool> module_flag(std::string_view name, const std::filesystem::path& parameters) {
    std::ifstream file(parameters / name);
    std::string value;
    if (!(file >> value) || (value != "Y" && value != "N")) {
        return std::nullopt;
    }
    return value == "Y";
}

}  // namespace ozramctl
