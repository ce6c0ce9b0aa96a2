#include "stat_fields.hpp"

#include <array>

#include "ozram_genl.h"

namespace ozramctl {
namespace {

using enum Section;
using enum Unit;

// A number of a device or of the ring: its name carries its unit.
constexpr Unit unit_of(std::string_view name) {
    return name.find("_bytes") != std::string_view::npos ? bytes : count;
}

constexpr MetricExport metric(Kind kind, std::string_view name, std::string_view help) {
    return {kind, name, help};
}

constexpr Kind counter = Kind::counter;
constexpr Kind gauge = Kind::gauge;

constexpr std::array FIELDS = {
    StatField{"disksize", device, Source::top, OZRAM_ATTR_DISKSIZE, 64, bytes,
              metric(gauge, "disksize_bytes", "Size of the block device, 0 while uninitialized.")},
    StatField{"initstate", device, Source::top, OZRAM_ATTR_INITSTATE, 8, flag,
              metric(gauge, "initialized", "1 when the device is initialized (disksize set).")},

// A device's numbers, from the list the module makes them from, in the
// section of their sysfs file.
#define OZRAM_DEV_STAT(attr, name, kind, file, help)                                   \
    StatField{#name, file,           Source::nested_stats,     OZRAM_STAT_ATTR_##attr, \
              64,    unit_of(#name), metric(kind, #name, help)},
#include "ozram_dev_stats.h"
#undef OZRAM_DEV_STAT

    StatField{
        "agent_state", agent, Source::top, OZRAM_ATTR_AGENT_STATE, 8, agent_state,
        metric(gauge, "agent_attached", "1 while a compression agent is attached to the ring.")},
    StatField{"agent_pid", agent, Source::top, OZRAM_ATTR_AGENT_PID, 32, pid, NOT_EXPORTED},

// The ring's numbers, likewise.
#define OZRAM_RING_STAT(attr, name, kind, help)                                        \
    StatField{#name, ring,           Source::nested_ring,      OZRAM_RING_ATTR_##attr, \
              64,    unit_of(#name), metric(kind, #name, help)},
#include "ozram_ring_stats.h"
#undef OZRAM_RING_STAT
};

}  // namespace

std::span<const StatField> stat_fields() {
    return FIELDS;
}

std::optional<std::size_t> find_stat_field(std::string_view key) {
    for (std::size_t i = 0; i < FIELDS.size(); ++i) {
        if (FIELDS[i].key == key) {
            return i;
        }
    }
    return std::nullopt;
}

std::optional<std::size_t> find_stat_field(Source source, int attr) {
    for (std::size_t i = 0; i < FIELDS.size(); ++i) {
        if (FIELDS[i].source == source && FIELDS[i].attr == attr) {
            return i;
        }
    }
    return std::nullopt;
}

std::string_view section_name(Section section) {
    switch (section) {
        case device:
            return "device";
        case mm_stat:
            return "mm_stat";
        case io_stat:
            return "io_stat";
        case debug_stat:
            return "debug_stat";
        case bd_stat:
            return "bd_stat";
        case backend_stat:
            return "backend_stat";
        case agent:
            return "agent";
        case ring:
            return "ring";
    }
    return "?";
}

std::optional<std::uint64_t> StatsRecord::value(std::string_view key) const {
    auto index = find_stat_field(key);
    return index ? values[*index] : std::nullopt;
}

std::optional<std::uint64_t> StatsRecord::stat(int stat_attr) const {
    auto index = find_stat_field(Source::nested_stats, stat_attr);
    return index ? values[*index] : std::nullopt;
}

std::optional<std::uint64_t> StatsRecord::ring_stat(int ring_attr) const {
    auto index = find_stat_field(Source::nested_ring, ring_attr);
    return index ? values[*index] : std::nullopt;
}

}  // namespace ozramctl
