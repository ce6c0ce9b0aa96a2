// ozramctl: show and control ozram devices over the "ozram" generic netlink
// family and sysfs.  Exit status: 0 ok, 1 runtime error, 2 usage error.
#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "error_text.hpp"

#ifndef OZRAM_VERSION
#define OZRAM_VERSION "unknown"
#endif

namespace {

int run(int argc, char** argv) {
    using namespace ozramctl;
    constexpr int EXIT_RUNTIME = 1;

    std::vector<std::string_view> args(argv + 1, argv + argc);
    CommandLine line;
    try {
        line = parse_command_line(args);
    } catch (const ozram::cli::UsageError& error) {
        return ozram::cli::usage_error("ozramctl", error.what());
    }
    if (line.help) {
        return ozram::cli::print_usage(usage_text(line.subcommand));
    }
    if (line.version) {
        std::printf("ozramctl %s\n", OZRAM_VERSION);
        return 0;
    }
    try {
        return run_command(line);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "ozramctl: %s\n", error_text(error).c_str());
    }
    return EXIT_RUNTIME;
}

}  // namespace

int main(int argc, char** argv) {
    return ozram::cli::finish_stdout("ozramctl", run(argc, argv));
}
