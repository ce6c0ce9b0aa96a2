// The host emulation of the warp behaves like the CUDA intrinsics it stands for.
#include "kernels/warp.cuh"

#include <gtest/gtest.h>

namespace ozram::kernels {
namespace {

TEST(EmulatedWarp, BallotSetsOneBitPerTrueLane) {
    const Warp warp;
    EXPECT_EQ(warp.ballot([](Lane l) { return l.id % 2 == 1; }), 0xaaaaaaaau);
    EXPECT_EQ(warp.ballot([](Lane) { return false; }), 0u);
    EXPECT_EQ(warp.ballot([](Lane l) { return l.id == 31; }), 0x80000000u);
}

TEST(EmulatedWarp, MatchAnyGroupsEqualValues) {
    const Warp warp;
    Lanes<std::uint32_t> values;
    warp.each([&](Lane l) { values[l] = l.id % 3; });
    const Lanes<LaneMask> groups = warp.match_any(values);
    EXPECT_EQ(groups[Lane{0}], 0x49249249u);
    EXPECT_EQ(groups[Lane{4}], 0x92492492u);
    EXPECT_EQ(groups[Lane{5}], 0x24924924u);
}

TEST(EmulatedWarp, BroadcastAndLaneMasks) {
    const Warp warp;
    Lanes<std::uint32_t> values;
    warp.each([&](Lane l) { values[l] = 100 + l.id; });
    EXPECT_EQ(warp.broadcast(values, 17), 117u);
    EXPECT_EQ(lowest_lane(0x00f0u), 4u);
    EXPECT_EQ(highest_lane(0x00f0u), 7u);
    EXPECT_EQ(lanes_below(0), 0u);
    EXPECT_EQ(lanes_below(31), 0x7fffffffu);
    EXPECT_EQ(lanes_between(0, 5), 0x1fu);
    EXPECT_EQ(lanes_between(0, 32), 0xffffffffu);
    EXPECT_EQ(lanes_between(0, 4000), 0xffffffffu);
    EXPECT_EQ(lanes_between(4, 8), 0xf0u);
    EXPECT_EQ(lanes_between(30, 200), 0xc0000000u);
    EXPECT_EQ(lanes_between(32, 200), 0u);
    EXPECT_EQ(lanes_between(0, 0), 0u);
    int calls = 0;
    warp.single([&] { ++calls; });
    EXPECT_EQ(calls, 1);
}

TEST(EmulatedWarp, InclusiveSumAddsEveryLaneUpToItsOwn) {
    for (const LaneOrder order : {LaneOrder::Ascending, LaneOrder::Descending}) {
        const Warp warp(order);
        Lanes<std::uint32_t> values;
        warp.each([&](Lane l) { values[l] = l.id * l.id + 1; });
        const Lanes<std::uint32_t> sums = warp.inclusive_sum(values);
        std::uint32_t expected = 0;
        for (unsigned i = 0; i < WARP_SIZE; ++i) {
            expected += i * i + 1;
            EXPECT_EQ(sums[Lane{i}], expected) << "lane " << i;
        }
    }
}

// On the device lanes_between is one bmsk.clamp.b32 of first and end -
// first: the host's masks must be what the PTX ISA defines that instruction
// to give, for every first <= end the kernels pass (end up to a page).
LaneMask ptx_bmsk_clamp(std::uint32_t a, std::uint32_t b) {
    const std::uint32_t a1 = a & 0x1f;
    const std::uint32_t b1 = b & 0x1f;
    const std::uint32_t sum = a1 + b1;
    const LaneMask mask0 = a >= 32 ? 0 : ~LaneMask{0} << a1;
    LaneMask mask1 = sum >= 32 ? 0 : ~LaneMask{0} << sum;
    if (sum >= 32 || a >= 32 || b >= 32)
        mask1 = 0;
    else if (b1 == 0)
        mask1 = ~LaneMask{0};
    return mask0 & ~mask1;
}

TEST(EmulatedWarp, LanesBetweenIsTheDevicesBitMask) {
    for (unsigned first = 0; first <= 40; ++first) {
        for (unsigned end = first; end <= 4096; end += end < 80 ? 1 : 97)
            ASSERT_EQ(lanes_between(first, end), ptx_bmsk_clamp(first, end - first))
                << first << ".." << end;
    }
}

}  // namespace
}  // namespace ozram::kernels
