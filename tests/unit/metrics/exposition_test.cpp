#include "metrics/exposition.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <stdexcept>

#include "promtool_check.hpp"

namespace ozram::metrics {
namespace {

TEST(Exposition, FamilyHasHelpTypeAndSamples) {
    Exposition out;
    out.family("ozram_reads_total", Type::counter, "Reads.");
    out.count({{"device", "ozram0"}}, 7);
    out.count({{"device", "ozram1"}}, 0);
    out.family("ozram_ratio", Type::gauge, "A ratio.");
    out.value({}, 2.5);
    EXPECT_EQ(out.text(),
              "# HELP ozram_reads_total Reads.\n"
              "# TYPE ozram_reads_total counter\n"
              "ozram_reads_total{device=\"ozram0\"} 7\n"
              "ozram_reads_total{device=\"ozram1\"} 0\n"
              "# HELP ozram_ratio A ratio.\n"
              "# TYPE ozram_ratio gauge\n"
              "ozram_ratio 2.5\n");
}

TEST(Exposition, EscapesHelpAndLabelValues) {
    Exposition out;
    out.family("x", Type::gauge, "back\\slash\nnew \"line\"");
    out.count({{"path", "a\\b\"c\nd"}}, 1);
    EXPECT_EQ(out.text(),
              "# HELP x back\\\\slash\\nnew \"line\"\n"
              "# TYPE x gauge\n"
              "x{path=\"a\\\\b\\\"c\\nd\"} 1\n");
    const auto checked = testing::promtool_check(out.text());
    EXPECT_EQ(checked.status, 0) << checked.output;
}

TEST(Exposition, HistogramBucketsSumAndCount) {
    Exposition out;
    out.family("ozram_batch_pages", Type::histogram, "Pages per batch.");
    const std::array<Bucket, 2> buckets = {Bucket{1, 2}, Bucket{4, 5}};
    out.histogram({{"backend", "cpu"}}, buckets, 13, 6);
    EXPECT_EQ(out.text(),
              "# HELP ozram_batch_pages Pages per batch.\n"
              "# TYPE ozram_batch_pages histogram\n"
              "ozram_batch_pages_bucket{backend=\"cpu\",le=\"1\"} 2\n"
              "ozram_batch_pages_bucket{backend=\"cpu\",le=\"4\"} 5\n"
              "ozram_batch_pages_bucket{backend=\"cpu\",le=\"+Inf\"} 6\n"
              "ozram_batch_pages_sum{backend=\"cpu\"} 13\n"
              "ozram_batch_pages_count{backend=\"cpu\"} 6\n");
    const auto checked = testing::promtool_check(out.text());
    EXPECT_EQ(checked.status, 0) << checked.output;
    EXPECT_EQ(checked.output, "");
}

TEST(Exposition, NumbersReadBackExactly) {
    EXPECT_EQ(format_number(0.000125), "0.000125");
    EXPECT_EQ(format_number(1e21), "1e+21");
    EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-Inf");
    EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(Exposition, RefusesWhatTheFormatForbids) {
    Exposition out;
    EXPECT_THROW(out.count({}, 1), std::logic_error);  // no family yet
    EXPECT_THROW(out.family("9lives", Type::gauge, ""), std::invalid_argument);
    EXPECT_THROW(out.family("a-b", Type::gauge, ""), std::invalid_argument);
    out.family("a", Type::gauge, "");
    EXPECT_THROW(out.family("a", Type::gauge, ""), std::invalid_argument);
    EXPECT_THROW(out.count({{"__reserved", "x"}}, 1), std::invalid_argument);
    EXPECT_THROW(out.count({{"a:b", "x"}}, 1), std::invalid_argument);
    EXPECT_THROW(out.histogram({}, {}, 0, 0), std::logic_error);
}

TEST(Exposition, PromtoolCatchesAMistake) {
    // The check itself must be able to fail: a counter without "_total".
    const auto checked = testing::promtool_check(
        "# HELP ozram_reads Reads.\n# TYPE ozram_reads counter\n"
        "ozram_reads 1\n");
    EXPECT_NE(checked.status, 0);
    EXPECT_NE(checked.output.find("_total"), std::string::npos) << checked.output;
}

}  // namespace
}  // namespace ozram::metrics
