// What ozramd and the tools do with --help and with a command line they
// cannot run, and the exit status of the latter.
#pragma once

#include <string_view>

namespace ozram::cli {

// The exit status of a usage error, in every program.
inline constexpr int EXIT_USAGE = 2;

// Prints the usage text on stdout; returns 0, the exit status of --help.
int print_usage(std::string_view text);

// Prints "PROGRAM: MESSAGE" and "Try 'PROGRAM --help' for more information."
// on stderr; returns EXIT_USAGE.
int usage_error(std::string_view program, std::string_view message);

}  // namespace ozram::cli
