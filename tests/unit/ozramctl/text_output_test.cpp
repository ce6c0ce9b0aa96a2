#include "text_output.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_record.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;
using testing::set;
using testing::set_ring;

// The name of a device's number (OZRAM_STAT_ATTR_*) or the ring's.
std::string stat_name(int stat_attr) {
    return std::string(stat_fields()[*find_stat_field(Source::nested_stats, stat_attr)].key);
}
std::string ring_name(int ring_attr) {
    return std::string(stat_fields()[*find_stat_field(Source::nested_ring, ring_attr)].key);
}

TEST(TextOutput, ValuesByUnit) {
    const auto& fields = stat_fields();
    const auto& disksize = fields[*find_stat_field("disksize")];
    EXPECT_EQ(format_value(disksize, 64ull << 20, {}), "64M");
    EXPECT_EQ(format_value(disksize, 64ull << 20, {.bytes = true}), "67108864");
    EXPECT_EQ(format_value(disksize, std::nullopt, {}), "n/a");
    EXPECT_EQ(format_value(fields[*find_stat_field("initstate")], 0, {}), "no");
    EXPECT_EQ(format_value(fields[*find_stat_field("agent_state")], 0, {}), "detached");
    const auto& same = fields[*find_stat_field(Source::nested_stats, OZRAM_STAT_ATTR_SAME_PAGES)];
    EXPECT_EQ(format_value(same, 4096, {}), "4096");
    // A number whose name carries _bytes is a size.
    const auto& compr = fields[*find_stat_field(Source::nested_stats, OZRAM_STAT_ATTR_COMPR_DATA)];
    EXPECT_EQ(format_value(compr, 4096, {}), "4K");
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
    EXPECT_TRUE(text.starts_with(
        "ozram0: disksize 64M, initialized\n"
        "    mm_stat:  " +
        stat_name(OZRAM_STAT_ATTR_ORIG_DATA) + "  " + stat_name(OZRAM_STAT_ATTR_COMPR_DATA)))
        << text;
    EXPECT_NE(text.find("    agent:  agent_state  agent_pid\n"), std::string::npos) << text;
    EXPECT_NE(text.find("attached        123\n"), std::string::npos) << text;
    // Each section of the lists has its block, zram's bd_stat among them.
    for (Section section : {Section::mm_stat, Section::io_stat, Section::debug_stat,
                            Section::bd_stat, Section::backend_stat, Section::ring}) {
        EXPECT_NE(text.find("    " + std::string(section_name(section)) + ":  "), std::string::npos)
            << text;
    }
}

// The agent's state, then every number of backend_stat and of the ring,
// "name: value".
TEST(TextOutput, AgentView) {
    StatsRecord record = fake_device_record();
    set(record, "agent_pid", 123);
    set_ring(record, OZRAM_RING_ATTR_VERIFY_FAILURES, 132);
    const std::string text = text_agent(record, {});
    EXPECT_TRUE(text.starts_with("agent_state:")) << text;
    EXPECT_NE(text.find("agent_pid:"), std::string::npos) << text;
    EXPECT_NE(text.find(" 123\n"), std::string::npos) << text;
    EXPECT_NE(text.find(ring_name(OZRAM_RING_ATTR_VERIFY_FAILURES) + ": "), std::string::npos)
        << text;
    std::size_t lines = 0;
    for (const StatField& field : stat_fields()) {
        if (field.section == Section::agent || field.section == Section::backend_stat ||
            field.section == Section::ring) {
            ++lines;
            EXPECT_NE(text.find(std::string(field.key) + ":"), std::string::npos) << field.key;
        }
    }
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), lines);
}

// What an older module does not send is "n/a"; a detached agent has no pid.
TEST(TextOutput, AgentViewWithoutSomeCounters) {
    StatsRecord record = fake_device_record();
    record.values.at(*find_stat_field(Source::nested_ring, OZRAM_RING_ATTR_VERIFY_FAILURES))
        .reset();
    set(record, "agent_pid", 0);
    const std::string text = text_agent(record, {});
    EXPECT_NE(text.find("agent_pid:"), std::string::npos) << text;
    const std::size_t pid = text.find("agent_pid:");
    EXPECT_EQ(text.substr(text.find_first_not_of(' ', pid + 10), 2), "-\n") << text;
    const std::string failures = ring_name(OZRAM_RING_ATTR_VERIFY_FAILURES) + ':';
    const std::size_t at = text.find(failures);
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_EQ(text.substr(text.find_first_not_of(' ', at + failures.size()), 4), "n/a\n") << text;
}

}  // namespace
}  // namespace ozramctl
