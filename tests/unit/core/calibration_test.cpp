// CostModel::calibrate() on this machine: structure only, no timing claims.
#include <gtest/gtest.h>

#include <cmath>

#include "ozram/cost_model.hpp"
#include "ozram/gpu.hpp"

namespace ozram {
namespace {

TEST(Calibration, ProducesAUsableModel) {
    const CostModel model = CostModel::calibrate(60);
    for (const LinearCost& cost : {model.scalar, model.cpu}) {
        EXPECT_TRUE(std::isfinite(cost.fixed_ns));
        EXPECT_GE(cost.fixed_ns, 0);
        EXPECT_TRUE(std::isfinite(cost.per_page_ns));
        EXPECT_GT(cost.per_page_ns, 0);
    }
    if (!gpu_available()) {
        EXPECT_FALSE(model.gpu.has_value());
    } else if (model.gpu) {
        EXPECT_GT(model.gpu->pcie_gbps, 0);
        EXPECT_GT(model.gpu->kernel_gbps, 0);
    }
    // It survives its own text form and makes a monotone choice (Scalar, then Cpu).
    const CostModel parsed = CostModel::parse(model.serialize());
    EXPECT_EQ(parsed.cpu.per_page_ns, model.cpu.per_page_ns);
    int previous = 0;
    for (std::size_t pages = 1; pages < 100'000; pages *= 2) {
        const int rank = parsed.select(pages, false) == Backend::Scalar ? 0 : 1;
        EXPECT_GE(rank, previous) << pages << " pages";
        previous = rank;
    }
}

}  // namespace
}  // namespace ozram
