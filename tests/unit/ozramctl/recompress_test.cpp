#include "recompress.hpp"

#include <gtest/gtest.h>

#include "cli/usage_error.hpp"
#include "command_line.hpp"
#include "ozram_genl.h"
#include "stat_fields.hpp"

namespace ozramctl {
namespace {

CommandLine parse(std::initializer_list<std::string_view> args) {
    return parse_command_line(std::vector<std::string_view>(args));
}

TEST(Recompress, OptionsBecomeZramsRequest) {
    const CommandLine line = parse({"recompress", "--type", "huge_idle", "--threshold", "1K",
                                    "--max-pages", "100", "--algo", "zstd", "ozram2"});
    EXPECT_EQ(line.subcommand, Subcommand::recompress);
    EXPECT_EQ(line.device, 2u);
    EXPECT_EQ(recompress_argument(line.recompress),
              "type=huge_idle threshold=1024 max_pages=100 algo=zstd");
    EXPECT_EQ(recompress_argument(parse({"recompress"}).recompress), "")
        << "no option: every stored page, as an empty write to zram's";
}

TEST(Recompress, BadValuesAndMisplacedOptionsAreUsageErrors) {
    EXPECT_THROW(parse({"recompress", "--type", "cold"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--max-pages", "0"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--threshold", "lots"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--algo", "zstd priority=2"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"recompress", "--json"}), ozram::cli::UsageError);
    EXPECT_THROW(parse({"stats", "--type", "idle"}), ozram::cli::UsageError);
    EXPECT_NO_THROW(parse({"recompress", "-b", "--type", "idle"}));
}

// backend_stat's lines, named as the module's list names them.
std::string line_of(int stat_attr, std::uint64_t value) {
    return std::string(stat_fields()[*find_stat_field(Source::nested_stats, stat_attr)].key) +
           ": " + std::to_string(value) + "\n";
}

TEST(Recompress, CountsComeFromBackendStat) {
    const std::string text = line_of(OZRAM_STAT_ATTR_KERNEL_PAGES, 5) +
                             line_of(OZRAM_STAT_ATTR_RECOMPRESSED_PAGES, 16384) +
                             line_of(OZRAM_STAT_ATTR_RECOMPRESS_SAVED, 16025286) +
                             "agent: detached\nagent_pid: 0\n";
    const auto counts = parse_recompress_counts(text);
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->pages, 16384u);
    EXPECT_EQ(counts->saved, 16025286u);
    EXPECT_FALSE(parse_recompress_counts(line_of(OZRAM_STAT_ATTR_KERNEL_PAGES, 5)))
        << "a backend_stat without the recompression numbers";
    EXPECT_FALSE(parse_recompress_counts("67108864 9854321 10485760 0 10485760 3 0 12 12"))
        << "mm_stat carries no recompression numbers";
}

TEST(Recompress, SummarySaysWhatThePassAdded) {
    const RecompressCounts before{100, 50000};
    const RecompressCounts after{16484, 16075286};
    EXPECT_EQ(recompress_summary("ozram0", before, after, true),
              "ozram0: 16384 pages recompressed, 16025286 bytes saved\n");
    EXPECT_EQ(recompress_summary("ozram0", after, before, true),
              "ozram0: 0 pages recompressed, 0 bytes saved\n")
        << "pages freed meanwhile never make the figures negative";
}

}  // namespace
}  // namespace ozramctl
