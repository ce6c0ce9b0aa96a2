// ozramd's exit statuses; Documentation/ozramd.md lists them for operators.
#pragma once

#include "cli/usage.hpp"

namespace ozram::daemon {

enum ExitStatus : int {
    EXIT_OK = 0,                   // stopped by a signal or by the producer
    EXIT_RUNTIME = 1,              // a runtime error after start-up
    EXIT_USAGE = cli::EXIT_USAGE,  // bad command line or configuration file
    EXIT_ABI_MISMATCH = 3,         // the ring speaks an unknown major ABI version
    EXIT_NO_RING = 4,              // no ring to attach to (module not loaded, no segment)
    EXIT_MLOCK = 5,                // --require-mlock and mlockall() failed
};

}  // namespace ozram::daemon
