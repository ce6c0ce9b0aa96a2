#include "size_format.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace ozramctl {
namespace {

constexpr char UNITS[] = {'B', 'K', 'M', 'G', 'T', 'P', 'E'};

int unit_exponent(char letter) {
    switch (std::toupper(static_cast<unsigned char>(letter))) {
        case 'K':
            return 1;
        case 'M':
            return 2;
        case 'G':
            return 3;
        case 'T':
            return 4;
        case 'P':
            return 5;
        case 'E':
            return 6;
        default:
            return -1;
    }
}

}  // namespace

std::string human_size(std::uint64_t bytes) {
    int exponent = 0;
    while (exponent < 6 && bytes >= (std::uint64_t{1} << (10 * (exponent + 1)))) {
        ++exponent;
    }
    if (exponent == 0) {
        return std::to_string(bytes) + "B";
    }
    const std::uint64_t unit = std::uint64_t{1} << (10 * exponent);
    std::uint64_t whole = bytes / unit;
    // Tenths, rounded half up, computed without floating point so that the
    // result is exact for every 64-bit value.
    std::uint64_t tenths = ((bytes % unit) * 10 + unit / 2) / unit;
    if (tenths == 10) {
        ++whole;
        tenths = 0;
    }
    std::string text = std::to_string(whole);
    if (tenths != 0) {
        text += '.' + std::to_string(tenths);
    }
    return text + UNITS[exponent];
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
    std::uint64_t whole = 0;
    const char* end = text.data() + text.size();
    auto [pos, error] = std::from_chars(text.data(), end, whole);
    if (error != std::errc() || pos == text.data()) {
        return std::nullopt;
    }
    std::uint64_t fraction = 0;  // in units of 1/10^digits
    std::uint64_t fraction_scale = 1;
    if (pos != end && *pos == '.') {
        ++pos;
        const char* digits = pos;
        while (pos != end && std::isdigit(static_cast<unsigned char>(*pos)) &&
               fraction_scale < 1'000'000) {
            fraction = fraction * 10 + static_cast<std::uint64_t>(*pos - '0');
            fraction_scale *= 10;
            ++pos;
        }
        if (pos == digits) {
            return std::nullopt;
        }
    }
    std::string_view suffix(pos, static_cast<std::size_t>(end - pos));
    int exponent = 0;
    if (!suffix.empty()) {
        exponent = unit_exponent(suffix.front());
        if (exponent < 0) {
            if (suffix != "B" && suffix != "b") {
                return std::nullopt;
            }
            exponent = 0;
        } else {
            suffix.remove_prefix(1);
            if (!(suffix.empty() || suffix == "B" || suffix == "b" || suffix == "iB" ||
                  suffix == "ib")) {
                return std::nullopt;
            }
        }
    }
    const int shift = 10 * exponent;
    if (shift > 0 && whole > (UINT64_MAX >> shift)) {
        return std::nullopt;
    }
    const std::uint64_t bytes = whole << shift;
    // A fraction of a unit, rounded down to a whole byte.
    const auto extra = static_cast<std::uint64_t>(
        (static_cast<unsigned __int128>(fraction) << shift) / fraction_scale);
    if (fraction != 0 && (shift == 0 || bytes > UINT64_MAX - extra)) {
        return std::nullopt;  // "1.5" bytes, or too large
    }
    return bytes + extra;
}

}  // namespace ozramctl
