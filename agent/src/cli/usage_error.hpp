// The error of a command line that cannot be run, shared by ozramd and the
// tools: each prints it with usage_error() (usage.hpp) and exits with
// EXIT_USAGE.  The helpers below give the messages every program words the
// same way.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ozram::cli {

class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// "option '--batch' needs an argument"
[[nodiscard]] UsageError missing_value(std::string_view option);
// "option '--json' takes no argument"
[[nodiscard]] UsageError unwanted_value(std::string_view option);
// "unknown option '--frob'"
[[nodiscard]] UsageError unknown_option(std::string_view option);
// "unexpected argument 'extra'"
[[nodiscard]] UsageError unexpected_argument(std::string_view argument);
// "--backend: expected cpu, scalar, gpu or all, got 'tpu'": a value of the
// wrong kind; `expected` says what would do.
[[nodiscard]] UsageError bad_value(std::string_view name, std::string_view expected,
                                   std::string_view text);

}  // namespace ozram::cli
