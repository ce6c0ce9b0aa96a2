// The command line of ozram-pagedump.
#pragma once

#include <sys/types.h>

#include <cstdint>
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

// argv without the program name.  Throws cli::UsageError.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args);

[[nodiscard]] std::string usage_text();

}  // namespace ozram::pagedump
