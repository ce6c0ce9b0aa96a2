#include "recompress.hpp"

#include <gtest/gtest.h>

#include "cli/usage_error.hpp"
#include "command_line.hpp"

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

TEST(Recompress, CountsComeFromMmStatsLastTwoNumbers) {
    const auto counts =
        parse_recompress_counts("67108864 9854321 10485760 0 10485760 3 0 12 12 16384 16025286");
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->pages, 16384u);
    EXPECT_EQ(counts->saved, 16025286u);
    EXPECT_FALSE(parse_recompress_counts("67108864 9854321 10485760 0 10485760 3 0 12 12"))
        << "zram's nine numbers carry no recompression counts";
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
