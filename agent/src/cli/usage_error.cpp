#include "cli/usage_error.hpp"

namespace ozram::cli {
namespace {

std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '\'';
    out += text;
    out += '\'';
    return out;
}

}  // namespace

UsageError missing_value(std::string_view option) {
    return UsageError("option " + quoted(option) + " needs an argument");
}

UsageError unwanted_value(std::string_view option) {
    return UsageError("option " + quoted(option) + " takes no argument");
}

UsageError unknown_option(std::string_view option) {
    return UsageError("unknown option " + quoted(option));
}

UsageError unexpected_argument(std::string_view argument) {
    return UsageError("unexpected argument " + quoted(argument));
}

UsageError bad_value(std::string_view name, std::string_view expected, std::string_view text) {
    return UsageError(std::string(name) + ": expected " + std::string(expected) + ", got " +
                      quoted(text));
}

}  // namespace ozram::cli
