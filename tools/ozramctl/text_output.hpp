// ozramctl's output for people: aligned columns in the manner of zramctl and
// "ip -s", sizes in binary K/M/G unless --bytes, "n/a" for what the module
// does not report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stat_fields.hpp"

namespace ozramctl {

struct TextOptions {
    bool bytes = false;  // sizes in bytes
};

// One value as shown in a table.
std::string format_value(const StatField& field, const std::optional<std::uint64_t>& value,
                         const TextOptions& options);

// Rows of cells, the first one the header; columns separated by two spaces,
// the first column left-aligned and the others right-aligned.
std::string render_table(const std::vector<std::vector<std::string>>& rows);

// NAME DISKSIZE INITIALIZED, one line per device.
std::string text_devices(const std::vector<StatsRecord>& devices, const TextOptions& options);

// One block per record: a title line, then per section a line of names over
// a line of values.
std::string text_stats(const StatsRecord& record, const TextOptions& options);

// The agent view: "name  value" lines.
std::string text_agent(const StatsRecord& total, const TextOptions& options);

}  // namespace ozramctl
