// Writes the measurements as a table for people, or as JSON lines or CSV.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "measurement.hpp"

namespace ozram::bench {

// The keys of a JSON row and the columns of the CSV, in order.
[[nodiscard]] std::string csv_header();
[[nodiscard]] std::string csv_row(const Measurement& m);
[[nodiscard]] std::string json_row(const Measurement& m);

// The human table; ends with how the cpu backend compares with liblz4-N when
// both were measured: the ratio of the medians, the median of the per-pass
// ratios (steadier on a busy machine), and the stored bytes.
void print_table(std::ostream& out, std::span<const Measurement> rows);

}  // namespace ozram::bench
