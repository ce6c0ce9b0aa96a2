#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "report.hpp"

namespace ozram::bench {
namespace {

Measurement sample() {
    return Measurement{.backend = "liblz4-16",
                       .threads = 16,
                       .batch = 1024,
                       .repeats = 5,
                       .pages = 2048,
                       .bytes_in = 2048 * 4096,
                       .bytes_out = 2048 * 1024,
                       .compress_gbps = 3.25,
                       .decompress_gbps = 12.5,
                       .verified_pages = 2048,
                       .mismatches = 0};
}

std::size_t count(const std::string& text, char c) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

TEST(BenchReport, JsonRowHasEveryKey) {
    const auto row = json_row(sample());
    for (const char* key : {"backend", "pages", "bytes_in", "bytes_out", "ratio", "compress_gbps",
                            "decompress_gbps", "verified_pages", "mismatches", "threads", "batch",
                            "repeats", "raw_pages", "same_filled_pages", "kernel_gbps"}) {
        const auto quoted = std::string("\"").append(key).append("\": ");
        EXPECT_NE(row.find(quoted), std::string::npos) << key;
    }
    EXPECT_NE(row.find("\"backend\": \"liblz4-16\""), std::string::npos);
    EXPECT_NE(row.find("\"ratio\": 4.0000"), std::string::npos);
    EXPECT_NE(row.find("\"mismatches\": 0, "), std::string::npos);
    EXPECT_NE(row.find("\"compress_gbps\": 3.2500, "), std::string::npos);
    EXPECT_EQ(row.back(), '}');
    EXPECT_EQ(row.front(), '{');
    EXPECT_EQ(count(row, '\n'), 0U);
}

TEST(BenchReport, InfiniteRatioIsJsonNull) {
    auto m = sample();
    m.bytes_out = 0;
    EXPECT_NE(json_row(m).find("\"ratio\": null"), std::string::npos);
    EXPECT_NE(csv_row(m).find(",inf,"), std::string::npos);
}

TEST(BenchReport, CsvRowMatchesHeader) {
    const auto header = csv_header();
    const auto row = csv_row(sample());
    EXPECT_EQ(count(header, ','), count(row, ','));
    EXPECT_EQ(header.rfind("backend,", 0), 0U);
    EXPECT_EQ(row.rfind("liblz4-16,16,1024,5,2048,", 0), 0U);
}

TEST(BenchReport, TableComparesCpuWithLiblz4OnTheSameThreads) {
    auto reference = sample();
    reference.compress_by_pass = {2.0, 2.0, 2.0};
    reference.decompress_by_pass = {4.0, 4.0};
    auto cpu = sample();
    cpu.backend = "cpu";
    cpu.compress_gbps = 3.25 * 0.5;
    cpu.decompress_gbps = 12.5 * 2;
    cpu.bytes_out += 100;
    cpu.compress_by_pass = {1.0, 2.0, 3.0};  // pairs: 0.5, 1.0, 1.5
    cpu.decompress_by_pass = {2.0, 6.0};     // pairs: 0.5, 1.5
    const std::vector<Measurement> rows{cpu, reference};
    std::ostringstream out;
    print_table(out, rows);
    const auto text = out.str();
    EXPECT_NE(text.find("cpu vs liblz4-16"), std::string::npos) << text;
    EXPECT_NE(text.find("medians:       compress 0.500x, decompress 2.000x"), std::string::npos)
        << text;
    EXPECT_NE(text.find("pass by pass:  compress 1.000x, decompress 1.000x"), std::string::npos)
        << text;
    EXPECT_NE(text.find("stored bytes:  2097252 vs 2097152 (+100), ratio 0.99995x"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("same ratio:    yes (within 0.1 % of liblz4-16's stored bytes)"),
              std::string::npos)
        << text;
}

TEST(BenchReport, TableComparesCpuWithTheFormatsLibrary) {
    auto reference = sample();
    reference.backend = "libzstd-16";
    auto cpu = sample();
    cpu.backend = "cpu";
    cpu.compress_gbps = 3.25 * 0.96;
    cpu.bytes_out = reference.bytes_out + reference.bytes_out / 500;  // 0.2 % more
    // The liblz4 row of the same threads is not the reference of zstd pages.
    auto lz4 = sample();
    const std::vector<Measurement> rows{cpu, reference, lz4};
    std::ostringstream out;
    print_table(out, rows, "libzstd");
    const auto text = out.str();
    EXPECT_NE(text.find("cpu vs libzstd-16"), std::string::npos) << text;
    EXPECT_EQ(text.find("cpu vs liblz4"), std::string::npos) << text;
    EXPECT_NE(text.find("medians:       compress 0.960x"), std::string::npos) << text;
    EXPECT_NE(text.find("same ratio:    NO (within 0.1 % of libzstd-16's stored bytes)"),
              std::string::npos)
        << text;
}

TEST(BenchReport, SameRatioIsWithinATenthOfAPercentEitherWay) {
    auto reference = sample();
    reference.bytes_out = 1'000'000;
    auto row = reference;
    for (const std::uint64_t bytes : {1'000'000ULL, 1'001'000ULL, 999'000ULL}) {
        row.bytes_out = bytes;
        EXPECT_TRUE(same_ratio(row, reference)) << bytes;
    }
    for (const std::uint64_t bytes : {1'001'001ULL, 998'999ULL, 0ULL}) {
        row.bytes_out = bytes;
        EXPECT_FALSE(same_ratio(row, reference)) << bytes;
    }
}

TEST(BenchReport, NoComparisonWithoutTheReferenceOfTheSameThreads) {
    auto cpu = sample();
    cpu.backend = "cpu";
    cpu.threads = 8;  // the reference row is liblz4-16
    const std::vector<Measurement> rows{cpu, sample()};
    std::ostringstream out;
    print_table(out, rows);
    EXPECT_EQ(out.str().find("cpu vs"), std::string::npos);
}

// A row with a page that did not round-trip reports no throughput: its
// failed batches took less time than the work would have.
TEST(BenchReport, NoThroughputWhenAPageDidNotRoundTrip) {
    auto m = sample();
    m.kernel_gbps = 99.0;
    m.verified_pages = 2047;
    m.mismatches = 1;
    const auto json = json_row(m);
    for (const char* key : {"compress_gbps", "decompress_gbps", "kernel_gbps"}) {
        EXPECT_NE(json.find(std::string("\"") + key + "\": null"), std::string::npos)
            << key << " in " << json;
    }
    EXPECT_EQ(json.find("3.25"), std::string::npos) << json;
    const auto csv = csv_row(m);
    EXPECT_EQ(count(csv, ','), count(csv_header(), ','));
    EXPECT_EQ(csv.find("3.25"), std::string::npos) << csv;

    auto cpu = m;
    cpu.backend = "cpu";
    const std::vector<Measurement> rows{cpu, sample()};
    std::ostringstream out;
    print_table(out, rows);
    const auto text = out.str();
    EXPECT_EQ(text.find("3.250"), text.rfind("3.250")) << "only the good row's figure: " << text;
    EXPECT_EQ(text.find("12.500"), text.rfind("12.500")) << text;
    EXPECT_EQ(text.find("kernel alone"), std::string::npos) << text;
    EXPECT_NE(text.find("cpu vs liblz4-16: not compared, 1 page(s) of cpu did not round-trip"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("medians:"), std::string::npos) << text;
}

}  // namespace
}  // namespace ozram::bench
