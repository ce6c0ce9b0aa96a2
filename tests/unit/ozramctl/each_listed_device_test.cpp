#include "each_listed_device.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "ozram/error.hpp"

namespace ozramctl {
namespace {

const std::vector<std::string> LISTED = {"ozram0", "ozram1", "ozram2"};

// ozram1 is hot-removed after the list: acting on it fails, and it is gone.
TEST(EachListedDevice, ADeviceRemovedSinceTheListIsSkipped) {
    const std::set<std::string> present = {"ozram0", "ozram2"};
    std::vector<std::string> done;
    for_each_listed_device(
        LISTED, [&](const std::string& name) { return present.count(name) != 0; },
        [&](const std::string& name) {
            if (present.count(name) == 0) {
                throw ozram::Error(ENOENT, "cannot open /sys/block/" + name + "/recompress");
            }
            done.push_back(name);
        });
    EXPECT_EQ(done, (std::vector<std::string>{"ozram0", "ozram2"}));
}

// A failure on a device that is still there ends the command with it, and
// the devices after it are not touched.
TEST(EachListedDevice, AFailureOnADeviceStillThereEndsIt) {
    std::vector<std::string> done;
    try {
        for_each_listed_device(
            LISTED, [](const std::string&) { return true; },
            [&](const std::string& name) {
                done.push_back(name);
                if (name == "ozram1") {
                    throw ozram::Error(EBUSY, name + ": busy");
                }
            });
        FAIL() << "the failure on ozram1 was swallowed";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), EBUSY);
    }
    EXPECT_EQ(done, (std::vector<std::string>{"ozram0", "ozram1"}));
}

// A device gone without a failure (its action had finished) is not asked
// about: only a failure makes the loop look.
TEST(EachListedDevice, OnlyAFailureAsksWhetherTheDeviceIsThere) {
    int asked = 0;
    std::vector<std::string> done;
    for_each_listed_device(
        LISTED,
        [&](const std::string&) {
            ++asked;
            return false;
        },
        [&](const std::string& name) { done.push_back(name); });
    EXPECT_EQ(done, LISTED);
    EXPECT_EQ(asked, 0);
}

}  // namespace
}  // namespace ozramctl
