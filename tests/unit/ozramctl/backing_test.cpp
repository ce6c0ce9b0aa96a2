#include "backing.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include "ozram/error.hpp"

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

TEST(BdStat, ParsesZramsThreeNumbers) {
    EXPECT_EQ(parse_bd_stat("     100        7      250\n"), (BackingStat{100, 7, 250}));
    EXPECT_EQ(parse_bd_stat("0 0 0"), (BackingStat{0, 0, 0}));
    EXPECT_FALSE(parse_bd_stat(""));
    EXPECT_FALSE(parse_bd_stat("1 2"));
    EXPECT_FALSE(parse_bd_stat("a b c"));
}

TEST(BdStat, Sums) {
    BackingStat total{1, 2, 3};
    total += BackingStat{10, 20, 30};
    EXPECT_EQ(total, (BackingStat{11, 22, 33}));
}

TEST(Writeback, LimitInZramsFourKiBUnits) {
    EXPECT_EQ(writeback_limit_pages(400ull << 20), 102400U);
    EXPECT_EQ(writeback_limit_pages(4096), 1U);
    EXPECT_EQ(writeback_limit_pages(8191), 1U);
    EXPECT_EQ(writeback_limit_pages(4095), 0U);
}

TEST(Writeback, Types) {
    for (const char* type : {"idle", "huge", "huge_idle", "incompressible"}) {
        EXPECT_TRUE(is_writeback_type(type)) << type;
    }
    for (const char* type : {"", "all", "page_index=1", "IDLE", "idle "}) {
        EXPECT_FALSE(is_writeback_type(type)) << type;
    }
}

TEST(Writeback, ErrnosInWords) {
    auto message = [](int error, bool used_up = false) {
        return writeback_error_message("ozram0", "idle", error, used_up);
    };
    EXPECT_EQ(message(ENODEV),
              "ozram0: writeback 'idle' refused: no backing device (write a block device to "
              "backing_dev before disksize)");
    EXPECT_NE(message(EINVAL).find("not initialized"), std::string::npos);
    EXPECT_NE(message(EIO).find("the backing device failed a write"), std::string::npos);
    EXPECT_NE(message(EIO).find("stay in memory"), std::string::npos);
    EXPECT_NE(message(EIO, true).find("writeback_limit is used up"), std::string::npos);
    EXPECT_NE(message(ENOSPC).find("the backing device is full"), std::string::npos);
    EXPECT_NE(message(EBUSY).find("busy"), std::string::npos);
    EXPECT_NE(message(ENOMEM).find("out of memory"), std::string::npos);
    EXPECT_EQ(message(EROFS), "ozram0: writeback 'idle' failed: Read-only file system");
}

TEST(Writeback, SummaryFromBdStatBeforeAndAfter) {
    WritebackResult result;
    result.before = {66, 3, 66};
    result.after = {1090, 3, 1090};
    EXPECT_EQ(writeback_summary("ozram0", result, false),
              "ozram0: 1024 pages of 4 KiB written back (4M)\n"
              "    bd_stat (4 KiB units):  bd_count  bd_reads  bd_writes\n"
              "    before                        66         3         66\n"
              "    after                       1090         3       1090\n");
    result.limit_left = 0;
    result.after = {67, 3, 67};
    EXPECT_EQ(writeback_summary("ozram1", result, true),
              "ozram1: 1 page of 4 KiB written back (4096 bytes)\n"
              "    bd_stat (4 KiB units):  bd_count  bd_reads  bd_writes\n"
              "    before                        66         3         66\n"
              "    after                         67         3         67\n"
              "    writeback_limit: 0 pages of 4 KiB left\n");
}

// Compressed writeback: pages share blocks, so bd_count grows by less than
// bd_writes; the count said is the pages'.
TEST(Writeback, SummaryCountsPagesWhenTheyShareBlocks) {
    WritebackResult result;
    result.before = {66, 3, 66};
    result.after = {578, 3, 1090};
    EXPECT_EQ(writeback_summary("ozram0", result, false),
              "ozram0: 1024 pages of 4 KiB written back (4M)\n"
              "    bd_stat (4 KiB units):  bd_count  bd_reads  bd_writes\n"
              "    before                        66         3         66\n"
              "    after                        578         3       1090\n");
}

