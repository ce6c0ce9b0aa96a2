#include "bench_options.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "cli/usage_error.hpp"

namespace ozram::bench {
namespace {

TEST(BenchOptions, Defaults) {
    const auto o = parse_options({"--input", "c.bin"});
    EXPECT_EQ(o.input, "c.bin");
    EXPECT_EQ(o.backend, BackendChoice::All);
    EXPECT_EQ(o.threads, 0U);
    EXPECT_EQ(o.batch, 1024U);
    EXPECT_EQ(o.repeats, 5U);
    EXPECT_EQ(o.max_pages, 0U);
    EXPECT_EQ(o.huge_threshold, 3071U);  // DEFAULT_HUGE_THRESHOLD
    EXPECT_EQ(o.format, OutputFormat::Table);
    EXPECT_EQ(o.algorithm, Algorithm::Lz4);
}

TEST(BenchOptions, AlgorithmTakesTheKernelsNames) {
    for (const auto& [name, algorithm] :
         {std::pair{"lz4", Algorithm::Lz4}, std::pair{"lz4hc", Algorithm::Lz4hc},
          std::pair{"lzo", Algorithm::Lzo}, std::pair{"lzo-rle", Algorithm::LzoRle},
          std::pair{"zstd", Algorithm::Zstd}}) {
        EXPECT_EQ(parse_options({"--input", "x", "--algorithm", name}).algorithm, algorithm)
            << name;
    }
    // Every backend but the GPU's takes every format.
    const auto o = parse_options({"--algorithm", "zstd", "--input", "x", "--backend", "cpu"});
    EXPECT_EQ(o.algorithm, Algorithm::Zstd);
    EXPECT_EQ(o.backend, BackendChoice::Cpu);
    EXPECT_EQ(parse_options({"--input", "x", "--algorithm", "lz4", "--backend", "gpu"}).backend,
              BackendChoice::Gpu);
}

TEST(BenchOptions, ModuleWork) {
    const auto o = parse_options({"--input", "x", "--backend", "module", "--algorithm", "zstd"});
    EXPECT_EQ(o.backend, BackendChoice::Module);
    EXPECT_FALSE(o.cold);
    EXPECT_FALSE(o.batch_given) << "the module's rows take their own default batch";
    const auto cold = parse_options({"--input", "x", "--backend", "module", "--cold", "--csv"});
    EXPECT_TRUE(cold.cold);
    EXPECT_EQ(cold.format, OutputFormat::Csv);
    EXPECT_TRUE(parse_options({"--input", "x", "--backend", "module", "--batch", "8"}).batch_given);
    EXPECT_THROW(parse_options({"--input", "x", "--cold"}), cli::UsageError);
    EXPECT_THROW(parse_options({"--input", "x", "--backend", "module", "--json"}), cli::UsageError);
}

TEST(BenchOptions, ParsesEverything) {
    const auto o =
        parse_options({"--input", "c.bin", "--backend", "scalar", "--threads", "8", "--batch", "16",
                       "--repeat", "3", "--max-pages", "100", "--huge-threshold", "4096", "--csv"});
    EXPECT_EQ(o.backend, BackendChoice::Scalar);
    EXPECT_EQ(o.threads, 8U);
    EXPECT_EQ(o.batch, 16U);
    EXPECT_EQ(o.repeats, 3U);
    EXPECT_EQ(o.max_pages, 100U);
    EXPECT_EQ(o.huge_threshold, 4096U);
    EXPECT_EQ(o.format, OutputFormat::Csv);
    EXPECT_EQ(parse_options({"--input", "x", "--backend", "gpu", "--json"}).format,
              OutputFormat::Json);
    EXPECT_EQ(parse_options({"--input", "x", "--backend", "cpu"}).backend, BackendChoice::Cpu);
}

// Only the gpu row writes a timeline: a command line without it asks for
// a file that nothing would write.
TEST(BenchOptions, TimelineOnlyWithTheGpuRow) {
    EXPECT_EQ(parse_options({"--input", "x", "--backend", "gpu", "--timeline", "t.csv"}).timeline,
              "t.csv");
    EXPECT_EQ(parse_options({"--input", "x", "--timeline", "t.csv"}).timeline, "t.csv");
    for (const char* backend : {"cpu", "scalar", "kernels", "warp-steps", "module"}) {
        EXPECT_THROW(parse_options({"--input", "x", "--backend", backend, "--timeline", "t.csv"}),
                     cli::UsageError)
            << backend;
    }
    EXPECT_THROW(parse_options({"--input", "x", "--algorithm", "zstd", "--timeline", "t.csv"}),
                 cli::UsageError);
}

TEST(BenchOptions, ModesWithoutInput) {
    EXPECT_TRUE(parse_options({"--help"}).help);
    EXPECT_TRUE(parse_options({"--print-crossover"}).print_crossover);
}

TEST(BenchOptions, BadCommandLinesAreUsageErrors) {
    EXPECT_THROW((void)parse_options({}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--backend", "tpu"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--batch", "0"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--batch", "99999999"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--threads", "0"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--huge-threshold", "0"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--huge-threshold", "4097"}),
                 cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--repeat", "-1"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--repeat", "2x"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--json", "--csv"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "extra"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--algorithm"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--algorithm", "deflate"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--algorithm", "ZSTD"}), cli::UsageError);
    EXPECT_THROW((void)parse_options({"--input", "x", "--algorithm", "zstd", "--backend", "gpu"}),
                 cli::UsageError);
}

}  // namespace
}  // namespace ozram::bench
