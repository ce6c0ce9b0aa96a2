#include "json_output.hpp"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <ranges>

#include "ozram_genl.h"

namespace ozramctl {
namespace {

std::string json_value(const StatField& field, const std::optional<std::uint64_t>& value) {
    if (!value) {
        return "null";
    }
    if (field.unit == Unit::agent_state) {
        return *value == OZRAM_AGENT_ATTACHED ? "\"attached\"" : "\"detached\"";
    }
    return std::to_string(*value);
}

// The members of one record: identity, then the fields of the given
// sections, the ring ones nested under "ring".
std::string json_members(const StatsRecord& record, std::initializer_list<Section> sections) {
    std::string out;
    auto add = [&out](std::string_view key, const std::string& value) {
        if (!out.empty()) {
            out += ',';
        }
        out += json_string(key) + ':' + value;
    };
    if (record.dev_id) {
        add("dev_id", std::to_string(*record.dev_id));
    }
    if (!record.dev_name.empty()) {
        add("dev_name", json_string(record.dev_name));
    }
    if (record.num_devices) {
        add("num_devices", std::to_string(*record.num_devices));
    }
    const auto fields = stat_fields();
    std::string ring;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const StatField& field = fields[i];
        if (std::ranges::find(sections, field.section) == sections.end()) {
            continue;
        }
        const std::string value = json_value(field, record.values[i]);
        if (field.section == Section::ring) {
            if (!ring.empty()) {
                ring += ',';
            }
            ring += json_string(field.key) + ':' + value;
        } else {
            add(field.key, value);
        }
    }
    if (std::ranges::find(sections, Section::ring) != sections.end()) {
        add("ring", '{' + ring + '}');
    }
    return out;
}

constexpr std::initializer_list<Section> ALL_SECTIONS = {
    Section::device,  Section::mm_stat,      Section::io_stat, Section::debug_stat,
    Section::bd_stat, Section::backend_stat, Section::agent,   Section::ring};

}  // namespace

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + '"';
}

std::string json_stats(const StatsRecord& record) {
    return '{' + json_members(record, ALL_SECTIONS) + '}';
}

std::string json_stats_all(const std::vector<StatsRecord>& devices, const StatsRecord& total) {
    std::string out = "{\"devices\":[";
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        out += json_stats(devices[i]);
    }
    return out + "],\"total\":" + json_stats(total) + '}';
}

std::string json_devices(const std::vector<StatsRecord>& devices) {
    std::string out = "{\"devices\":[";
    for (std::size_t i = 0; i < devices.size(); ++i) {
        out += (i ? ",{" : "{") + json_members(devices[i], {Section::device}) + '}';
    }
    return out + "]}";
}

std::string json_agent(const StatsRecord& total) {
    return '{' + json_members(total, {Section::agent, Section::backend_stat, Section::ring}) + '}';
}

}  // namespace ozramctl
