// The usage error of a command line that getopt_long(3) refused, named by
// the option the user typed.
#pragma once

#include "cli/usage_error.hpp"

namespace ozram::cli {

// The error for getopt_long()'s `result` (':' a value missing, '?' an
// option unknown or given a value it takes none of), which it returned
// for the call that began with optind at `word`.  Reads optind and optopt.
// A short option in a cluster ("-xy") leaves optind on its cluster, so
// argv[optind - 1] is then an earlier word, not the culprit.
[[nodiscard]] UsageError getopt_error(char* const argv[], int word, int result);

}  // namespace ozram::cli
