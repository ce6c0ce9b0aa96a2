#include "prometheus_output.hpp"

#include <gtest/gtest.h>

#include <set>

#include "fake_record.hpp"
#include "promtool_check.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;
using testing::set_stat;

StatsRecord second_device() {
    StatsRecord record = fake_device_record();
    record.dev_id = 1;
    record.dev_name = "ozram1";
    set_stat(record, OZRAM_STAT_ATTR_FAILED_READS, 4242);
    return record;
}

// The metric of a device's number (OZRAM_STAT_ATTR_*) or the ring's.
std::string stat_metric(int stat_attr) {
    return prometheus_name(stat_fields()[*find_stat_field(Source::nested_stats, stat_attr)]);
}
std::string ring_metric(int ring_attr) {
    return prometheus_name(stat_fields()[*find_stat_field(Source::nested_ring, ring_attr)]);
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> found;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        if (line.starts_with(prefix)) {
            found.push_back(line);
        }
        at = end == std::string::npos ? text.size() : end + 1;
    }
    return found;
}

// A number of a device or of the ring is exported under its one name, which
// follows Prometheus's rules: "_total" ends a counter and nothing else, and a
// size says "_bytes".
TEST(PrometheusOutput, NamesFollowTheConventions) {
    for (const StatField& field : stat_fields()) {
        if (field.source == Source::top) {
            continue;
        }
        EXPECT_EQ(prometheus_name(field), "ozram_" + std::string(field.key));
        EXPECT_EQ(field.key.ends_with("_total"), field.metric.kind == Kind::counter) << field.key;
        EXPECT_EQ(field.key.find("_bytes") != std::string_view::npos, field.unit == Unit::bytes)
            << field.key;
    }
    EXPECT_EQ(prometheus_name(stat_fields()[*find_stat_field("disksize")]), "ozram_disksize_bytes");
}

TEST(PrometheusOutput, EveryFieldIsExportedOrSaysWhyNot) {
    // Every number has a metric and its help; only the pid has none.
    for (const StatField& field : stat_fields()) {
        EXPECT_EQ(prometheus_name(field).empty(), field.key == "agent_pid") << field.key;
        if (!prometheus_name(field).empty()) {
            EXPECT_FALSE(field.metric.help.empty()) << field.key;
        }
    }
}

TEST(PrometheusOutput, DeviceLabelOnDeviceMetricsRingOnce) {
    const StatsRecord total = fake_device_record();
    const std::string text = prometheus_stats({fake_device_record(), second_device()}, total);
    const std::string failed_reads = stat_metric(OZRAM_STAT_ATTR_FAILED_READS);
    EXPECT_EQ(
        lines_starting(text, failed_reads + "{"),
        (std::vector<std::string>{failed_reads + "{device=\"ozram0\"} " +
                                      std::to_string(*total.stat(OZRAM_STAT_ATTR_FAILED_READS)),
                                  failed_reads + "{device=\"ozram1\"} 4242"}));
    EXPECT_EQ(lines_starting(text, "ozram_disksize_bytes{"),
              (std::vector<std::string>{"ozram_disksize_bytes{device=\"ozram0\"} 67108864",
                                        "ozram_disksize_bytes{device=\"ozram1\"} 67108864"}));
    const std::string submitted = ring_metric(OZRAM_RING_ATTR_SUBMITTED);
    EXPECT_EQ(lines_starting(text, submitted),
              (std::vector<std::string>{
                  submitted + " " + std::to_string(*total.ring_stat(OZRAM_RING_ATTR_SUBMITTED))}));
    EXPECT_EQ(lines_starting(text, "ozram_agent_attached"),
              (std::vector<std::string>{"ozram_agent_attached 1"}));
    const std::string kernel = stat_metric(OZRAM_STAT_ATTR_KERNEL_PAGES);
    EXPECT_EQ(lines_starting(text, "# TYPE " + kernel + " "),
              (std::vector<std::string>{"# TYPE " + kernel + " gauge"}));
}

TEST(PrometheusOutput, AbsentValuesAreLeftOut) {
    StatsRecord record = fake_device_record();
    record.values[*find_stat_field(Source::nested_stats, OZRAM_STAT_ATTR_FAILED_READS)].reset();
    const std::string text = prometheus_stats({record}, record);
    EXPECT_EQ(text.find(stat_metric(OZRAM_STAT_ATTR_FAILED_READS)), std::string::npos) << text;
    EXPECT_NE(text.find(stat_metric(OZRAM_STAT_ATTR_FAILED_WRITES) + "{device=\"ozram0\"}"),
              std::string::npos);
}

TEST(PrometheusOutput, LatencyHistogramsInSeconds) {
    const StatsRecord device = fake_device_record();
    const std::string text = prometheus_stats({device}, device);
    const auto& write = *device.latency[0];
    // Bucket 0 ([0, 2) ns) has "le" 1 ns, its largest value, and bucket 1
    // ([2, 4) ns) 3 ns; the open last bucket is +Inf.
    EXPECT_EQ(
        lines_starting(text,
                       "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\","
                       "le=\"1e-09\"}"),
        (std::vector<std::string>{
            "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\",le=\"1e-09\"} 0"}));
    EXPECT_EQ(
        lines_starting(text,
                       "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"read\","
                       "le=\"3e-09\"}"),
        (std::vector<std::string>{"ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"read\","
                                  "le=\"3e-09\"} 21"}));
    // Bucket 10 holds [1024, 2048) ns: an interval of 2048 ns, exactly
    // 2.048e-06 s, is not in it, and the bucket says so.
    EXPECT_EQ(lines_starting(text,
                             "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"read\","
                             "le=\"2.047e-06\"}")
                  .size(),
              1U)
        << text;
    EXPECT_EQ(text.find("le=\"2.048e-06\""), std::string::npos) << text;
    EXPECT_EQ(
        lines_starting(text, "ozram_io_latency_seconds_count{device=\"ozram0\",op=\"write\"}"),
        (std::vector<std::string>{
            "ozram_io_latency_seconds_count{device=\"ozram0\",op=\"write\"} " +
            std::to_string(write.count)}));
    EXPECT_EQ(
        lines_starting(text,
                       "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\","
                       "le=\"+Inf\"}"),
        (std::vector<std::string>{"ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\","
                                  "le=\"+Inf\"} " +
                                  std::to_string(write.count)}));
    EXPECT_EQ(lines_starting(text, "ozram_ring_round_trip_seconds_bucket{").size(), 32U);
}

TEST(PrometheusOutput, PromtoolAcceptsIt) {
    const StatsRecord total = fake_device_record();
    for (const auto& devices : {std::vector<StatsRecord>{},
                                std::vector<StatsRecord>{fake_device_record(), second_device()}}) {
        const auto checked = ozram::testing::promtool_check(prometheus_stats(devices, total));
        EXPECT_EQ(checked.status, 0) << checked.output;
        EXPECT_EQ(checked.output, "");
    }
}

}  // namespace
}  // namespace ozramctl
