#include "cli/usage.hpp"

#include <cstdio>

namespace ozram::cli {

int print_usage(std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

int usage_error(std::string_view program, std::string_view message) {
    const int program_size = static_cast<int>(program.size());
    std::fprintf(stderr, "%.*s: %.*s\nTry '%.*s --help' for more information.\n", program_size,
                 program.data(), static_cast<int>(message.size()), message.data(), program_size,
                 program.data());
    return EXIT_USAGE;
}

}  // namespace ozram::cli
