#include "text_output.hpp"

#include <algorithm>
#include <string_view>

#include "ozram_genl.h"
#include "size_format.hpp"

namespace ozramctl {
namespace {

constexpr std::string_view NOT_REPORTED = "n/a";

const StatField& field_named(std::string_view key) {
    return stat_fields()[*find_stat_field(key)];
}

std::string value_named(const StatsRecord& record, std::string_view key,
                        const TextOptions& options) {
    return format_value(field_named(key), record.value(key), options);
}

std::string title(const StatsRecord& record, const TextOptions& options) {
    const std::string size = value_named(record, "disksize", options);
    if (record.num_devices) {
        return "total: " + std::to_string(*record.num_devices) +
               (*record.num_devices == 1 ? " device" : " devices") + ", disksize " + size;
    }
    const auto initstate = record.value("initstate");
    return record.dev_name + ": disksize " + size +
           (initstate && *initstate ? ", initialized" : ", not initialized");
}

}  // namespace

std::string format_value(const StatField& field, const std::optional<std::uint64_t>& value,
                         const TextOptions& options) {
    if (!value) {
        return std::string(NOT_REPORTED);
    }
    switch (field.unit) {
        case Unit::bytes:
            return options.bytes ? std::to_string(*value) : human_size(*value);
        case Unit::count:
            return std::to_string(*value);
        case Unit::flag:
            return *value ? "yes" : "no";
        case Unit::pid:
            return *value ? std::to_string(*value) : "-";
        case Unit::agent_state:
            return *value == OZRAM_AGENT_ATTACHED ? "attached" : "detached";
    }
    return std::string(NOT_REPORTED);
}

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        widths.resize(std::max(widths.size(), row.size()));
        for (std::size_t column = 0; column < row.size(); ++column) {
            widths[column] = std::max(widths[column], row[column].size());
        }
    }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            const std::string& cell = row[column];
            const std::string pad(widths[column] - cell.size(), ' ');
            if (column == 0) {
                line += cell + pad;
            } else {
                line += "  " + pad + cell;
            }
        }
        // Trailing blanks of a left-aligned last column serve no one.
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + '\n';
    }
    return out;
}

std::string text_devices(const std::vector<StatsRecord>& devices, const TextOptions& options) {
    std::vector<std::vector<std::string>> rows = {{"NAME", "DISKSIZE", "INITIALIZED"}};
    for (const auto& device : devices) {
        rows.push_back({device.dev_name, value_named(device, "disksize", options),
                        value_named(device, "initstate", options)});
    }
    return render_table(rows);
}

std::string text_stats(const StatsRecord& record, const TextOptions& options) {
    std::string out = title(record, options) + '\n';
    const auto fields = stat_fields();
    for (Section section :
         {Section::mm_stat, Section::io_stat, Section::debug_stat, Section::bd_stat,
          Section::backend_stat, Section::agent, Section::ring}) {
        std::vector<std::string> names = {"    " + std::string(section_name(section)) + ':'};
        std::vector<std::string> values = {""};
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].section == section) {
                names.emplace_back(fields[i].key);
                values.push_back(format_value(fields[i], record.values[i], options));
            }
        }
        out += render_table({names, values});
    }
    return out;
}

std::string text_agent(const StatsRecord& total, const TextOptions& options) {
    // The agent's state, then what it and the ring did, by the numbers'
    // names: a table whose value column is left-aligned reads as
    // "name: value".
    std::vector<std::vector<std::string>> rows;
    const auto fields = stat_fields();
    for (Section section : {Section::agent, Section::backend_stat, Section::ring}) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].section == section) {
                rows.push_back({std::string(fields[i].key) + ':',
                                format_value(fields[i], total.values[i], options)});
            }
        }
    }
    std::size_t width = 0;
    for (const auto& row : rows) {
        width = std::max(width, row[0].size());
    }
    std::string out;
    for (const auto& row : rows) {
        out += row[0] + std::string(width - row[0].size() + 1, ' ') + row[1] + '\n';
    }
    return out;
}

}  // namespace ozramctl