// A device's sysfs directory in a temporary tree, as zram 6.1 lays it out.
class FakeSysfs : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/ozramctl-sysfs.XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        root_ = name;
        dir_ = root_ / "ozram0";
        fs::create_directory(dir_);
        write("backing_dev", "/dev/vdb\n");
        write("bd_stat", "       2        0        2\n");
        write("writeback", "");
        write("writeback_limit", "0\n");
        write("writeback_limit_enable", "0\n");
    }
    void TearDown() override { fs::remove_all(root_); }

    void write(const std::string& file, const std::string& text) {
        fs::remove(dir_ / file);
        std::ofstream(dir_ / file) << text;
    }
    std::string read(const std::string& file) {
        std::ifstream in(dir_ / file);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    fs::path root_;
    fs::path dir_;
};

TEST_F(FakeSysfs, ReadsBdStatWhereTheFileIs) {
    EXPECT_EQ(read_bd_stat(dir_), (BackingStat{2, 0, 2}));
    fs::remove(dir_ / "bd_stat");
    EXPECT_FALSE(read_bd_stat(dir_));
    EXPECT_FALSE(read_bd_stat(root_ / "ozram9"));
}

TEST_F(FakeSysfs, WritesTheTypeAndLeavesTheLimitAlone) {
    const WritebackResult result = run_writeback(dir_, "ozram0", {.type = "huge_idle"});
    EXPECT_EQ(result.error, 0);
    EXPECT_EQ(read("writeback"), "huge_idle");
    EXPECT_EQ(read("writeback_limit"), "0\n");
    EXPECT_EQ(read("writeback_limit_enable"), "0\n");
    EXPECT_EQ(result.before, (BackingStat{2, 0, 2}));
    EXPECT_FALSE(result.limit_left);
}

TEST_F(FakeSysfs, SetsTheLimitInPagesAndEnablesIt) {
    const WritebackResult result =
        run_writeback(dir_, "ozram0", {.type = "idle", .limit_bytes = 400ull << 20});
    EXPECT_EQ(result.error, 0);
    EXPECT_EQ(read("writeback_limit"), "102400");
    EXPECT_EQ(read("writeback_limit_enable"), "1");
    EXPECT_EQ(result.limit_left, 102400U);
}

// --compressed: ozram's compressed_writeback is set before the request; a
// zram 6.1 directory has no such file, and nothing is written then.
TEST_F(FakeSysfs, SetsCompressedWritebackWhereTheFileIs) {
    write("compressed_writeback", "1\n");
    EXPECT_EQ(run_writeback(dir_, "ozram0", {.type = "idle", .compressed = false}).error, 0);
    EXPECT_EQ(read("compressed_writeback"), "0");
    EXPECT_EQ(read("writeback"), "idle");
    EXPECT_EQ(run_writeback(dir_, "ozram0", {.type = "huge", .compressed = true}).error, 0);
    EXPECT_EQ(read("compressed_writeback"), "1");
    fs::remove(dir_ / "compressed_writeback");
    write("writeback", "");
    try {
        run_writeback(dir_, "ozram0", {.type = "idle", .compressed = true});
        ADD_FAILURE() << "no error without compressed_writeback";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), EOPNOTSUPP);
        EXPECT_NE(std::string(error.what()).find("no compressed_writeback"), std::string::npos);
    }
    EXPECT_EQ(read("writeback"), "");
}

