#include "text_output.hpp"

#include <gtest/gtest.h>

#include "fake_record.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;
using testing::set;

TEST(TextOutput, ValuesByUnit) {
    const auto& fields = stat_fields();
    const auto& disksize = fields[*find_stat_field("disksize")];
    EXPECT_EQ(format_value(disksize, 64ull << 20, {}), "64M");
    EXPECT_EQ(format_value(disksize, 64ull << 20, {.bytes = true}), "67108864");
    EXPECT_EQ(format_value(disksize, std::nullopt, {}), "n/a");
    EXPECT_EQ(format_value(fields[*find_stat_field("initstate")], 0, {}), "no");
    EXPECT_EQ(format_value(fields[*find_stat_field("agent_state")], 0, {}), "detached");
    EXPECT_EQ(format_value(fields[*find_stat_field("same_pages")], 4096, {}), "4096");
}

TEST(TextOutput, TableColumnsAlign) {
    EXPECT_EQ(render_table({{"NAME", "SIZE"}, {"ozram10", "4G"}, {"ozram2", "512M"}}),
              "NAME     SIZE\n"
              "ozram10    4G\n"
              "ozram2   512M\n");
}

TEST(TextOutput, DeviceList) {
    StatsRecord other = fake_device_record();
    other.dev_id = 1;
    other.dev_name = "ozram1";
    set(other, "disksize", 0);
    set(other, "initstate", 0);
    EXPECT_EQ(text_devices({fake_device_record(), other}, {}),
              "NAME    DISKSIZE  INITIALIZED\n"
              "ozram0       64M          yes\n"
              "ozram1        0B           no\n");
}

TEST(TextOutput, StatsBlockNamesOverValues) {
    StatsRecord record = fake_device_record();
    set(record, "agent_pid", 123);
    const std::string text = text_stats(record, {});
    EXPECT_TRUE(
        text.starts_with("ozram0: disksize 64M, initialized\n"
                         "    mm_stat:  orig_data_size  compr_data_size"))
        << text;
    EXPECT_NE(text.find("                        2.6M             103B"), std::string::npos)
        << text;
    EXPECT_NE(text.find("    agent:  agent_state  agent_pid\n"), std::string::npos) << text;
    EXPECT_NE(text.find("attached        123\n"), std::string::npos) << text;
    EXPECT_NE(text.find("occupancy  stale  verify_failures  agent_errors  drained  deferred  "
                        "unsupported  admission_inline\n"),
              std::string::npos)
        << text;
}

TEST(TextOutput, BdStatOnlyWhereTheDeviceHasIt) {
    StatsRecord record = fake_device_record();
    EXPECT_EQ(text_stats(record, {}).find("bd_stat"), std::string::npos);
    record.backing = BackingStat{300, 12, 310};
    const std::string text = text_stats(record, {});
    EXPECT_TRUE(
        text.ends_with("    bd_stat:  bd_count  bd_reads  bd_writes\n"
                       "                   300        12        310\n"))
        << text;
}

TEST(TextOutput, AgentView) {
    StatsRecord record = fake_device_record();
    set(record, "agent_pid", 123);
    set(record, "verify_failures", 132);
    set(record, "occupancy", 130);
    const std::string text = text_agent(record, {});
    EXPECT_NE(text.find("agent:                attached\n"), std::string::npos) << text;
    EXPECT_NE(text.find("pid:                  123\n"), std::string::npos) << text;
    EXPECT_NE(text.find("verify failures:      132\n"), std::string::npos) << text;
    EXPECT_NE(text.find("ring occupancy:       130\n"), std::string::npos) << text;
}

// What an older module does not send is "n/a"; a detached agent has no pid.
TEST(TextOutput, AgentViewWithoutSomeCounters) {
    StatsRecord record = fake_device_record();
    record.values.at(*find_stat_field("verify_failures")).reset();
    set(record, "agent_pid", 0);
    const std::string text = text_agent(record, {});
    EXPECT_NE(text.find("pid:                  -\n"), std::string::npos) << text;
    EXPECT_NE(text.find("verify failures:      n/a\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace ozramctl
