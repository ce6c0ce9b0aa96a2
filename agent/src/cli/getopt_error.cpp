#include "cli/getopt_error.hpp"

#include <getopt.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace ozram::cli {

UsageError getopt_error(char* const argv[], int word, int result) {
    // The word the call took whole: a long option, or a short one alone.
    const int taken = optind - 1;
    if (taken >= std::max(word, 1)) {
        const std::string_view text = argv[taken];
        if (text.starts_with("--")) {
            const auto equals = text.find('=');
            const std::string_view name = text.substr(0, equals);
            if (result == ':') {
                return missing_value(name);
            }
            // A long option getopt knows (optopt its value) given "=VALUE".
            if (optopt != 0 && equals != std::string_view::npos) {
                return unwanted_value(name);
            }
            return unknown_option(name);
        }
    }
    const std::string name{'-', static_cast<char>(optopt)};
    return result == ':' ? missing_value(name) : unknown_option(name);
}

}  // namespace ozram::cli
