// The words ozramctl prints for an error: its own, with the errno's once
// where they say them.
#include "error_text.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <stdexcept>

#include "ozram/error.hpp"

namespace {

using ozramctl::error_text;

TEST(ErrorText, TheErrnosWordsAppearOnce) {
    EXPECT_EQ(error_text(ozram::Error(ENOENT, "cannot open /x: No such file or directory")),
              "cannot open /x: No such file or directory");
    EXPECT_EQ(error_text(ozram::Error(ENODEV, "no such device: ozram7")), "no such device: ozram7");
}

TEST(ErrorText, OtherErrorsAreTheirWhat) {
    EXPECT_EQ(error_text(std::runtime_error("netlink: bad reply")), "netlink: bad reply");
}

}  // namespace
