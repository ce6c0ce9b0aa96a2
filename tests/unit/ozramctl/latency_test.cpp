#include "latency.hpp"

#include <gtest/gtest.h>

namespace ozramctl {
namespace {

// 100 intervals: 90 in [1024, 2048) ns, 9 in [8192, 16384), 1 in the open
// last bucket.
LatencyHistogram skewed() {
    LatencyHistogram hist;
    hist.buckets.assign(32, 0);
    hist.buckets[10] = 90;
    hist.buckets[13] = 9;
    hist.buckets.back() = 1;
    hist.count = 100;
    hist.sum_ns = 90 * 1500 + 9 * 10000 + 3'000'000'000ULL;
    return hist;
}

TEST(Latency, BucketBoundsArePowersOfTwo) {
    EXPECT_EQ(LatencyHistogram::lower_ns(0), 0);
    EXPECT_EQ(LatencyHistogram::upper_ns(0), 2);
    EXPECT_EQ(LatencyHistogram::lower_ns(10), 1024);
    EXPECT_EQ(LatencyHistogram::upper_ns(10), 2048);
}

TEST(Latency, QuantilesInterpolateWithinTheirBucket) {
    const LatencyHistogram hist = skewed();
    // Rank 50 of 90 in [1024, 2048): 1024 + 1024 * 50/90.
    EXPECT_NEAR(*hist.quantile_ns(0.5), 1024 + 1024 * 50.0 / 90, 1e-6);
    // Rank 99: the last of the 9 in [8192, 16384).
    EXPECT_NEAR(*hist.quantile_ns(0.99), 16384, 1e-6);
    // Rank 99.9 falls in the open last bucket: its lower bound.
    EXPECT_EQ(*hist.quantile_ns(0.999), LatencyHistogram::lower_ns(32 - 1));
    const LatencyHistogram empty{0, 0, std::vector<std::uint64_t>(32)};
    EXPECT_FALSE(empty.quantile_ns(0.5));
}

TEST(Latency, Durations) {
    EXPECT_EQ(human_duration(850), "850ns");
    EXPECT_EQ(human_duration(3210), "3.21us");
    EXPECT_EQ(human_duration(12'345'678), "12.3ms");
    EXPECT_EQ(human_duration(1.5e9), "1.50s");
    EXPECT_EQ(human_duration(250'000), "250us");
}

TEST(Latency, TextTableAndHistogram) {
    LatencyRecord record;
    record[static_cast<std::size_t>(LatencyOp::write)] = skewed();
    record[static_cast<std::size_t>(LatencyOp::read)] =
        LatencyHistogram{0, 0, std::vector<std::uint64_t>(32)};
    const std::string text = text_latency("ozram0", record);
    EXPECT_TRUE(
        text.starts_with("ozram0  COUNT    MEAN     p50     p99  p99.9\n"
                         "write     100  30.0ms  1.59us  16.4us  2.15s\n"
                         "read        0       -       -       -      -\n"
                         "ring      n/a     n/a     n/a     n/a    n/a\n"))
        << text;
    EXPECT_NE(text.find("  write:              COUNT\n"
                        "    1.02us .. 2.05us     90  " +
                        std::string(40, '#') + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("    2.15s .. inf          1\n"), std::string::npos) << text;
}

TEST(Latency, Json) {
    LatencyRecord record;
    record[static_cast<std::size_t>(LatencyOp::ring)] = skewed();
    const std::string json = json_latency_members(record);
    EXPECT_TRUE(
        json.starts_with("\"write\":null,\"read\":null,\"ring\":{\"count\":100,"
                         "\"sum_ns\":3000225000,\"p50_ns\":1593,\"p99_ns\":16384,"
                         "\"p999_ns\":2147483648,\"buckets\":[0,"))
        << json;
}

}  // namespace
}  // namespace ozramctl
