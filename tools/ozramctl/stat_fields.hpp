// The statistics ozramctl knows, as one table: where each value comes from in
// the generic netlink answer, its JSON key and how it is shown.  A counter the
// module starts to report is one new row here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backing.hpp"
#include "latency.hpp"

namespace ozramctl {

// Where a value sits in a GET_STATS answer.
enum class Source {
    top,           // a top-level OZRAM_ATTR_*
    nested_ring,   // nested in OZRAM_ATTR_RING: an OZRAM_RING_ATTR_*
    not_reported,  // not in the netlink ABI yet: shown as "n/a" / null
};

// How a value is printed for people.
enum class Unit {
    bytes,        // K/M/G unless --bytes
    count,        // a plain number (pages, events, slots)
    flag,         // 0/1: "no"/"yes"
    pid,          // a process id, 0 for none: "-"
    agent_state,  // enum ozram_agent_state: "detached"/"attached"
};

// The block of the human output (and of the JSON object) a value belongs to.
enum class Section {
    device,
    mm_stat,
    io_stat,
    debug_stat,
    backend_stat,
    agent,
    ring,
};

// What a value is to a monitoring system (Prometheus's metric types).
enum class Kind {
    counter,  // events since a start: only grows, except when reset
    gauge,    // a value of the present
};

// How a value is exported as a Prometheus metric: "ozram_" + name, then
// "_bytes" for Unit::bytes and "_total" for a counter.  Rows that share a
// name (adjacent in the table) are one family told apart by the "backend"
// label.  An empty name exports nothing (a value another row exports).
struct MetricExport {
    Kind kind = Kind::gauge;
    std::string_view name;
    std::string_view backend;  // the "backend" label's value, or empty
    std::string_view help;     // the HELP text
};

constexpr MetricExport counter_metric(std::string_view name, std::string_view help) {
    return {Kind::counter, name, {}, help};
}
constexpr MetricExport gauge_metric(std::string_view name, std::string_view help) {
    return {Kind::gauge, name, {}, help};
}
inline constexpr MetricExport NOT_EXPORTED{};

struct StatField {
    std::string_view key;  // JSON key: the attribute name in snake_case
    Section section;
    Source source;
    int attr;        // OZRAM_ATTR_* or OZRAM_RING_ATTR_*; 0 when not reported
    int width_bits;  // 8, 32 or 64: the attribute's netlink type
    Unit unit;
    MetricExport metric;
};

// Every field, in output order.
std::span<const StatField> stat_fields();

// The index of a field in stat_fields(), for tests and the agent view.
std::optional<std::size_t> find_stat_field(std::string_view key);

std::string_view section_name(Section section);

// One device (or the total): a value per row of stat_fields(), empty where
// the module did not send it.
struct StatsRecord {
    std::optional<std::uint32_t> dev_id;
    std::string dev_name;                      // empty for the total
    std::optional<std::uint32_t> num_devices;  // set for the total only
    std::vector<std::optional<std::uint64_t>> values =
        std::vector<std::optional<std::uint64_t>>(stat_fields().size());
    LatencyRecord latency;  // OZRAM_ATTR_LATENCY
    // bd_stat, from sysfs: not in the netlink answer.  Empty where the
    // device has no bd_stat file; for the total, the sum of those that have.
    std::optional<BackingStat> backing;

    std::optional<std::uint64_t> value(std::string_view key) const;
};

}  // namespace ozramctl
