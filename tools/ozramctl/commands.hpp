// The subcommands of ozramctl, each from a parsed command line to output on
// stdout.  Failures are ozram::Error exceptions; main() turns them into a
// message and exit status 1.
#pragma once

#include "command_line.hpp"

namespace ozramctl {

// Runs line.subcommand; returns the exit status.
int run_command(const CommandLine& line);

}  // namespace ozramctl
