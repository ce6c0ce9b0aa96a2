// The least-squares fit behind calibration, on known lines.
#include "model/linear_fit.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ozram {
namespace {

constexpr double SIZES[] = {1, 2, 4, 8, 16, 64, 256, 512, 1024};

TEST(LinearFit, RecoversAnExactLine) {
    std::vector<TimingSample> samples;
    for (const double n : SIZES) {
        samples.push_back({n, 500 + 3000 * n});
    }
    const LinearCost cost = fit_linear_cost(samples);
    EXPECT_NEAR(cost.fixed_ns, 500, 1e-6);
    EXPECT_NEAR(cost.per_page_ns, 3000, 1e-9);
}

TEST(LinearFit, SmallNoiseGivesACloseLine) {
    std::vector<TimingSample> samples;
    bool up = true;
    for (const double n : SIZES) {
        samples.push_back({n, (20'000 + 1000 * n) * (up ? 1.03 : 0.97)});
        up = !up;
    }
    const LinearCost cost = fit_linear_cost(samples);
    EXPECT_NEAR(cost.fixed_ns, 20'000, 2'000);
    EXPECT_NEAR(cost.per_page_ns, 1000, 100);
}

TEST(LinearFit, RelativeWeightsKeepTheFixedCostOfSmallBatches) {
    // One large batch 20% slow must not swamp what 1- and 2-page batches say
    // about the fixed cost, as plain least squares would let it.
    std::vector<TimingSample> samples{{1, 10'500}, {2, 11'000}, {4, 12'000}, {1024, 1.2 * 522'000}};
    const LinearCost cost = fit_linear_cost(samples);
    EXPECT_NEAR(cost.fixed_ns, 10'000, 1'000);
}

TEST(LinearFit, NegativeInterceptIsRefittedThroughTheOrigin) {
    std::vector<TimingSample> samples;
    for (const double n : SIZES) {
        samples.push_back({n, 3000 * n - 400});
    }
    const LinearCost cost = fit_linear_cost(samples);
    EXPECT_EQ(cost.fixed_ns, 0);
    EXPECT_GT(cost.per_page_ns, 2000);
    EXPECT_LT(cost.per_page_ns, 3000);
}

TEST(LinearFit, OneBatchSizeGivesALineThroughTheOrigin) {
    const std::vector<TimingSample> samples{{64, 6400}, {64, 6400}, {64, 6400}};
    const LinearCost cost = fit_linear_cost(samples);
    EXPECT_EQ(cost.fixed_ns, 0);
    EXPECT_DOUBLE_EQ(cost.per_page_ns, 100);
}

TEST(LinearFit, NothingMeasuredIsAZeroLine) {
    EXPECT_EQ(fit_linear_cost({}).per_page_ns, 0);
    const std::vector<TimingSample> zero_times{{1, 0}, {8, 0}};
    EXPECT_EQ(fit_linear_cost(zero_times).per_page_ns, 0);
}

}  // namespace
}  // namespace ozram
