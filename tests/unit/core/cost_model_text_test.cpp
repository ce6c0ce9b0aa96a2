// The cost model's "key = value" text: round trips and rejected input.
#include <gtest/gtest.h>

#include <string>

#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"

namespace ozram {
namespace {

CostModel awkward_model() {
    CostModel model;
    model.scalar = {.fixed_ns = 123.456, .per_page_ns = 1.0 / 3.0};
    model.cpu = {.fixed_ns = 0, .per_page_ns = 987654321.125};
    model.gpu = GpuCost{.fixed_ns = 4.5e4, .pcie_gbps = 25.123456789, .kernel_gbps = 1e-3};
    return model;
}

void expect_same(const CostModel& a, const CostModel& b) {
    EXPECT_EQ(a.scalar.fixed_ns, b.scalar.fixed_ns);
    EXPECT_EQ(a.scalar.per_page_ns, b.scalar.per_page_ns);
    EXPECT_EQ(a.cpu.fixed_ns, b.cpu.fixed_ns);
    EXPECT_EQ(a.cpu.per_page_ns, b.cpu.per_page_ns);
    ASSERT_EQ(a.gpu.has_value(), b.gpu.has_value());
    if (a.gpu) {
        EXPECT_EQ(a.gpu->fixed_ns, b.gpu->fixed_ns);
        EXPECT_EQ(a.gpu->pcie_gbps, b.gpu->pcie_gbps);
        EXPECT_EQ(a.gpu->kernel_gbps, b.gpu->kernel_gbps);
    }
}

TEST(CostModelText, RoundTripIsExact) {
    const CostModel model = awkward_model();
    expect_same(CostModel::parse(model.serialize()), model);
}

TEST(CostModelText, RoundTripWithoutGpu) {
    CostModel model = awkward_model();
    model.gpu.reset();
    const std::string text = model.serialize();
    EXPECT_EQ(text.find("gpu."), std::string::npos);
    expect_same(CostModel::parse(text), model);
}

TEST(CostModelText, FormatIsKeyEqualsValue) {
    CostModel model;
    model.scalar = {.fixed_ns = 1234.5, .per_page_ns = 2000};
    model.cpu = {.fixed_ns = 30000, .per_page_ns = 250.25};
    const std::string text = model.serialize();
    EXPECT_NE(text.find("scalar.fixed_ns = 1234.5\n"), std::string::npos) << text;
    EXPECT_NE(text.find("cpu.per_page_ns = 250.25\n"), std::string::npos) << text;
}

TEST(CostModelText, MissingKeysKeepDefaultsAndLastValueWins) {
    const CostModel parsed = CostModel::parse(
        "# a comment\n"
        "\n"
        "   cpu.fixed_ns=5   \n"
        "cpu.fixed_ns = 7  # an override appended later\r\n");
    const CostModel defaults = CostModel::defaults();
    EXPECT_EQ(parsed.cpu.fixed_ns, 7);
    EXPECT_EQ(parsed.cpu.per_page_ns, defaults.cpu.per_page_ns);
    EXPECT_EQ(parsed.scalar.fixed_ns, defaults.scalar.fixed_ns);
    EXPECT_FALSE(parsed.gpu.has_value());
}

TEST(CostModelText, GpuNeedsItsRates) {
    const CostModel parsed = CostModel::parse("gpu.pcie_gbps = 25\ngpu.kernel_gbps = 100\n");
    ASSERT_TRUE(parsed.gpu.has_value());
    EXPECT_EQ(parsed.gpu->fixed_ns, DEFAULT_GPU_FIXED_NS);
    EXPECT_EQ(parsed.gpu->pcie_gbps, 25);
    EXPECT_THROW((void)CostModel::parse("gpu.fixed_ns = 100\n"), Error);
    EXPECT_THROW((void)CostModel::parse("gpu.pcie_gbps = 100\n"), Error);
}

TEST(CostModelText, EmptyTextIsTheDefaults) {
    const CostModel parsed = CostModel::parse("");
    const CostModel defaults = CostModel::defaults();
    EXPECT_EQ(parsed.scalar.per_page_ns, defaults.scalar.per_page_ns);
    EXPECT_EQ(parsed.cpu.fixed_ns, defaults.cpu.fixed_ns);
}

TEST(CostModelText, JunkIsRejectedNamingTheLine) {
    const char* junk[] = {
        "scalar.fixed_ns",           // no '='
        "= 5",                       // no key
        "scalar.fixed = 5",          // unknown key
        "scalar.fixed_ns = ",        // no value
        "scalar.fixed_ns = abc",     // not a number
        "scalar.fixed_ns = 12abc",   // trailing garbage
        "scalar.fixed_ns = 1 2",     // two numbers
        "scalar.fixed_ns = +5",      // from_chars takes no '+'
        "scalar.fixed_ns = -1",      // negative time
        "scalar.per_page_ns = inf",  // not finite
        "cpu.per_page_ns = nan",     // not a number either
        "gpu.pcie_gbps = 0",         // a rate must be positive
        "SCALAR.FIXED_NS = 5",       // keys are case-sensitive
    };
    for (const char* line : junk) {
        const std::string text = "# cached model\ncpu.fixed_ns = 1\n" + std::string(line) + "\n";
        try {
            (void)CostModel::parse(text);
            ADD_FAILURE() << "accepted: " << line;
        } catch (const Error& error) {
            EXPECT_EQ(error.code().value(), EINVAL) << line;
            EXPECT_NE(std::string(error.what()).find("line 3"), std::string::npos)
                << line << " -> " << error.what();
        }
    }
}

}  // namespace
}  // namespace ozram
