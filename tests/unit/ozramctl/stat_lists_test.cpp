// The module's lists of numbers (shared/ozram_dev_stats.h and
// shared/ozram_ring_stats.h), checked where C++ can count at compile time:
// zram's files print exactly zram 6.1's fields, in zram's order, and every
// name follows Prometheus's rules.
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <span>
#include <string_view>

#include "ozram_genl.h"

namespace {

struct Line {
    int attr;
    std::string_view name;
    bool counter;
    std::string_view file;
};

constexpr bool counter = true;
constexpr bool gauge = false;

constexpr std::array DEV_STATS = {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) \
    Line{OZRAM_STAT_ATTR_##attr, #name, kind, #file},
#include "ozram_dev_stats.h"
#undef OZRAM_DEV_STAT
};

constexpr std::array RING_STATS = {
#define OZRAM_RING_STAT(attr, name, kind, help) Line{OZRAM_RING_ATTR_##attr, #name, kind, "ring"},
#include "ozram_ring_stats.h"
#undef OZRAM_RING_STAT
};

constexpr std::size_t fields_of(std::string_view file) {
    std::size_t n = 0;
    for (const Line& line : DEV_STATS) {
        n += line.file == file;
    }
    return n;
}

// zram 6.1's mm_stat has nine fields, io_stat four, debug_stat two (after
// its version line) and bd_stat three: scripts that read a fixed number of
// fields depend on it.
static_assert(fields_of("mm_stat") == 9);
static_assert(fields_of("io_stat") == 4);
static_assert(fields_of("debug_stat") == 2);
static_assert(fields_of("bd_stat") == 3);
static_assert(fields_of("mm_stat") + fields_of("io_stat") + fields_of("debug_stat") +
                  fields_of("bd_stat") + fields_of("backend_stat") ==
              DEV_STATS.size());

// The order of zram's fields, by the attribute each one is.
constexpr std::array ZRAM_ORDER = {
    // mm_stat
    OZRAM_STAT_ATTR_ORIG_DATA, OZRAM_STAT_ATTR_COMPR_DATA, OZRAM_STAT_ATTR_MEM_USED,
    OZRAM_STAT_ATTR_MEM_LIMIT, OZRAM_STAT_ATTR_MEM_USED_MAX, OZRAM_STAT_ATTR_SAME_PAGES,
    OZRAM_STAT_ATTR_COMPACTED, OZRAM_STAT_ATTR_HUGE_PAGES, OZRAM_STAT_ATTR_HUGE_STORED,
    // io_stat
    OZRAM_STAT_ATTR_FAILED_READS, OZRAM_STAT_ATTR_FAILED_WRITES, OZRAM_STAT_ATTR_INVALID_IO,
    OZRAM_STAT_ATTR_NOTIFY_FREE,
    // debug_stat
    OZRAM_STAT_ATTR_WRITESTALL, OZRAM_STAT_ATTR_MISS_FREE,
    // bd_stat
    OZRAM_STAT_ATTR_BD_PAGES, OZRAM_STAT_ATTR_BD_READS, OZRAM_STAT_ATTR_BD_WRITES};

TEST(StatLists, ZramFilesInZramOrder) {
    std::size_t next = 0;
    for (const Line& line : DEV_STATS) {
        if (line.file != "backend_stat") {
            ASSERT_LT(next, ZRAM_ORDER.size()) << line.name;
            EXPECT_EQ(line.attr, ZRAM_ORDER[next++]) << line.name;
        }
    }
    EXPECT_EQ(next, ZRAM_ORDER.size());
}

TEST(StatLists, AttributesFollowTheListsOrder) {
    for (std::size_t i = 0; i < DEV_STATS.size(); ++i) {
        EXPECT_EQ(DEV_STATS[i].attr, OZRAM_STAT_ATTR_PAD + 1 + static_cast<int>(i));
    }
    for (std::size_t i = 0; i < RING_STATS.size(); ++i) {
        EXPECT_EQ(RING_STATS[i].attr, OZRAM_RING_ATTR_PAD + 1 + static_cast<int>(i));
    }
}

// One name each, used everywhere: unique over both lists, and Prometheus's
// rules: "_total" ends a counter and nothing else, units are in the name
// (plural, never "_size"), the ring's numbers start with "ring_".
TEST(StatLists, NamesFollowPrometheus) {
    std::set<std::string_view> seen;
    auto check = [&](const Line& line) {
        EXPECT_TRUE(seen.insert(line.name).second) << line.name << " twice";
        EXPECT_EQ(line.name.ends_with("_total"), line.counter) << line.name;
        EXPECT_EQ(line.name.find("_size"), std::string_view::npos) << line.name;
        EXPECT_EQ(line.name.find("_byte_"), std::string_view::npos) << line.name;
        for (char c : line.name) {
            EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << line.name;
        }
    };
    for (const Line& line : DEV_STATS) {
        check(line);
        EXPECT_FALSE(line.name.starts_with("ring_")) << line.name;
    }
    for (const Line& line : RING_STATS) {
        check(line);
        EXPECT_TRUE(line.name.starts_with("ring_")) << line.name;
    }
}

// OpenMetrics names a counter's family without its "_total": a counter
// X_total and a gauge X would be two families of one name.
TEST(StatLists, NoCounterSharesItsFamilyWithAnotherNumber) {
    std::set<std::string_view> names;
    for (const auto& list : {std::span<const Line>(DEV_STATS), std::span<const Line>(RING_STATS)}) {
        for (const Line& line : list) {
            names.insert(line.name);
        }
    }
    for (const std::string_view name : names) {
        if (name.ends_with("_total")) {
            const std::string_view family = name.substr(0, name.size() - 6);
            EXPECT_FALSE(names.contains(family)) << name << " and " << family;
        }
    }
}

}  // namespace
