#include "command_line.hpp"

#include <gtest/gtest.h>

#include "cli/usage_error.hpp"

namespace ozramctl {
namespace {

CommandLine parse(std::initializer_list<std::string_view> args) {
    return parse_command_line(std::vector<std::string_view>(args));
}

TEST(CommandLine, DeviceKeepsTheNamingItIsWrittenIn) {
    auto line = parse({"stats", "/dev/zram2"});
    EXPECT_EQ(line.device, 2u);
    EXPECT_EQ(line.device_prefix, "zram");
    line = parse({"stats", "ozram2"});
    EXPECT_EQ(line.device, 2u);
    EXPECT_EQ(line.device_prefix, "ozram");
    line = parse({"stats", "2"});
    EXPECT_EQ(line.device, 2u);
    EXPECT_EQ(line.device_prefix, "");
    EXPECT_THROW(parse({"stats", "zram02"}), ozram::cli::UsageError);
}

TEST(CommandLine, StatsWithDeviceAndOptionsInAnyOrder) {
    auto line = parse({"-j", "stats", "ozram3", "--watch", "--interval", "2", "-b"});
    EXPECT_EQ(line.subcommand, Subcommand::stats);
    EXPECT_EQ(line.device, 3u);
    EXPECT_TRUE(line.json);
    EXPECT_TRUE(line.bytes);
    EXPECT_TRUE(line.watch);
    EXPECT_EQ(line.interval_seconds, 2u);
}

TEST(CommandLine, WatchIsAFlagWithAnOptionalInterval) {
    auto line = parse({"stats", "-w", "2"});  // 2 is the device
    EXPECT_TRUE(line.watch);
    EXPECT_EQ(line.device, 2u);
    EXPECT_FALSE(line.interval_seconds);
    EXPECT_TRUE(parse({"agent", "--watch"}).watch);
    EXPECT_EQ(parse({"latency", "-w", "--interval=5"}).interval_seconds, 5u);
    EXPECT_THROW(parse({"stats", "--interval", "2"}), ozram::cli::UsageError);  // needs --watch
    EXPECT_THROW(parse({"stats", "-w", "--interval", "0"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--watch=2"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "-w"}), ozram::cli::UsageError);
}

TEST(CommandLine, Writeback) {
    auto line = parse({"writeback", "--type", "huge_idle", "--limit", "400M", "ozram1"});
    EXPECT_EQ(line.subcommand, Subcommand::writeback);
    EXPECT_EQ(line.writeback.type, "huge_idle");
    EXPECT_EQ(line.writeback.limit_bytes, 400ull << 20);
    EXPECT_EQ(line.device, 1u);
    EXPECT_FALSE(line.recompress.type);
    for (const char* type : {"idle", "huge", "incompressible"}) {
        EXPECT_EQ(parse({"--type", type, "writeback"}).writeback.type, type);
    }
    EXPECT_FALSE(parse({"writeback", "--type=idle"}).writeback.limit_bytes);
    EXPECT_TRUE(parse({"writeback", "-b", "--type=idle"}).bytes);
    EXPECT_FALSE(parse({"writeback", "--type=idle"}).writeback.compressed);
    EXPECT_EQ(parse({"writeback", "--type=idle", "--compressed", "yes"}).writeback.compressed,
              true);
    EXPECT_EQ(parse({"writeback", "--type=idle", "--compressed=no"}).writeback.compressed, false);
}

TEST(CommandLine, WritebackUsageErrors) {
    EXPECT_THROW(parse({"writeback"}), ozram::cli::UsageError);  // no --type
    EXPECT_THROW(parse({"writeback", "--type", "all"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"writeback", "--type", "page_index=3"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"writeback", "--type", "idle", "--limit", "4095"}),
                 ozram::cli::UsageError);  // under one 4 KiB unit
    EXPECT_THROW(parse({"writeback", "--type", "idle", "--limit", "lots"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"writeback", "--type", "idle", "-j"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--type", "incompressible"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--limit", "1M"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"writeback", "--type", "idle", "--compressed", "1"}),
                 ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--compressed", "yes"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--type", "idle"}), ozram::cli::UsageError);
    EXPECT_TRUE(parse({"writeback", "--help"}).help);
}

TEST(CommandLine, AttachedOptionValues) {
    auto line = parse({"stats", "-w", "--interval=5"});
    EXPECT_EQ(line.interval_seconds, 5u);
    line = parse({"setup", "--size=64M", "--swap", "--priority=100", "/dev/ozram1"});
    EXPECT_EQ(line.subcommand, Subcommand::setup);
    EXPECT_EQ(line.size, 64ull << 20);
    EXPECT_TRUE(line.swap);
    EXPECT_EQ(line.priority, 100);
    EXPECT_EQ(line.device, 1u);
}

TEST(CommandLine, StatsWithoutDeviceMeansEveryDevice) {
    auto line = parse({"stats"});
    EXPECT_FALSE(line.device);
    EXPECT_FALSE(line.json);
}

TEST(CommandLine, HelpAndVersionNeedNothingElse) {
    EXPECT_TRUE(parse({"--help"}).help);
    EXPECT_EQ(parse({"--help"}).subcommand, Subcommand::none);
    auto line = parse({"setup", "--help"});  // no --size needed to ask for help
    EXPECT_TRUE(line.help);
    EXPECT_EQ(line.subcommand, Subcommand::setup);
    EXPECT_TRUE(parse({"-V"}).version);
}

TEST(CommandLine, PrivilegedCommandsTakeAnOptionalDevice) {
    EXPECT_EQ(parse({"reset-stats"}).subcommand, Subcommand::reset_stats);
    EXPECT_EQ(parse({"compact", "0"}).device, 0u);
}

TEST(CommandLine, UsageErrors) {
    EXPECT_THROW(parse({}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"frobnicate"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "sda"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "0", "1"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"devices", "0"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"agent", "0"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--watch", "--interval"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--watch", "--interval", "1.5"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--frob"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--json=yes"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"devices", "--watch"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"reset-stats", "--json"}), ozram::cli::UsageError);
    // latency shows no size for --bytes to change.
    EXPECT_THROW(parse({"latency", "-b"}), ozram::cli::UsageError);
    EXPECT_TRUE(parse({"agent", "-b"}).bytes);
    EXPECT_THROW(parse({"stats", "--size", "1G"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup", "--size", "0"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup", "--size", "lots"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup", "--size", "1G", "--priority", "5"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup", "--size", "1G", "--swap", "--priority", "40000"}),
                 ozram::cli::UsageError);
    EXPECT_THROW(parse({"setup", "--size="}), ozram::cli::UsageError);
}

// One output format: -j and --format name one each, and two that differ
// are refused rather than one of them dropped.
TEST(CommandLine, ConflictingOutputFormatsAreAUsageError) {
    const auto error_of = [](std::initializer_list<std::string_view> args) {
        try {
            (void)parse(args);
        } catch (const ozram::cli::UsageError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    // Each option as the user wrote it.
    EXPECT_EQ(error_of({"stats", "--format", "prometheus", "-j"}),
              "-j conflicts with --format prometheus");
    EXPECT_EQ(error_of({"stats", "-j", "--format", "prometheus"}),
              "--format prometheus conflicts with -j");
    EXPECT_EQ(error_of({"stats", "--json", "--format=text"}),
              "--format text conflicts with --json");
    EXPECT_EQ(error_of({"stats", "--format", "json", "--format", "prometheus"}),
              "--format prometheus conflicts with --format json");
    // The same format twice is no conflict.
    EXPECT_TRUE(parse({"stats", "-j", "--format", "json"}).json);
    EXPECT_TRUE(parse({"stats", "--format", "prometheus", "--format", "prometheus"}).prometheus);
    EXPECT_FALSE(parse({"stats", "--format", "text", "--format", "text"}).json);
}

TEST(CommandLine, DoubleDashEndsOptions) {
    EXPECT_THROW(parse({"stats", "--", "-j"}), ozram::cli::UsageError);  // "-j" is then a device
    EXPECT_EQ(parse({"stats", "--", "2"}).device, 2u);
}

TEST(CommandLine, EveryCommandHasItsOwnUsage) {
    for (auto sub : {Subcommand::devices, Subcommand::stats, Subcommand::agent,
                     Subcommand::reset_stats, Subcommand::compact, Subcommand::setup}) {
        const std::string text = usage_text(sub);
        EXPECT_TRUE(text.starts_with("Usage: ozramctl " + std::string(subcommand_name(sub))))
            << text;
    }
    EXPECT_NE(usage_text(Subcommand::none).find("Exit status"), std::string::npos);
}

}  // namespace
}  // namespace ozramctl
