// Writes the measurements as a table for people, or as JSON lines or CSV.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "measurement.hpp"

namespace ozram::bench {

// The keys of a JSON row and the columns of the CSV, in order.
[[nodiscard]] std::string csv_header();
[[nodiscard]] std::string csv_row(const Measurement& m);
[[nodiscard]] std::string json_row(const Measurement& m);

// How far the stored bytes of two rows may differ, as a fraction of the
// reference's, for them to count as the same ratio.
inline constexpr double SAME_RATIO_TOLERANCE = 0.001;

// Whether `row` stores the same bytes as `reference` within the tolerance.
[[nodiscard]] bool same_ratio(const Measurement& row, const Measurement& reference);

// The human table; ends with how the cpu backend compares with the reference
// library's row on the same threads (`reference_library`-N: liblz4-N,
// libzstd-N...) when both were measured: the ratio of the medians, the median
// of the per-pass ratios (steadier on a busy machine), the stored bytes, and
// whether the two have the same ratio (same_ratio()).
void print_table(std::ostream& out, std::span<const Measurement> rows,
                 std::string_view reference_library = "liblz4");

}  // namespace ozram::bench
