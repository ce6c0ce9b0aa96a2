// The one error type of the ozram library: an errno-style code and a message.
#pragma once

#include <cerrno>
#include <string>
#include <system_error>

namespace ozram {

// Every failure the library reports is an Error: code() is an errno value in
// std::generic_category() (ENODEV: no GPU, EINVAL: bad argument, EIO: corrupt
// compressed data, ENOMEM, ...), what() says what failed in words.
class Error : public std::system_error {
  public:
    Error(int errno_value, const std::string& message)
        : std::system_error(errno_value, std::generic_category(), message) {}
};

}  // namespace ozram
