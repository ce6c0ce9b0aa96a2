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

// The exit status of a program that ends with `status`: what it wrote to
// stdout is flushed, and a write that failed (a full disk) makes it 1,
// with "PROGRAM: write error: REASON" on stderr, so that a script that
// redirects the output learns of it.  A closed pipe is no error, as for
// util-linux's programs.
int finish_stdout(std::string_view program, int status);

}  // namespace ozram::cli
