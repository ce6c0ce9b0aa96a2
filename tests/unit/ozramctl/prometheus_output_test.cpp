#include "prometheus_output.hpp"

#include <gtest/gtest.h>

#include <set>

#include "fake_record.hpp"
#include "promtool_check.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;
using testing::set;

StatsRecord second_device() {
    StatsRecord record = fake_device_record();
    record.dev_id = 1;
    record.dev_name = "ozram1";
    set(record, "failed_reads", 4242);
    return record;
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

TEST(PrometheusOutput, NamesFollowTheConventions) {
    const auto fields = stat_fields();
    auto name = [&](std::string_view key) {
        return prometheus_name(fields[*find_stat_field(key)]);
    };
    EXPECT_EQ(name("mem_used_total"), "ozram_mem_used_bytes");
    EXPECT_EQ(name("failed_reads"), "ozram_failed_reads_total");
    EXPECT_EQ(name("recompress_saved"), "ozram_recompress_saved_bytes_total");
    EXPECT_EQ(name("occupancy"), "ozram_ring_occupancy");
    EXPECT_EQ(name("submitted"), "ozram_ring_submitted_total");
    EXPECT_EQ(name("pages_same_filled"), "");  // same_pages exports it
}

TEST(PrometheusOutput, EveryFieldIsExportedOrSaysWhyNot) {
    // A new row must choose a metric; only duplicates and the pid may not.
    const std::set<std::string_view> not_exported = {"pages_same_filled", "pages_huge",
                                                     "agent_pid"};
    for (const StatField& field : stat_fields()) {
        EXPECT_EQ(prometheus_name(field).empty(), not_exported.contains(field.key)) << field.key;
        if (!prometheus_name(field).empty()) {
            EXPECT_FALSE(field.metric.help.empty()) << field.key;
        }
    }
}

TEST(PrometheusOutput, DeviceLabelOnDeviceMetricsRingOnce) {
    const StatsRecord total = fake_device_record();
    const std::string text = prometheus_stats({fake_device_record(), second_device()}, total);
    EXPECT_EQ(lines_starting(text, "ozram_failed_reads_total{"),
              (std::vector<std::string>{"ozram_failed_reads_total{device=\"ozram0\"} " +
                                            std::to_string(*total.value("failed_reads")),
                                        "ozram_failed_reads_total{device=\"ozram1\"} 4242"}));
    EXPECT_EQ(lines_starting(text, "ozram_disksize_bytes{"),
              (std::vector<std::string>{"ozram_disksize_bytes{device=\"ozram0\"} 67108864",
                                        "ozram_disksize_bytes{device=\"ozram1\"} 67108864"}));
    EXPECT_EQ(lines_starting(text, "ozram_ring_submitted_total"),
              (std::vector<std::string>{"ozram_ring_submitted_total " +
                                        std::to_string(*total.value("submitted"))}));
    EXPECT_EQ(lines_starting(text, "ozram_agent_attached"),
              (std::vector<std::string>{"ozram_agent_attached 1"}));
    EXPECT_EQ(
        lines_starting(text, "ozram_stored_pages{device=\"ozram1\""),
        (std::vector<std::string>{"ozram_stored_pages{device=\"ozram1\",backend=\"kernel\"} " +
                                      std::to_string(*total.value("pages_kernel_lz4")),
                                  "ozram_stored_pages{device=\"ozram1\",backend=\"agent_cpu\"} " +
                                      std::to_string(*total.value("pages_agent_cpu")),
                                  "ozram_stored_pages{device=\"ozram1\",backend=\"agent_gpu\"} " +
                                      std::to_string(*total.value("pages_agent_gpu"))}));
    EXPECT_EQ(lines_starting(text, "# TYPE ozram_stored_pages "),
              (std::vector<std::string>{"# TYPE ozram_stored_pages gauge"}));
}

TEST(PrometheusOutput, AbsentValuesAreLeftOut) {
    StatsRecord record = fake_device_record();
    set(record, "failed_reads", 1);
    record.values[*find_stat_field("failed_reads")].reset();
    const std::string text = prometheus_stats({record}, record);
    EXPECT_EQ(text.find("ozram_failed_reads_total"), std::string::npos) << text;
    EXPECT_NE(text.find("ozram_failed_writes_total{device=\"ozram0\"}"), std::string::npos);
}

TEST(PrometheusOutput, LatencyHistogramsInSeconds) {
    const StatsRecord device = fake_device_record();
    const std::string text = prometheus_stats({device}, device);
    const auto& write = *device.latency[0];
    // Bucket 0 ([0, 2) ns) has "le" 2 ns; the open last bucket is +Inf.
    EXPECT_EQ(
        lines_starting(text,
                       "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\","
                       "le=\"2e-09\"}"),
        (std::vector<std::string>{
            "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"write\",le=\"2e-09\"} 0"}));
    EXPECT_EQ(
        lines_starting(text,
                       "ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"read\","
                       "le=\"4e-09\"}"),
        (std::vector<std::string>{"ozram_io_latency_seconds_bucket{device=\"ozram0\",op=\"read\","
                                  "le=\"4e-09\"} 21"}));
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

StatsRecord backed_device() {
    StatsRecord record = second_device();
    record.backing = BackingStat{300, 12, 310};
    return record;
}

TEST(PrometheusOutput, BdStatForTheDevicesThatHaveIt) {
    const StatsRecord total = fake_device_record();
    EXPECT_EQ(prometheus_stats({fake_device_record()}, total).find("ozram_backing"),
              std::string::npos);
    const std::string text = prometheus_stats({fake_device_record(), backed_device()}, total);
    EXPECT_EQ(lines_starting(text, "ozram_backing"),
              (std::vector<std::string>{"ozram_backing_pages{device=\"ozram1\"} 300",
                                        "ozram_backing_reads_total{device=\"ozram1\"} 12",
                                        "ozram_backing_writes_total{device=\"ozram1\"} 310"}));
    EXPECT_EQ(lines_starting(text, "# TYPE ozram_backing"),
              (std::vector<std::string>{"# TYPE ozram_backing_pages gauge",
                                        "# TYPE ozram_backing_reads_total counter",
                                        "# TYPE ozram_backing_writes_total counter"}));
    EXPECT_EQ(lines_starting(text, "# HELP ozram_backing").size(), 3U);
}

TEST(PrometheusOutput, PromtoolAcceptsIt) {
    const StatsRecord total = fake_device_record();
    for (const auto& devices : {std::vector<StatsRecord>{},
                                std::vector<StatsRecord>{fake_device_record(), second_device()},
                                std::vector<StatsRecord>{fake_device_record(), backed_device()}}) {
        const auto checked = ozram::testing::promtool_check(prometheus_stats(devices, total));
        EXPECT_EQ(checked.status, 0) << checked.output;
        EXPECT_EQ(checked.output, "");
    }
}

}  // namespace
}  // namespace ozramctl
