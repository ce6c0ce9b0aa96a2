// --help and usage errors look the same in every program.
#include "cli/usage.hpp"

#include <gtest/gtest.h>

namespace ozram::cli {
namespace {

TEST(Usage, HelpGoesToStdoutAndSucceeds) {
    testing::internal::CaptureStdout();
    const int status = print_usage("Usage: prog [OPTION]...\n");
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "Usage: prog [OPTION]...\n");
    EXPECT_EQ(status, 0);
}

TEST(Usage, AnErrorNamesTheProgramAndPointsAtHelp) {
    testing::internal::CaptureStderr();
    const int status = usage_error("prog", "unknown option '--frob'");
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "prog: unknown option '--frob'\nTry 'prog --help' for more information.\n");
    EXPECT_EQ(status, EXIT_USAGE);
    EXPECT_EQ(EXIT_USAGE, 2);
}

}  // namespace
}  // namespace ozram::cli
