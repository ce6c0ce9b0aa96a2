// ozramd's configuration file and command line.
#include "config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "options.hpp"
#include "ozram/cost_model.hpp"

namespace {

using ozram::daemon::BackendChoice;
using ozram::daemon::Config;
using ozram::daemon::ConfigError;
using ozram::daemon::parse_config;

std::string error_of(const std::string& text) {
    try {
        (void)parse_config(text, "ozramd.conf");
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "accepted";
}

// A GPU's cost is overridden a key a line, as the man page's example does:
// no line alone gives all of a GPU's rates.
TEST(Config, TakesTheGpuCostsALineAtATime) {
    EXPECT_EQ(error_of("cost.gpu.fixed_ns = 40000\n"), "accepted");
    const Config config = parse_config(
        "cost.gpu.fixed_ns = 40000\ncost.gpu.pcie_gbps = 50\ncost.gpu.kernel_gbps = 70\n", "test");
    const auto model = ozram::CostModel::parse(config.cost_overrides);
    ASSERT_TRUE(model.gpu.has_value());
    EXPECT_EQ(model.gpu->fixed_ns, 40000);
    EXPECT_EQ(model.gpu->kernel_gbps, 70);
    EXPECT_NE(error_of("cost.gpu.pcie_gbps = 0\n").find("cost.gpu.pcie_gbps"), std::string::npos);
}

// The shipped ozramd.conf's examples ("#key = value") are settings the
// agent takes: every one of them, uncommented, parses, and its cost
// overrides apply on a host without a GPU.
TEST(Config, TheShippedExamplesParse) {
    std::ifstream file(OZRAMD_CONF_PATH);
    ASSERT_TRUE(file) << OZRAMD_CONF_PATH;
    std::string text;
    std::size_t examples = 0;
    for (std::string line; std::getline(file, line);) {
        if (line.size() > 1 && line[0] == '#' && line[1] != ' ' && line[1] != '#') {
            line.erase(0, 1);
            ++examples;
        }
        text += line + "\n";
    }
    EXPECT_GE(examples, 9u);
    ASSERT_EQ(error_of(text), "accepted");
    // And on a host without a GPU, whose calibrated model has none.
    const Config config = parse_config(text, "ozramd.conf");
    EXPECT_NO_THROW((void)ozram::CostModel::parse(ozram::CostModel::defaults().serialize() +
                                                  config.cost_overrides));
}

TEST(Config, ReadsEveryKeyAndIgnoresCommentsAndBlanks) {
    const Config config = parse_config(
        "# ozramd settings\n"
        "\n"
        "batch_size = 512   # pages\n"
        "flush_us=50\n"
        "  threads =  3\n"
        "backend = scalar\n"
        "gpu_staging = copy\n"
        "huge_threshold = 2048\n"
        "log_level = debug\n"
        "cost.cpu.per_page_ns = 123.5\n",
        "test");
    EXPECT_EQ(config.batch_size, 512u);
    EXPECT_EQ(config.flush_us, 50u);
    EXPECT_EQ(config.threads, 3u);
    EXPECT_EQ(config.backend, BackendChoice::Scalar);
    EXPECT_EQ(config.gpu_staging, ozram::daemon::GpuStaging::Copy);
    EXPECT_EQ(config.huge_threshold, 2048u);
    EXPECT_EQ(config.log_level, ozram::daemon::LogLevel::Debug);
    EXPECT_EQ(ozram::CostModel::parse(config.cost_overrides).cpu.per_page_ns, 123.5);
}

TEST(Config, TheGpuReadsStagedPagesInPlaceByDefault) {
    EXPECT_EQ(parse_config("", "test").gpu_staging, ozram::daemon::GpuStaging::InPlace);
    EXPECT_EQ(parse_config("gpu_staging = in-place", "test").gpu_staging,
              ozram::daemon::GpuStaging::InPlace);
}

TEST(Config, TheNiceValueIsAutoByDefaultOrAnyNiceValue) {
    EXPECT_FALSE(parse_config("", "test").nice.has_value());
    EXPECT_FALSE(parse_config("nice = 5\nnice = auto", "test").nice.has_value());
    EXPECT_EQ(parse_config("nice = -20", "test").nice, -20);
    EXPECT_EQ(parse_config("nice = 0", "test").nice, 0);
    EXPECT_NE(error_of("nice = 20").find("nice: expected an integer in -20..19 or auto, got '20'"),
              std::string::npos);
    EXPECT_NE(error_of("nice = -21").find("nice"), std::string::npos);
}

TEST(Config, ErrorsNameTheLineAndTheProblem) {
    EXPECT_EQ(error_of("batch_size = 8\nbogus = 1\n"), "ozramd.conf:2: unknown key 'bogus'");
    EXPECT_NE(error_of("\n\nbatch_size = 0\n")
                  .find("ozramd.conf:3: batch_size: expected an integer in 1..65536, got '0'"),
              std::string::npos);
    EXPECT_NE(error_of("batch_size = 12abc").find(":1:"), std::string::npos);
    EXPECT_NE(error_of("flush_us = -1").find("flush_us"), std::string::npos);
    EXPECT_NE(error_of("backend = tpu").find("auto, cpu, scalar or gpu"), std::string::npos);
    EXPECT_NE(error_of("gpu_staging = zero-copy").find("in-place or copy"), std::string::npos);
    EXPECT_NE(error_of("log_level = loud").find("log_level"), std::string::npos);
    EXPECT_NE(error_of("just words").find("expected 'key = value'"), std::string::npos);
    EXPECT_NE(error_of("cost.scalar.per_page_ns = fast").find("cost.scalar.per_page_ns"),
              std::string::npos);
    EXPECT_NE(error_of("cost.nonsense = 1").find(":1:"), std::string::npos);
    EXPECT_NE(error_of("huge_threshold = 4097").find("huge_threshold"), std::string::npos);
}

std::vector<char*> argv_of(std::vector<std::string>& words) {
    std::vector<char*> argv;
    for (std::string& word : words) {
        argv.push_back(word.data());
    }
    argv.push_back(nullptr);
    return argv;
}

TEST(Config, ADirectoryIsNoConfigurationFile) {
    try {
        (void)ozram::daemon::load_config_file("/tmp", true);
        FAIL() << "a directory read as an empty configuration";
    } catch (const ConfigError& error) {
        EXPECT_NE(std::string(error.what()).find("/tmp: Is a directory"), std::string::npos)
            << error.what();
    }
}

TEST(Options, FlagsParseAndOverrideTheFile) {
    std::vector<std::string> words{
        "ozramd",    "--shm", "ring0", "--batch-size", "64",
        "--backend", "cpu",   "-v",    "--config",     "/nonexistent/ozramd.conf",
        "--wait"};
    auto argv = argv_of(words);
    const auto options = ozram::daemon::parse_options(static_cast<int>(words.size()), argv.data());
    EXPECT_EQ(options.shm_name, "ring0");
    EXPECT_TRUE(options.wait_for_ring);
    EXPECT_TRUE(options.config_given);
    // The named file must exist.
    EXPECT_THROW((void)ozram::daemon::effective_config(options), ConfigError);
}

TEST(Options, UsageErrorsAreReported) {
    for (std::vector<std::string> words : std::vector<std::vector<std::string>>{
             {"ozramd", "--bogus"},
             {"ozramd", "--batch-size"},
             {"ozramd", "--batch-size", "0"},
             {"ozramd", "--threads", "many"},
             {"ozramd", "--gpu-staging", "pinned"},
             {"ozramd", "--nice", "20"},
             {"ozramd", "--nice", "low"},
             {"ozramd", "stray"},
             {"ozramd", "--shm", "a", "--device", "/dev/x"},
         }) {
        auto argv = argv_of(words);
        EXPECT_THROW(
            (void)ozram::daemon::parse_options(static_cast<int>(words.size()), argv.data()),
            ozram::cli::UsageError)
            << words[1];
    }
}

// The usage error of a command line, or "no error".
std::string error_of_flags(std::vector<std::string> words) {
    auto argv = argv_of(words);
    try {
        (void)ozram::daemon::parse_options(static_cast<int>(words.size()), argv.data());
    } catch (const ozram::cli::UsageError& error) {
        return error.what();
    }
    return "no error";
}

// Worded as every tool words them, naming the flag rather than the setting.
TEST(Options, UsageErrorsNameTheFlag) {
    EXPECT_EQ(error_of_flags({"ozramd", "--batch-size", "0"}),
              "--batch-size: expected an integer in 1..65536, got '0'");
    EXPECT_EQ(error_of_flags({"ozramd", "--huge-threshold", "4097"}),
              "--huge-threshold: expected an integer in 1..4096, got '4097'");
    EXPECT_EQ(error_of_flags({"ozramd", "--backend", "tpu"}),
              "--backend: expected auto, cpu, scalar or gpu, got 'tpu'");
    EXPECT_EQ(error_of_flags({"ozramd", "--bogus"}), "unknown option '--bogus'");
    EXPECT_EQ(error_of_flags({"ozramd", "-vx"}), "unknown option '-x'");
    EXPECT_EQ(error_of_flags({"ozramd", "--threads"}), "option '--threads' needs an argument");
    EXPECT_EQ(error_of_flags({"ozramd", "stray"}), "unexpected argument 'stray'");
}

// An empty name is no ring: it must not fall back to the kernel's device,
// nor slip past the check that --shm and --device exclude each other.
TEST(Options, AnEmptyRingNameOrPathIsAUsageError) {
    EXPECT_EQ(error_of_flags({"ozramd", "--shm", ""}),
              "--shm: expected the name of a shared memory ring, got ''");
    EXPECT_EQ(error_of_flags({"ozramd", "--device", ""}),
              "--device: expected the path of a ring device, got ''");
    EXPECT_NE(error_of_flags({"ozramd", "--shm", "", "--device", "/dev/x"}), "no error");
    EXPECT_NE(error_of_flags({"ozramd", "--device", "", "--shm", "ring0"}), "no error");
}

}  // namespace
