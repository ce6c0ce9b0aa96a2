// Integer options: the whole text, the range, and the one wording of errors.
#include "cli/integer_option.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ozram::cli {
namespace {

template <class Number>
std::string error_of(std::string_view text, Number low, Number high) {
    try {
        (void)parse_integer_option("--n", text, low, high);
    } catch (const UsageError& error) {
        return error.what();
    }
    return "no error";
}

TEST(IntegerOption, TakesTheWholeTextInRange) {
    EXPECT_EQ(parse_integer_option("--n", "42", 1U, 100U), 42U);
    EXPECT_EQ(parse_integer_option("--n", "-1", -1, 32767), -1);
    EXPECT_EQ(parse_integer_option("--n", "18446744073709551615", std::uint64_t{1}), UINT64_MAX);
    EXPECT_EQ(parse_integer<std::uint32_t>("7"), 7U);
    for (const char* bad : {"", "12abc", "1.5", " 3", "+3", "4294967296"})
        EXPECT_FALSE(parse_integer<std::uint32_t>(bad)) << bad;
    EXPECT_FALSE(parse_integer<unsigned>("-1"));
}

TEST(IntegerOption, ErrorsNameTheOptionTheRangeAndTheText) {
    EXPECT_EQ(error_of("0", 1U, 100U), "--n: expected an integer in 1..100, got '0'");
    EXPECT_EQ(error_of("101", 1U, 100U), "--n: expected an integer in 1..100, got '101'");
    EXPECT_EQ(error_of("x", -1, 32767), "--n: expected an integer in -1..32767, got 'x'");
    EXPECT_EQ(error_of("0", std::uint64_t{1}, UINT64_MAX),
              "--n: expected an integer >= 1, got '0'");
}

}  // namespace
}  // namespace ozram::cli