// The kernel's side played by a thread: writeback and bd_stat are FIFOs, so
// that each read and write of ozramctl waits for the thread.  It answers
// the first read of bd_stat, takes the request, then answers the second
// read with the pages written back: bd_stat must be read before the
// request and after it.
TEST_F(FakeSysfs, BdStatIsReadAroundTheRequest) {
    for (const char* file : {"writeback", "bd_stat"}) {
        fs::remove(dir_ / file);
        ASSERT_EQ(mkfifo((dir_ / file).c_str(), 0600), 0);
    }
    std::string request;
    std::thread kernel([&] {
        std::ofstream(dir_ / "bd_stat") << "       2        0        2\n";
        std::ifstream in(dir_ / "writeback");
        std::getline(in, request);
        std::ofstream(dir_ / "bd_stat") << "     514        0      514\n";
    });
    const WritebackResult result = run_writeback(dir_, "ozram0", {.type = "idle"});
    kernel.join();
    EXPECT_EQ(request, "idle");
    EXPECT_EQ(result.error, 0);
    EXPECT_EQ(result.before, (BackingStat{2, 0, 2}));
    EXPECT_EQ(result.after, (BackingStat{514, 0, 514}));
    EXPECT_EQ(writeback_summary("ozram0", result, false).substr(0, 45),
              "ozram0: 512 pages of 4 KiB written back (2M)\n");
}

TEST_F(FakeSysfs, ARefusedWriteIsInTheResultWithBdStatAfter) {
    // A directory cannot be opened for writing: the request fails with an
    // errno, as a refused sysfs write does, and bd_stat is still read.
    fs::remove(dir_ / "writeback");
    fs::create_directory(dir_ / "writeback");
    const WritebackResult result = run_writeback(dir_, "ozram0", {.type = "idle"});
    EXPECT_EQ(result.error, EISDIR);
    EXPECT_EQ(result.after, (BackingStat{2, 0, 2}));
}

int error_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const ozram::Error& error) {
        return error.code().value();
    }
    return 0;
}

TEST_F(FakeSysfs, NoBackingDeviceIsENODEVBeforeAnythingIsWritten) {
    write("backing_dev", "none\n");
    EXPECT_EQ(
        error_of([&] { run_writeback(dir_, "ozram0", {.type = "idle", .limit_bytes = 1 << 20}); }),
        ENODEV);
    EXPECT_EQ(read("writeback"), "");
    EXPECT_EQ(read("writeback_limit_enable"), "0\n");
}

TEST_F(FakeSysfs, NoWritebackFileOrNoDevice) {
    fs::remove(dir_ / "writeback");
    EXPECT_EQ(error_of([&] { run_writeback(dir_, "ozram0", {.type = "idle"}); }), EOPNOTSUPP);
    EXPECT_EQ(error_of([&] { run_writeback(root_ / "ozram7", "ozram7", {.type = "idle"}); }),
              ENODEV);
}

TEST_F(FakeSysfs, InitializedDevicesByNumberAndTheirBackingDevice) {
    write("disksize", "67108864\n");
    for (const char* name : {"ozram10", "ozram2", "ozram3", "zram0", "ozramx", "ozram04"}) {
        fs::create_directory(root_ / name);
        std::ofstream(root_ / name / "disksize") << "4096\n";
    }
    std::ofstream(root_ / "ozram3" / "disksize") << "0\n";  // not initialized
    fs::create_directory(root_ / "ozram5");                 // no disksize file
    EXPECT_EQ(initialized_devices(root_, OZRAM_NAMING),
              (std::vector<std::string>{"ozram0", "ozram2", "ozram10"}));
    EXPECT_EQ(initialized_devices(root_, ZRAM_NAMING), (std::vector<std::string>{"zram0"}));
    EXPECT_TRUE(initialized_devices(root_ / "none", OZRAM_NAMING).empty());
    EXPECT_TRUE(has_backing_device(dir_));
    EXPECT_FALSE(has_backing_device(root_ / "ozram2"));
    write("backing_dev", "none\n");
    EXPECT_FALSE(has_backing_device(dir_));
}

TEST_F(FakeSysfs, UnreadableBdStatIsAnError) {
    fs::remove(dir_ / "bd_stat");
    EXPECT_EQ(error_of([&] { run_writeback(dir_, "ozram0", {.type = "idle"}); }), EIO);
}

}  // namespace
}  // namespace ozramctl
