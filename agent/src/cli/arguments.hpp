// Walks a command line for the tools that parse it by hand: options and
// operands in any order, "--name=value" or "--name value", "-xvalue" or
// "-x value", short flags bundled as getopt takes them ("-jb" is "-j -b"),
// and "--" ending the options.  The errors are UsageErrors worded
// as usage_error.hpp words them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ozram::cli {

class Arguments {
  public:
    // The arguments without the program name; they must outlive the walk.
    explicit Arguments(std::vector<std::string_view> args);
    explicit Arguments(const std::vector<std::string>& args);

    // Moves to the next argument; false after the last.
    bool next();

    // Whether the current argument is an option (a "-" alone and everything
    // after "--" are operands).
    [[nodiscard]] bool is_option() const { return is_option_; }
    // The option's name ("--batch" of "--batch=8", "-o" of "-ofile"), or the
    // operand.
    [[nodiscard]] std::string_view name() const { return name_; }

    // The option's value: the attached one, or else the next argument.
    // Throws missing_value().
    std::string_view value();
    // For an option that takes no value.  What follows a short one in its
    // argument is the next option ("-jb": "-b"); a long one throws
    // unwanted_value() if a value was attached.
    void flag();
    // Throws unknown_option() for an option, unexpected_argument() for an
    // operand.
    [[noreturn]] void reject() const;

  private:
    std::vector<std::string_view> args_;
    std::size_t next_ = 0;
    bool options_ended_ = false;
    bool is_option_ = false;
    std::string_view argument_;  // as given
    std::string_view name_;
    std::string_view attached_;
    bool has_attached_ = false;
    std::string_view bundled_;  // short options left in the argument after a flag
    std::string bundled_name_;  // "-b" of them, which the arguments do not hold
};

}  // namespace ozram::cli
