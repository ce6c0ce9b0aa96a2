#include "device_names.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "device_setup.hpp"
#include "ozram/error.hpp"

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

TEST(DeviceNaming, NamesAndNumbersInEitherNaming) {
    EXPECT_EQ(OZRAM_NAMING.name(3), "ozram3");
    EXPECT_EQ(ZRAM_NAMING.name(0), "zram0");
    EXPECT_EQ(OZRAM_NAMING.number_of("ozram12"), 12u);
    EXPECT_EQ(ZRAM_NAMING.number_of("zram0"), 0u);
    for (const char* name : {"zram0", "ozram", "ozram01", "ozram-1", "ozram1p1", "ozram4294967296",
                             "ozram+1", "ozram 1", ""}) {
        EXPECT_FALSE(OZRAM_NAMING.number_of(name)) << name;
    }
    for (const char* name : {"ozram0", "zram", "zram00", "zram1p1"}) {
        EXPECT_FALSE(ZRAM_NAMING.number_of(name)) << name;
    }
}

TEST(DeviceArgument, EverySpellingWithItsNaming) {
    EXPECT_EQ(parse_device_argument("ozram0"), (DeviceArgument{0, "ozram"}));
    EXPECT_EQ(parse_device_argument("/dev/ozram12"), (DeviceArgument{12, "ozram"}));
    EXPECT_EQ(parse_device_argument("zram3"), (DeviceArgument{3, "zram"}));
    EXPECT_EQ(parse_device_argument("/dev/zram0"), (DeviceArgument{0, "zram"}));
    EXPECT_EQ(parse_device_argument("7"), (DeviceArgument{7, ""}));
    for (const char* text : {"ozram", "ozram01", "ozram-1", "/dev/ozram1p1", "4294967296", "",
                             "/dev/", "/dev/7", "-1", "+1", "07", "sda", "/dev/zram", "xzram0"}) {
        EXPECT_FALSE(parse_device_argument(text)) << text;
    }
}

TEST(DeviceArgument, ANameOfTheOtherNamingIsAMismatch) {
    EXPECT_FALSE(naming_mismatch({3, "ozram"}, OZRAM_NAMING));
    EXPECT_FALSE(naming_mismatch({3, "zram"}, ZRAM_NAMING));
    EXPECT_FALSE(naming_mismatch({3, ""}, ZRAM_NAMING));  // a number fits either
    EXPECT_FALSE(naming_mismatch({3, ""}, OZRAM_NAMING));
    EXPECT_EQ(naming_mismatch({3, "zram"}, OZRAM_NAMING),
              "no such device: zram3 (the ozram module names its devices ozramN: ozram3; zramN "
              "with compat=1)");
    EXPECT_EQ(naming_mismatch({0, "ozram"}, ZRAM_NAMING),
              "no such device: ozram0 (the ozram module is loaded with compat=1 and names its "
              "devices zramN: zram0)");
}

// A scratch directory tree standing for /sys (and /dev) of one test.
class ScratchTree : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/ozramctl-names.XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        root_ = name;
    }
    void TearDown() override { fs::remove_all(root_); }

    void write(const fs::path& file, const std::string& text) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << text;
    }

    fs::path root_;
};

TEST_F(ScratchTree, TheModulesCompatParameterPicksTheNaming) {
    EXPECT_FALSE(loaded_module_naming(root_ / "parameters"));  // not loaded
    write(root_ / "parameters" / "compat", "N\n");
    EXPECT_EQ(loaded_module_naming(root_ / "parameters"), OZRAM_NAMING);
    write(root_ / "parameters" / "compat", "Y\n");
    EXPECT_EQ(loaded_module_naming(root_ / "parameters"), ZRAM_NAMING);
}

TEST_F(ScratchTree, ModuleFlagsAreYOrN) {
    EXPECT_FALSE(module_flag("latency_stats", root_ / "parameters"));  // not loaded
    write(root_ / "parameters" / "latency_stats", "Y\n");
    EXPECT_EQ(module_flag("latency_stats", root_ / "parameters"), true);
    write(root_ / "parameters" / "latency_stats", "N\n");
    EXPECT_EQ(module_flag("latency_stats", root_ / "parameters"), false);
    write(root_ / "parameters" / "latency_stats", "1\n");  // not a boolean's sysfs form
    EXPECT_FALSE(module_flag("latency_stats", root_ / "parameters"));
}

TEST_F(ScratchTree, SetupUnderZramsNamesTakesTheFirstFreeZramDevice) {
    const SysfsRoot root{.block = root_ / "block",
                         .classes = root_ / "class",
                         .dev = root_ / "dev",
                         .naming = ZRAM_NAMING};
    write(root_ / "class" / "zram-control" / "hot_add", "9\n");
    write(root_ / "block" / "zram0" / "disksize", "4096\n");  // in use
    write(root_ / "block" / "zram1" / "disksize", "0\n");     // free
    write(root_ / "block" / "ozram0" / "disksize", "0\n");    // not of this naming
    EXPECT_EQ(find_free_device(root), 1u);
    EXPECT_EQ(setup_device({.size = 1 << 20}, root), (root_ / "dev" / "zram1").string());
    std::ifstream disksize(root_ / "block" / "zram1" / "disksize");
    std::string written;
    disksize >> written;
    EXPECT_EQ(written, "1048576");
    EXPECT_EQ(find_free_device(root), 9u);  // every zram device in use: hot_add's
}

TEST_F(ScratchTree, SetupWithoutTheControlClassSaysTheModuleIsNotLoaded) {
    write(root_ / "class" / "ozram-control" / "hot_add", "0\n");
    const SysfsRoot root{
        .block = root_ / "block", .classes = root_ / "class", .naming = ZRAM_NAMING};
    try {
        setup_device({.size = 4096}, root);
        FAIL() << "setup without zram-control succeeded";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), ENOENT);
        EXPECT_NE(std::string(error.what()).find("zram-control"), std::string::npos);
    }
}

}  // namespace
}  // namespace ozramctl
