#include "pagedump_options.hpp"

#include <gtest/gtest.h>

#include "cli/usage_error.hpp"

namespace ozram::pagedump {
namespace {

TEST(PagedumpOptions, ParsesEverything) {
    const auto o =
        parse_options({"12", "-o", "out.bin", "34", "--max-pages", "100", "--include-zero"});
    EXPECT_EQ(o.pids, (std::vector<pid_t>{12, 34}));
    EXPECT_EQ(o.output, "out.bin");
    EXPECT_EQ(o.max_pages, 100U);
    EXPECT_TRUE(o.include_zero);
    EXPECT_FALSE(o.help);
}

TEST(PagedumpOptions, AProcessNamedTwiceIsDumpedOnce) {
    EXPECT_EQ(parse_options({"12", "34", "12", "-o", "x"}).pids, (std::vector<pid_t>{12, 34}));
}

TEST(PagedumpOptions, HelpNeedsNothingElse) {
    EXPECT_TRUE(parse_options({"--help"}).help);
}

TEST(PagedumpOptions, BadCommandLinesAreUsageErrors) {
    EXPECT_THROW((void)parse_options({}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"12"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"-o", "x"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"12", "-o"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"12x", "-o", "x"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"0", "-o", "x"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"-5", "-o", "x"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"12", "-o", "x", "--max-pages", "0"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"12", "-o", "x", "--bogus"}), cli::UsageError);
}

}  // namespace
}  // namespace ozram::pagedump
