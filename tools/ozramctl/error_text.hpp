// The words ozramctl prints for an error.
#pragma once

#include <exception>
#include <string>

namespace ozramctl {

// what() of `error`; of an ozram::Error, without the errno's words that
// std::system_error appends: ozramctl's messages are its own words, and
// say the errno's where it helps (and then once).
[[nodiscard]] std::string error_text(const std::exception& error);

}  // namespace ozramctl
