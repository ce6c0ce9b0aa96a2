// Fitting time = fixed + n * per_page to measured batch times.
#pragma once

#include <span>

#include "ozram/cost_model.hpp"

namespace ozram {

// One measurement: a batch of `pages` pages took `ns` nanoseconds.
struct TimingSample {
    double pages;
    double ns;
};

// Least squares on relative error (weights 1 / ns^2), so that a microsecond
// off at one page counts as much as a millisecond off at a thousand: the
// crossover points depend on both ends.  A negative intercept (noise) is
// refitted through the origin.  Fewer than two distinct batch sizes give a
// line through the origin too.
[[nodiscard]] LinearCost fit_linear_cost(std::span<const TimingSample> samples);

}  // namespace ozram
