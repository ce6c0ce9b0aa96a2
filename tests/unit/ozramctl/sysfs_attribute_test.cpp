#include "sysfs_attribute.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

class SysfsAttribute : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "ozramctl-sysfs.XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path file(const std::string& name, const std::string& text) const {
        std::ofstream(dir_ / name) << text;
        return dir_ / name;
    }
    static std::string contents(const fs::path& path) {
        std::ifstream in(path);
        return {std::istreambuf_iterator<char>(in), {}};
    }

    fs::path dir_;
};

TEST_F(SysfsAttribute, ReadsTheFirstLine) {
    EXPECT_EQ(read_first_line(file("backing_dev", "/dev/vdb\nmore\n")), "/dev/vdb");
    EXPECT_EQ(read_first_line(file("one", "none")), "none");
    EXPECT_FALSE(read_first_line(file("empty", "")));
    EXPECT_FALSE(read_first_line(dir_ / "absent"));
}

TEST_F(SysfsAttribute, ReadsANumber) {
    EXPECT_EQ(read_number(file("disksize", "1073741824\n")), 1073741824U);
    EXPECT_EQ(read_number(file("limit", "  7 pages\n")), 7U);
    EXPECT_FALSE(read_number(file("word", "none\n")));
    EXPECT_FALSE(read_number(file("empty", "")));
    EXPECT_FALSE(read_number(dir_ / "absent"));
}

TEST_F(SysfsAttribute, WritesTheValueAlone) {
    const fs::path path = file("writeback_limit", "a much longer old value\n");
    EXPECT_EQ(write_attribute(path, "100"), 0);
    EXPECT_EQ(contents(path), "100");
}

TEST_F(SysfsAttribute, SaysTheErrnoOfAFailedOpen) {
    EXPECT_EQ(write_attribute(dir_ / "absent", "1"), ENOENT);
    EXPECT_EQ(write_attribute(dir_, "1"), EISDIR);
}

// /dev/full fails every write with ENOSPC, as an attribute fails a value it
// refuses with its errno.
TEST_F(SysfsAttribute, SaysTheErrnoOfAFailedWrite) {
    struct stat st {};
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) {
        GTEST_SKIP() << "no /dev/full here";
    }
    EXPECT_EQ(write_attribute("/dev/full", "1"), ENOSPC);
}

}  // namespace
}  // namespace ozramctl
