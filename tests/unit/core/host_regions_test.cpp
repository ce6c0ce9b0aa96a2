// The lookup that decides whether the device reads a page in place: a page
// is found only whole, inside one region, at an address the gather kernel's
// 16-byte loads accept.
#include "gpu/host_regions.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ozram/error.hpp"
#include "ozram/page.hpp"

namespace ozram::gpu {
namespace {

constexpr std::uint64_t DEVICE_BASE = 0x7f00'0000'0000;

int error_code(auto&& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.code().value();
    }
    return 0;
}

class HostRegionsTest : public ::testing::Test {
  protected:
    // Four pages, 4 KiB aligned like the staging area of a ring.
    alignas(PAGE_SIZE) std::uint8_t memory_[4 * PAGE_SIZE]{};
    HostRegions regions_;
};

TEST_F(HostRegionsTest, APageInsideARegionHasItsDeviceAddress) {
    regions_.add({memory_, sizeof(memory_), DEVICE_BASE});
    for (std::size_t page = 0; page < 4; ++page) {
        EXPECT_EQ(regions_.device_address(memory_ + page * PAGE_SIZE, PAGE_SIZE),
                  DEVICE_BASE + page * PAGE_SIZE);
    }
    EXPECT_EQ(regions_.device_address(memory_ + 16, PAGE_SIZE), DEVICE_BASE + 16);
}

TEST_F(HostRegionsTest, APageThatCrossesTheEndIsNotInPlace) {
    regions_.add({memory_, 2 * PAGE_SIZE, DEVICE_BASE});
    EXPECT_EQ(regions_.device_address(memory_ + PAGE_SIZE, PAGE_SIZE), DEVICE_BASE + PAGE_SIZE);
    EXPECT_FALSE(regions_.device_address(memory_ + PAGE_SIZE + 16, PAGE_SIZE));
    EXPECT_FALSE(regions_.device_address(memory_ + 2 * PAGE_SIZE, PAGE_SIZE));
    EXPECT_FALSE(regions_.device_address(memory_ + 2 * PAGE_SIZE, 1));
}

TEST_F(HostRegionsTest, APageBeforeTheStartIsNotInPlace) {
    regions_.add({memory_ + PAGE_SIZE, 2 * PAGE_SIZE, DEVICE_BASE});
    EXPECT_FALSE(regions_.device_address(memory_, PAGE_SIZE));
    EXPECT_FALSE(regions_.device_address(memory_ + PAGE_SIZE - 16, PAGE_SIZE));
}

TEST_F(HostRegionsTest, AMisalignedPageIsCopiedInstead) {
    regions_.add({memory_, sizeof(memory_), DEVICE_BASE});
    EXPECT_FALSE(regions_.device_address(memory_ + 1, PAGE_SIZE));
    EXPECT_FALSE(regions_.device_address(memory_ + 8, PAGE_SIZE));
    // The device address decides, not the host's: a region mapped at an
    // odd device offset moves every page off the 16-byte grid.
    HostRegions odd;
    odd.add({memory_, sizeof(memory_), DEVICE_BASE + 8});
    EXPECT_FALSE(odd.device_address(memory_, PAGE_SIZE));
}

TEST_F(HostRegionsTest, EachRegionTranslatesItsOwnPages) {
    regions_.add({memory_, PAGE_SIZE, DEVICE_BASE});
    regions_.add({memory_ + 2 * PAGE_SIZE, 2 * PAGE_SIZE, 0x1000'0000});
    EXPECT_EQ(regions_.device_address(memory_, PAGE_SIZE), DEVICE_BASE);
    EXPECT_FALSE(regions_.device_address(memory_ + PAGE_SIZE, PAGE_SIZE));
    EXPECT_EQ(regions_.device_address(memory_ + 3 * PAGE_SIZE, PAGE_SIZE), 0x1000'0000 + PAGE_SIZE);
}

TEST_F(HostRegionsTest, OverlapsAndEmptyRegionsAreRefused) {
    regions_.add({memory_ + PAGE_SIZE, 2 * PAGE_SIZE, DEVICE_BASE});
    EXPECT_EQ(error_code([&] { regions_.add({memory_, PAGE_SIZE + 1, 0}); }), EEXIST);
    EXPECT_EQ(error_code([&] { regions_.add({memory_ + 3 * PAGE_SIZE - 1, 2, 0}); }), EEXIST);
    EXPECT_EQ(error_code([&] { regions_.check_can_add(memory_ + 2 * PAGE_SIZE, 1); }), EEXIST);
    EXPECT_EQ(error_code([&] { regions_.add({memory_, 0, 0}); }), EINVAL);
    EXPECT_EQ(error_code([&] { regions_.add({nullptr, PAGE_SIZE, 0}); }), EINVAL);
    // Touching is not overlapping.
    EXPECT_EQ(error_code([&] { regions_.add({memory_, PAGE_SIZE, 0x2000'0000}); }), 0);
    EXPECT_EQ(error_code([&] {
                  regions_.add({memory_ + 3 * PAGE_SIZE, PAGE_SIZE, 0x3000'0000});
              }),
              0);
    EXPECT_EQ(regions_.regions().size(), 3u);
}

TEST_F(HostRegionsTest, ARemovedRegionIsNoLongerFound) {
    regions_.add({memory_, sizeof(memory_), DEVICE_BASE});
    EXPECT_FALSE(regions_.remove(memory_ + PAGE_SIZE));  // not a region's start
    EXPECT_TRUE(regions_.remove(memory_));
    EXPECT_TRUE(regions_.empty());
    EXPECT_FALSE(regions_.device_address(memory_, PAGE_SIZE));
    EXPECT_FALSE(regions_.remove(memory_));
    // Its memory may be registered again.
    regions_.add({memory_, PAGE_SIZE, DEVICE_BASE});
    EXPECT_EQ(regions_.device_address(memory_, PAGE_SIZE), DEVICE_BASE);
}

}  // namespace
}  // namespace ozram::gpu
