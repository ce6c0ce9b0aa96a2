// The cost model: predictions, crossovers, the backend choice, the offload rule.
#include "ozram/cost_model.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

namespace ozram {
namespace {

int rank(Backend backend) {
    switch (backend) {
        case Backend::Scalar:
            return 0;
        case Backend::Cpu:
            return 1;
        case Backend::Gpu:
            return 2;
    }
    return -1;
}

CostModel example_model() {
    CostModel model;
    model.scalar = {.fixed_ns = 100, .per_page_ns = 4000};
    model.cpu = {.fixed_ns = 30'000, .per_page_ns = 1000};
    model.gpu = GpuCost{.fixed_ns = 200'000, .pcie_gbps = 25.6, .kernel_gbps = 40.96};
    return model;
}

// Puts the process-wide model back to the one a process starts with after
// each test that changes it.
class ActiveModelTest : public testing::Test {
  protected:
    void TearDown() override { set_active_cost_model(CostModel::defaults()); }
};

TEST(CostModel, LinearPrediction) {
    const LinearCost cost{.fixed_ns = 10, .per_page_ns = 3};
    EXPECT_DOUBLE_EQ(cost.predict_ns(0), 10);
    EXPECT_DOUBLE_EQ(cost.predict_ns(5), 25);
}

TEST(CostModel, GpuPredictionUsesTheSlowerStage) {
    const GpuCost gpu{.fixed_ns = 1000, .pcie_gbps = 10, .kernel_gbps = 20};
    EXPECT_DOUBLE_EQ(gpu.predict_ns(100), 1000 + 100 * 4096 / 10.0);
    const GpuCost kernel_bound{.fixed_ns = 1000, .pcie_gbps = 50, .kernel_gbps = 8};
    EXPECT_DOUBLE_EQ(kernel_bound.predict_ns(100), 1000 + 100 * 4096 / 8.0);
    EXPECT_DOUBLE_EQ(gpu.predict_ns(0), 1000);
}

TEST(CostModel, GpuWithoutBandwidthNeverFinishes) {
    const GpuCost dead{.fixed_ns = 1000, .pcie_gbps = 0, .kernel_gbps = 20};
    EXPECT_TRUE(std::isinf(dead.predict_ns(1)));
}

TEST(CostModel, PredictPerBackend) {
    CostModel model = example_model();
    EXPECT_DOUBLE_EQ(model.predict_ns(Backend::Scalar, 10), 100 + 40'000);
    EXPECT_DOUBLE_EQ(model.predict_ns(Backend::Cpu, 10), 30'000 + 10'000);
    EXPECT_DOUBLE_EQ(model.predict_ns(Backend::Gpu, 10), 200'000 + 10 * 4096 / 25.6);
    model.gpu.reset();
    EXPECT_TRUE(std::isinf(model.predict_ns(Backend::Gpu, 10)));
}

TEST(CostModel, CrossoverFollowsTheFormula) {
    const CostModel model = example_model();
    // n* = (F_cpu - F_scalar) / (c_scalar - c_cpu) = 29900 / 3000 = 9.97
    EXPECT_EQ(model.crossover(Backend::Scalar, Backend::Cpu), 10u);
    EXPECT_GT(model.predict_ns(Backend::Cpu, 9), model.predict_ns(Backend::Scalar, 9));
    EXPECT_LT(model.predict_ns(Backend::Cpu, 10), model.predict_ns(Backend::Scalar, 10));
    // GPU per page: 4096 / 25.6 = 160 ns; n* = (200000 - 30000) / (1000 - 160) = 202.4
    EXPECT_EQ(model.crossover(Backend::Cpu, Backend::Gpu), 203u);
}

TEST(CostModel, CrossoverAtAnExactBreakEvenNeedsStrictlyFaster) {
    CostModel model;
    model.scalar = {.fixed_ns = 0, .per_page_ns = 2000};
    model.cpu = {.fixed_ns = 10'000, .per_page_ns = 1000};
    // Equal at 10 pages: Cpu is faster from 11 on.
    EXPECT_EQ(model.crossover(Backend::Scalar, Backend::Cpu), 11u);
}

TEST(CostModel, NoCrossoverWhenTheFasterIsNeverFaster) {
    CostModel model = example_model();
    EXPECT_EQ(model.crossover(Backend::Cpu, Backend::Scalar), std::nullopt);
    model.cpu = model.scalar;
    EXPECT_EQ(model.crossover(Backend::Scalar, Backend::Cpu), std::nullopt);
    model.cpu.fixed_ns = 50;  // same slope, cheaper start: faster everywhere
    EXPECT_EQ(model.crossover(Backend::Scalar, Backend::Cpu), 1u);
    model.gpu.reset();
    EXPECT_EQ(model.crossover(Backend::Cpu, Backend::Gpu), std::nullopt);
}

TEST(CostModel, NanInAModelNeverCrossesOver) {
    CostModel model = example_model();
    model.cpu.fixed_ns = std::nan("");
    EXPECT_EQ(model.crossover(Backend::Scalar, Backend::Cpu), std::nullopt);
    EXPECT_EQ(model.select(1000, false), Backend::Scalar);
}

TEST(CostModel, SelectFollowsTheCrossovers) {
    const CostModel model = example_model();
    EXPECT_EQ(model.select(1, true), Backend::Scalar);
    EXPECT_EQ(model.select(9, true), Backend::Scalar);
    EXPECT_EQ(model.select(10, true), Backend::Cpu);
    EXPECT_EQ(model.select(202, true), Backend::Cpu);
    EXPECT_EQ(model.select(203, true), Backend::Gpu);
    EXPECT_EQ(model.select(1'000'000, true), Backend::Gpu);
    EXPECT_EQ(model.select(1'000'000, false), Backend::Cpu);
}

// Random models over several orders of magnitude, including odd ones where a
// plain argmin would flip back and forth.
CostModel random_model(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> exponent(0, 6);
    const auto draw = [&] { return std::pow(10.0, exponent(rng)); };
    CostModel model;
    model.scalar = {.fixed_ns = draw(), .per_page_ns = draw()};
    model.cpu = {.fixed_ns = draw(), .per_page_ns = draw()};
    if (rng() % 4 != 0) {
        model.gpu =
            GpuCost{.fixed_ns = draw(), .pcie_gbps = draw() / 1000, .kernel_gbps = draw() / 1000};
    }
    return model;
}

TEST(CostModel, SelectIsMonotoneInBatchSizeForManyModels) {
    std::mt19937_64 rng(11);
    for (int m = 0; m < 2000; ++m) {
        const CostModel model = random_model(rng);
        for (const bool has_gpu : {false, true}) {
            int previous = 0;
            for (std::size_t pages = 1; pages <= 10'000'000; pages = pages * 5 / 4 + 1) {
                const Backend choice = model.select(pages, has_gpu);
                ASSERT_GE(rank(choice), previous) << "model " << m << " at " << pages << " pages";
                previous = rank(choice);
                if (!has_gpu || !model.gpu) {
                    ASSERT_NE(choice, Backend::Gpu) << "model " << m;
                }
            }
        }
    }
}

TEST(CostModel, SelectPicksTheFastestForLargeBatches) {
    std::mt19937_64 rng(12);
    for (int m = 0; m < 2000; ++m) {
        const CostModel model = random_model(rng);
        const std::size_t huge = 1'000'000'000'000;
        const Backend choice = model.select(huge, true);
        for (const Backend other : {Backend::Scalar, Backend::Cpu, Backend::Gpu}) {
            EXPECT_LE(model.predict_ns(choice, huge), model.predict_ns(other, huge))
                << "model " << m << ": " << to_string(choice) << " vs " << to_string(other);
        }
    }
}

TEST(CostModel, DefaultsNeverOffload) {
    const CostModel model = CostModel::defaults();
    EXPECT_FALSE(model.gpu.has_value());
    EXPECT_EQ(model.select(1, true), Backend::Scalar);
    EXPECT_NE(model.select(1'000'000, true), Backend::Gpu);
    EXPECT_GT(model.scalar.per_page_ns, 0);
    EXPECT_GT(model.cpu.per_page_ns, 0);
}

TEST_F(ActiveModelTest, SelectBackendUsesTheActiveModel) {
    set_active_cost_model(example_model());
    EXPECT_EQ(select_backend(5, true), Backend::Scalar);
    EXPECT_EQ(select_backend(50, true), Backend::Cpu);
    EXPECT_EQ(select_backend(5000, true), Backend::Gpu);
    EXPECT_EQ(select_backend(5000, false), Backend::Cpu);
    CostModel cpu_only = example_model();
    cpu_only.gpu.reset();
    set_active_cost_model(cpu_only);
    EXPECT_EQ(select_backend(5000, true), Backend::Cpu);
}

// Every installed model puts the Scalar -> Cpu crossover at 11 pages (n* =
// 10 i / (2 i - i) = 10); one read half from one model and half from another
// would not.  Readers go through select_backend(), as the agent does.
TEST_F(ActiveModelTest, ConcurrentReadersSeeWholeModels) {
    const auto model_number = [](int i) {
        CostModel model;
        model.scalar = {.fixed_ns = 0, .per_page_ns = 2.0 * i};
        model.cpu = {.fixed_ns = 10.0 * i, .per_page_ns = double(i)};
        return model;
    };
    set_active_cost_model(model_number(1));
    ASSERT_EQ(select_backend(10, false), Backend::Scalar);
    ASSERT_EQ(select_backend(11, false), Backend::Cpu);
    std::atomic<bool> stop{false};
    std::atomic<int> torn{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 2; ++r) {
        readers.emplace_back([&] {
            while (!stop.load()) {
                if (select_backend(10, false) != Backend::Scalar ||
                    select_backend(11, false) != Backend::Cpu) {
                    ++torn;
                }
            }
        });
    }
    for (int i = 2; i <= 2000; ++i) {
        set_active_cost_model(model_number(i));
    }
    stop = true;
    for (std::thread& reader : readers) {
        reader.join();
    }
    EXPECT_EQ(torn.load(), 0);
}

}  // namespace
}  // namespace ozram
