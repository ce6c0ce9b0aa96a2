// --help and usage errors look the same in every program.
#include "cli/usage.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

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

// The exit status and stderr of a child that writes "text" to stdout, a
// full device, and ends with finish_stdout("prog", status).
std::pair<int, std::string> ended_on_a_full_device(int status) {
    char path[] = "/tmp/ozram-usage-XXXXXX";
    const int err = ::mkstemp(path);
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(err, STDERR_FILENO);
        if (std::freopen("/dev/full", "w", stdout) == nullptr) {
            ::_exit(126);
        }
        std::fputs("text\n", stdout);
        ::_exit(finish_stdout("prog", status));
    }
    int wait_status = 0;
    ::waitpid(child, &wait_status, 0);
    std::string message(256, '\0');
    message.resize(static_cast<std::size_t>(
        std::max<ssize_t>(::pread(err, message.data(), message.size(), 0), 0)));
    ::close(err);
    ::unlink(path);
    return {WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1, message};
}

TEST(Usage, AFailedWriteToStdoutFailsTheProgram) {
    const auto [status, message] = ended_on_a_full_device(0);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(message, "prog: write error: No space left on device\n");
    EXPECT_EQ(ended_on_a_full_device(3).first, 3) << "a failure keeps its own status";
}

TEST(Usage, AWrittenStdoutKeepsTheStatus) {
    EXPECT_EQ(finish_stdout("prog", 0), 0);
    EXPECT_EQ(finish_stdout("prog", 2), 2);
}

}  // namespace
}  // namespace ozram::cli
