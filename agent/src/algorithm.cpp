#include "ozram/algorithm.hpp"

#include <array>

namespace ozram {
namespace {

constexpr std::array<std::string_view, ALGORITHM_COUNT> NAMES = {"lz4", "lz4hc", "lzo", "lzo-rle",
                                                                 "zstd"};

}  // namespace

std::string_view to_string(Algorithm algorithm) {
    return NAMES.at(static_cast<std::size_t>(algorithm));
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
    for (std::size_t i = 0; i < NAMES.size(); ++i) {
        if (NAMES[i] == name) {
            return static_cast<Algorithm>(i);
        }
    }
    return std::nullopt;
}

}  // namespace ozram
