// The statistics ozramctl knows, as one table: where each value comes from in
// the generic netlink answer, its JSON key and how it is shown.  The numbers
// of a device and of the ring are made from the module's lists of them
// (shared/ozram_dev_stats.h, shared/ozram_ring_stats.h): a number the module
// starts to report needs nothing here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "latency.hpp"

namespace ozramctl {

// Where a value sits in a GET_STATS answer.
enum class Source {
    top,           // a top-level OZRAM_ATTR_*
    nested_stats,  // nested in OZRAM_ATTR_STATS: an OZRAM_STAT_ATTR_*
    nested_ring,   // nested in OZRAM_ATTR_RING: an OZRAM_RING_ATTR_*
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
// The device's numbers are in the section of the sysfs file that prints them.
enum class Section {
    device,
    mm_stat,
    io_stat,
    debug_stat,
    bd_stat,
    backend_stat,
    agent,
    ring,
};

// What a value is to a monitoring system (Prometheus's metric types).
enum class Kind {
    counter,  // events since a start: only grows, except when reset
    gauge,    // a value of the present
};

// How a value is exported as a Prometheus metric: "ozram_" + name, a name
// that follows Prometheus's rules (the unit in it, "_total" at the end of a
// counter).  An empty name exports nothing.
struct MetricExport {
    Kind kind = Kind::gauge;
    std::string_view name;
    std::string_view help;  // the HELP text
};

inline constexpr MetricExport NOT_EXPORTED{};

struct StatField {
    // The JSON key and the label; for a device's or the ring's number, its
    // one name, which is also its metric's.
    std::string_view key;
    Section section;
    Source source;
    int attr;        // OZRAM_ATTR_*, OZRAM_STAT_ATTR_* or OZRAM_RING_ATTR_*
    int width_bits;  // 8, 32 or 64: the attribute's netlink type
    Unit unit;
    MetricExport metric;
};

// Every field, in output order.
std::span<const StatField> stat_fields();

// The index of a field in stat_fields(), by key or by where it is.
std::optional<std::size_t> find_stat_field(std::string_view key);
std::optional<std::size_t> find_stat_field(Source source, int attr);

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

    std::optional<std::uint64_t> value(std::string_view key) const;
    // A device's number (OZRAM_STAT_ATTR_*) and the ring's (OZRAM_RING_ATTR_*).
    std::optional<std::uint64_t> stat(int stat_attr) const;
    std::optional<std::uint64_t> ring_stat(int ring_attr) const;
};

}  // namespace ozramctl
