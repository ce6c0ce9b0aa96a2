// Integers on a command line or in a configuration file: the whole text in
// decimal, within a range, and one wording of the error for every program.
#pragma once

#include <charconv>
#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "cli/usage_error.hpp"

namespace ozram::cli {

// The whole of `text` as a decimal integer; empty on anything else (a sign
// where Number has none, trailing characters, overflow, "").
template <std::integral Number>
[[nodiscard]] std::optional<Number> parse_integer(std::string_view text) {
    Number value{};
    const char* const end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end) {
        return std::nullopt;
    }
    return value;
}

// "--batch: expected an integer in 1..1048575, got 'x'", or with no upper
// bound "--max-pages: expected an integer >= 1, got 'x'".
[[nodiscard]] UsageError integer_error(std::string_view name, std::string_view text,
                                       const std::string& low, const std::string& high);

// The value of option (or setting) `name`, an integer in [low, high].  Throws
// integer_error() naming `name`.
template <std::integral Number>
[[nodiscard]] Number parse_integer_option(std::string_view name, std::string_view text, Number low,
                                          Number high = std::numeric_limits<Number>::max()) {
    const std::optional<Number> value = parse_integer<Number>(text);
    if (!value || *value < low || *value > high) {
        throw integer_error(
            name, text, std::to_string(low),
            high == std::numeric_limits<Number>::max() ? std::string() : std::to_string(high));
    }
    return *value;
}

}  // namespace ozram::cli
