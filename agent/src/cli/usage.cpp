#include "cli/usage.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

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

int finish_stdout(std::string_view program, int status) {
    errno = 0;
    // std::cout first: it writes through stdout's buffer, or holds its own.
    std::cout.flush();
    const bool failed = !std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    // The reason, when the failing call is the last one here; a write that
    // failed earlier has left only its mark on the stream.
    const int code = errno;
    if (!failed || code == EPIPE) {
        return status;
    }
    const int size = static_cast<int>(program.size());
    if (code != 0) {
        std::fprintf(stderr, "%.*s: write error: %s\n", size, program.data(), std::strerror(code));
    } else {
        std::fprintf(stderr, "%.*s: write error\n", size, program.data());
    }
    return status == 0 ? 1 : status;
}

}  // namespace ozram::cli
