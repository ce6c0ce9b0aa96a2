// The argument walk: options and operands, attached and separate values, "--".
#include "cli/arguments.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/usage_error.hpp"

namespace ozram::cli {
namespace {

std::string message_of(void (*walk)(Arguments&), std::vector<std::string_view> args) {
    Arguments arguments(std::move(args));
    try {
        walk(arguments);
    } catch (const UsageError& error) {
        return error.what();
    }
    return "no error";
}

TEST(Arguments, OptionsValuesAndOperandsInAnyOrder) {
    struct Seen {
        bool option;
        std::string_view name;
        std::string_view value;  // empty: a flag or an operand
    };
    const Seen expected[] = {
        {false, "12", ""},   {true, "--batch", "8"}, {true, "--size", "64M"}, {true, "-w", "5"},
        {true, "-o", "out"}, {false, "-", ""},       {true, "--json", ""},
    };
    Arguments arguments(std::vector<std::string_view>{"12", "--batch", "8", "--size=64M", "-w5",
                                                      "-o", "out", "-", "--json"});
    for (const Seen& seen : expected) {
        SCOPED_TRACE(seen.name);
        ASSERT_TRUE(arguments.next());
        EXPECT_EQ(arguments.is_option(), seen.option);
        EXPECT_EQ(arguments.name(), seen.name);
        if (!seen.value.empty()) {
            EXPECT_EQ(arguments.value(), seen.value);
        } else if (seen.option) {
            EXPECT_NO_THROW(arguments.flag());
        }
    }
    EXPECT_FALSE(arguments.next());
}

TEST(Arguments, DoubleDashEndsTheOptions) {
    Arguments arguments(std::vector<std::string>{"--", "-j", "--x"});
    ASSERT_TRUE(arguments.next());
    EXPECT_FALSE(arguments.is_option());
    EXPECT_EQ(arguments.name(), "-j");
    ASSERT_TRUE(arguments.next());
    EXPECT_FALSE(arguments.is_option());
    EXPECT_FALSE(arguments.next());
}

// As getopt takes them: flags bundled in one argument, the last of which
// may take a value, attached or in the next argument.
TEST(Arguments, ShortFlagsBundle) {
    Arguments arguments(std::vector<std::string_view>{"-jb", "-jo", "out", "-jwfive"});
    std::vector<std::string> seen;
    while (arguments.next()) {
        const std::string name(arguments.name());
        if (name == "-o" || name == "-w") {
            seen.push_back(name + "=" + std::string(arguments.value()));
        } else {
            arguments.flag();
            seen.push_back(name);
        }
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"-j", "-b", "-j", "-o=out", "-j", "-w=five"}));

    const auto flags_then_reject_x = [](Arguments& a) {
        while (a.next()) {
            if (a.name() == "-x") {
                a.reject();
            }
            a.flag();
        }
    };
    EXPECT_EQ(message_of(flags_then_reject_x, {"-jxb"}), "unknown option '-x'");
}

TEST(Arguments, ErrorsAreWordedOneWay) {
    const auto value = [](Arguments& a) {
        while (a.next())
            (void)a.value();
    };
    const auto flag = [](Arguments& a) {
        while (a.next())
            a.flag();
    };
    const auto reject = [](Arguments& a) {
        while (a.next())
            a.reject();
    };
    EXPECT_EQ(message_of(value, {"--batch"}), "option '--batch' needs an argument");
    EXPECT_EQ(message_of(value, {"--batch="}), "option '--batch' needs an argument");
    EXPECT_EQ(message_of(flag, {"--json=yes"}), "option '--json' takes no argument");
    EXPECT_EQ(message_of(reject, {"-jb"}), "unknown option '-j'");
    EXPECT_EQ(message_of(reject, {"--frob=1"}), "unknown option '--frob=1'");
    EXPECT_EQ(message_of(reject, {"extra"}), "unexpected argument 'extra'");
}

}  // namespace
}  // namespace ozram::cli
