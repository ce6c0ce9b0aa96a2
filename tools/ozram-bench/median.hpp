// The statistic every throughput in the benchmark reports.  Kept free of
// C++20 so that the CUDA source can use it whatever dialect nvcc is given.
#pragma once

#include <algorithm>
#include <vector>

namespace ozram::bench {

// The median of the values (the mean of the middle two for an even count);
// 0 for none.
[[nodiscard]] inline double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    if (values.size() % 2 == 1) {
        return *middle;
    }
    return (*std::max_element(values.begin(), middle) + *middle) / 2.0;
}

}  // namespace ozram::bench
