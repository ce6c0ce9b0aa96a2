#include "textfile_export.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "error_text.hpp"
#include "ozram/error.hpp"

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

class TextfileExport : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/ozramctl-textfile.XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        dir_ = name;
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string read(const fs::path& path) {
        std::ifstream in(path);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    fs::path dir_;
};

ino_t inode_of(const fs::path& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST_F(TextfileExport, ReplacesTheFileAndLeavesNothingElse) {
    const fs::path file = dir_ / "ozram.prom";
    write_textfile(dir_, "first 1\n");
    const ino_t first = inode_of(file);
    ASSERT_NE(first, 0U);
    write_textfile(dir_, "second 2\n");
    EXPECT_EQ(read(file), "second 2\n");
    // A new file renamed over the old one (written while the old one still
    // existed, so its inode differs), readable by the collector.
    EXPECT_NE(inode_of(file), first);
    EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                  fs::perms::others_read);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

// The directory is often writable by the exporter's account, which may plant
// symbolic links in it: whatever name the temporary file might take, root's
// write must neither follow one nor change the file it points to.
TEST_F(TextfileExport, FollowsNoSymlinkPlantedInTheDirectory) {
    char victim_template[] = "/tmp/ozramctl-victim.XXXXXX";
    const int victim_fd = mkstemp(victim_template);
    ASSERT_GE(victim_fd, 0);
    ASSERT_EQ(write(victim_fd, "secret\n", 7), 7);
    ASSERT_EQ(fchmod(victim_fd, 0600), 0);
    close(victim_fd);
    const fs::path victim = victim_template;
    // The name the exporter used to take, and the final name itself.
    const std::string pid = std::to_string(getpid());
    for (const std::string& name : {".ozram.prom." + pid + ".tmp", std::string("ozram.prom")}) {
        fs::create_symlink(victim, dir_ / name);
    }

    write_textfile(dir_, "x 1\n");

    EXPECT_EQ(read(victim), "secret\n");
    EXPECT_EQ(fs::status(victim).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    // The final name is now a file of its own, not the link.
    EXPECT_FALSE(fs::is_symlink(dir_ / "ozram.prom"));
    EXPECT_EQ(read(dir_ / "ozram.prom"), "x 1\n");
    fs::remove(victim);
}

TEST_F(TextfileExport, FailsOnAMissingDirectoryNamingIt) {
    try {
        write_textfile(dir_ / "absent", "x 1\n");
        FAIL() << "no error";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), ENOENT);
        EXPECT_NE(
            error_text(error).find((dir_ / "absent").string() + ": No such file or directory"),
            std::string::npos)
            << error_text(error);
    }
}

}  // namespace
}  // namespace ozramctl
