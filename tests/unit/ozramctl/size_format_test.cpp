#include "size_format.hpp"

#include <gtest/gtest.h>

namespace ozramctl {
namespace {

TEST(HumanSize, BytesBelowOneKibibyte) {
    EXPECT_EQ(human_size(0), "0B");
    EXPECT_EQ(human_size(1), "1B");
    EXPECT_EQ(human_size(1023), "1023B");
}

TEST(HumanSize, WholeUnitsHaveNoDecimal) {
    EXPECT_EQ(human_size(1024), "1K");
    EXPECT_EQ(human_size(64ull << 20), "64M");
    EXPECT_EQ(human_size(4ull << 30), "4G");
    EXPECT_EQ(human_size(3ull << 40), "3T");
}

TEST(HumanSize, OneDecimalRoundedHalfUp) {
    EXPECT_EQ(human_size(1536), "1.5K");
    EXPECT_EQ(human_size(2736128), "2.6M");               // 2.609375 MiB
    EXPECT_EQ(human_size((1ull << 20) + 52429), "1.1M");  // 1.0500002 rounds up
    EXPECT_EQ(human_size((1ull << 20) - 1), "1024K");     // rounds within its unit
}

TEST(HumanSize, RoundingUpToTheNextWholeNumber) {
    EXPECT_EQ(human_size(2047), "2K");  // 1.999 K
    EXPECT_EQ(human_size(UINT64_MAX), "16E");
}

TEST(ParseSize, PlainBytesAndBinaryUnits) {
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("64M"), 64ull << 20);
    EXPECT_EQ(parse_size("4G"), 4ull << 30);
    EXPECT_EQ(parse_size("4g"), 4ull << 30);
    EXPECT_EQ(parse_size("512KiB"), 512ull << 10);
    EXPECT_EQ(parse_size("2TB"), 2ull << 40);
    EXPECT_EQ(parse_size("100B"), 100u);
}

TEST(ParseSize, Fractions) {
    EXPECT_EQ(parse_size("1.5G"), 3ull << 29);
    EXPECT_EQ(parse_size("0.5K"), 512u);
}

TEST(ParseSize, RefusesGarbageAndOverflow) {
    EXPECT_FALSE(parse_size(""));
    EXPECT_FALSE(parse_size("G"));
    EXPECT_FALSE(parse_size("-1M"));
    EXPECT_FALSE(parse_size("4X"));
    EXPECT_FALSE(parse_size("4 G"));
    EXPECT_FALSE(parse_size("4GG"));
    EXPECT_FALSE(parse_size("1.5"));  // half a byte
    EXPECT_FALSE(parse_size("1."));
    EXPECT_FALSE(parse_size("16E"));  // 2^64
    EXPECT_FALSE(parse_size("99999999999999999999"));
}

}  // namespace
}  // namespace ozramctl
