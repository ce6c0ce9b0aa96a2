// The warning sink: a daemon's logger receives the library's warnings.
#include "ozram/diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ozram {
namespace {

std::vector<std::string> received;

void capture(std::string_view message) {
    received.emplace_back(message);
}

TEST(Diagnostics, InstalledSinkReceivesWarningsUntilReset) {
    received.clear();
    set_warning_sink(&capture);
    warn("GPU kernel launch failed: out of memory");
    set_warning_sink(nullptr);
    testing::internal::CaptureStderr();
    warn("to stderr again");
    const std::string printed = testing::internal::GetCapturedStderr();

    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0], "GPU kernel launch failed: out of memory");
    EXPECT_EQ(printed, "ozram: to stderr again\n");
}

}  // namespace
}  // namespace ozram
