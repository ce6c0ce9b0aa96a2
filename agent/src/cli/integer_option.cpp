#include "cli/integer_option.hpp"

namespace ozram::cli {

UsageError integer_error(std::string_view name, std::string_view text, const std::string& low,
                         const std::string& high) {
    return bad_value(
        name, high.empty() ? "an integer >= " + low : "an integer in " + low + ".." + high, text);
}

}  // namespace ozram::cli
