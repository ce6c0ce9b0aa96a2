// The command line of ozram-pagedump.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ozram::pagedump {

struct Options {
    std::vector<pid_t> pids;
    std::string output;
    std::uint64_t max_pages = 0;  // 0: no limit
    bool include_zero = false;
    bool help = false;
};

// A command line that does not parse; main() prints it with the usage (exit 2).
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// argv without the program name.  Throws UsageError.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args);

[[nodiscard]] std::string usage_text();

}  // namespace ozram::pagedump
