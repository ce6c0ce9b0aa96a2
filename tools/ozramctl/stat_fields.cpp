#include "stat_fields.hpp"

#include <array>

#include "ozram_genl.h"

namespace ozramctl {
namespace {

using enum Section;
using enum Unit;

// The JSON keys are the attribute names without their OZRAM_ATTR_ /
// OZRAM_RING_ATTR_ prefix, in lower case (pages_same_filled and pages_huge
// keep the names of two retired attributes).
constexpr MetricExport stored_pages(std::string_view backend) {
    return {Kind::gauge, "stored_pages", backend,
            "Compressed pages stored, by the path that compressed them."};
}

constexpr std::array FIELDS = {
    StatField{"disksize", device, Source::top, OZRAM_ATTR_DISKSIZE, 64, bytes,
              gauge_metric("disksize", "Size of the block device, 0 while uninitialized.")},
    StatField{"initstate", device, Source::top, OZRAM_ATTR_INITSTATE, 8, flag,
              gauge_metric("initialized", "1 when the device is initialized (disksize set).")},

    StatField{"orig_data_size", mm_stat, Source::top, OZRAM_ATTR_ORIG_DATA_SIZE, 64, bytes,
              gauge_metric("orig_data", "Uncompressed size of the data stored.")},
    StatField{"compr_data_size", mm_stat, Source::top, OZRAM_ATTR_COMPR_DATA_SIZE, 64, bytes,
              gauge_metric("compr_data", "Compressed size of the data stored.")},
    StatField{"mem_used_total", mm_stat, Source::top, OZRAM_ATTR_MEM_USED_TOTAL, 64, bytes,
              gauge_metric("mem_used", "Memory the device uses, allocator overhead included.")},
    StatField{"mem_limit", mm_stat, Source::top, OZRAM_ATTR_MEM_LIMIT, 64, bytes,
              gauge_metric("mem_limit", "Most memory the device may use, 0 for no limit.")},
    StatField{"mem_used_max", mm_stat, Source::top, OZRAM_ATTR_MEM_USED_MAX, 64, bytes,
              gauge_metric("mem_used_max",
                           "High-water mark of the memory used since the last "
                           "reset.")},
    StatField{"same_pages", mm_stat, Source::top, OZRAM_ATTR_SAME_PAGES, 64, count,
              gauge_metric("same_pages", "Pages stored as one repeated word, without memory.")},
    StatField{"pages_compacted", mm_stat, Source::top, OZRAM_ATTR_PAGES_COMPACTED, 64, count,
              counter_metric("pages_compacted", "Memory pages freed by compaction.")},
    StatField{"huge_pages", mm_stat, Source::top, OZRAM_ATTR_HUGE_PAGES, 64, count,
              gauge_metric("huge_pages",
                           "Pages stored uncompressed because they do not "
                           "compress.")},
    StatField{"huge_pages_since", mm_stat, Source::top, OZRAM_ATTR_HUGE_PAGES_SINCE, 64, count,
              counter_metric("huge_pages_stored",
                             "Pages stored uncompressed since "
                             "initialization.")},
    StatField{"pages_recompressed", mm_stat, Source::top, OZRAM_ATTR_PAGES_RECOMPRESSED, 64, count,
              gauge_metric("recompressed_pages",
                           "Pages stored with a recompression "
                           "algorithm.")},
    StatField{"recompress_saved", mm_stat, Source::top, OZRAM_ATTR_RECOMPRESS_SAVED, 64, bytes,
              counter_metric("recompress_saved",
                             "Memory recompression saved since "
                             "initialization.")},

    StatField{"failed_reads", io_stat, Source::top, OZRAM_ATTR_FAILED_READS, 64, count,
              counter_metric("failed_reads", "Reads that failed.")},
    StatField{"failed_writes", io_stat, Source::top, OZRAM_ATTR_FAILED_WRITES, 64, count,
              counter_metric("failed_writes", "Writes that failed.")},
    StatField{"invalid_io", io_stat, Source::top, OZRAM_ATTR_INVALID_IO, 64, count,
              counter_metric("invalid_io", "Requests refused as misaligned or out of range.")},
    StatField{"notify_free", io_stat, Source::top, OZRAM_ATTR_NOTIFY_FREE, 64, count,
              counter_metric("notify_free", "Pages freed by swap slot frees and discards.")},

    StatField{"writestall", debug_stat, Source::top, OZRAM_ATTR_WRITESTALL, 64, count,
              counter_metric("writestall", "Writes that had to sleep to allocate memory.")},
    StatField{"miss_free", debug_stat, Source::top, OZRAM_ATTR_MISS_FREE, 64, count,
              counter_metric("miss_free", "Slot frees skipped because the slot was busy.")},

    StatField{"pages_kernel_lz4", backend_stat, Source::top, OZRAM_ATTR_PAGES_KERNEL_LZ4, 64, count,
              stored_pages("kernel")},
    StatField{"pages_agent_cpu", backend_stat, Source::top, OZRAM_ATTR_PAGES_AGENT_CPU, 64, count,
              stored_pages("agent_cpu")},
    StatField{"pages_agent_gpu", backend_stat, Source::top, OZRAM_ATTR_PAGES_AGENT_GPU, 64, count,
              stored_pages("agent_gpu")},
    // backend_stat's same_filled and huge are mm_stat's counts; the keys stay
    // so that the JSON layout only ever grows.
    StatField{"pages_same_filled", backend_stat, Source::top, OZRAM_ATTR_SAME_PAGES, 64, count,
              NOT_EXPORTED},
    StatField{"pages_huge", backend_stat, Source::top, OZRAM_ATTR_HUGE_PAGES, 64, count,
              NOT_EXPORTED},
    // Pages held raw, written while the agent could not take them.
    StatField{"pages_parked", backend_stat, Source::top, OZRAM_ATTR_PAGES_PARKED, 64, count,
              gauge_metric("parked_pages",
                           "Pages held uncompressed until the agent takes "
                           "them.")},
    StatField{"parked_total", backend_stat, Source::top, OZRAM_ATTR_PARKED_TOTAL, 64, count,
              counter_metric("pages_parked", "Pages parked since initialization.")},

    StatField{"agent_state", agent, Source::top, OZRAM_ATTR_AGENT_STATE, 8, agent_state,
              gauge_metric("agent_attached",
                           "1 while a compression agent is attached to the "
                           "ring.")},
    StatField{"agent_pid", agent, Source::top, OZRAM_ATTR_AGENT_PID, 32, pid, NOT_EXPORTED},

// The ring's numbers, from the list the module makes them from.
#define OZRAM_RING_STAT(attr, name, kind, help) \
    StatField{#name,                            \
              ring,                             \
              Source::nested_ring,              \
              OZRAM_RING_ATTR_##attr,           \
              64,                               \
              count,                            \
              kind##_metric("ring_" #name, help)},
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

}  // namespace ozramctl
