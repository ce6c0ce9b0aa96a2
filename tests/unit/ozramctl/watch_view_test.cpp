#include "watch_view.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "fake_record.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;
using testing::set;
using testing::set_ring;
using testing::set_stat;

// Write latencies all in bucket `bucket` ([2^bucket, 2^(bucket+1)) ns).
LatencyHistogram histogram(std::uint64_t count, std::size_t bucket) {
    LatencyHistogram hist;
    hist.buckets.assign(32, 0);
    hist.buckets[bucket] = count;
    hist.count = count;
    return hist;
}

StatsRecord device(std::uint64_t kernel, std::uint64_t cpu, std::uint64_t writes) {
    StatsRecord record = fake_device_record();
    set_stat(record, OZRAM_STAT_ATTR_ORIG_DATA, 400ull << 20);
    set_stat(record, OZRAM_STAT_ATTR_COMPR_DATA, 100ull << 20);
    set_stat(record, OZRAM_STAT_ATTR_MEM_USED, 110ull << 20);
    set_stat(record, OZRAM_STAT_ATTR_KERNEL_PAGES, kernel);
    set_stat(record, OZRAM_STAT_ATTR_AGENT_CPU_PAGES, cpu);
    set_stat(record, OZRAM_STAT_ATTR_AGENT_GPU_PAGES, 0);
    set_stat(record, OZRAM_STAT_ATTR_HUGE_PAGES, 10);
    set_stat(record, OZRAM_STAT_ATTR_SAME_PAGES, 20);
    record.latency[0] = histogram(writes, 12);  // write: 4096..8192 ns
    record.latency[1] = histogram(100, 10);     // read: no reads in between
    record.latency[2] = histogram(writes / 2, 20);
    return record;
}

// A slow device: every write in the open last bucket.
void record_latency_slow(StatsRecord& record) {
    record.latency[0]->buckets.back() += 5;
    record.latency[0]->count += 5;
}

WatchSample sample(std::uint64_t kernel, std::uint64_t cpu, std::uint64_t writes,
                   std::uint64_t submitted) {
    WatchSample out;
    out.devices.push_back(device(kernel, cpu, writes));
    out.total = device(kernel, cpu, writes);
    out.total.dev_name.clear();
    out.total.dev_id.reset();
    out.total.num_devices = 1;
    set(out.total, "agent_state", 1);
    set_ring(out.total, OZRAM_RING_ATTR_OCCUPANCY, 12);
    set_ring(out.total, OZRAM_RING_ATTR_SUBMITTED, submitted);
    set_ring(out.total, OZRAM_RING_ATTR_COMPLETED, submitted - 12);
    set_ring(out.total, OZRAM_RING_ATTR_INLINE_FALLBACKS, 7);
    out.show_total = false;
    return out;
}

TEST(WatchView, FirstFrameHasNoRatesNorQuantiles) {
    const WatchSample first = sample(1000, 2000, 500, 3000);
    EXPECT_EQ(render_watch(first, nullptr, 0, {}),
              "ozram: rates and p99 over the last interval: from the next sample on\n"
              "DEVICE  RATIO  DATA  COMPR  MEM USED  P99 WRITE  P99 READ  P99 RING\n"
              "ozram0   4.00  400M   100M      110M          -         -         -\n"
              "STORED PAGES/S  KERNEL  AGENT_CPU  AGENT_GPU  HUGE  SAME\n"
              "ozram0               -          -          -     -     -\n"
              "AGENT     RING SLOTS USED  STAGED/S  COMPLETED/S  INLINE/S\n"
              "attached               12         -            -         -\n");
}

// With the module not timing I/O, the p99 columns say why they are empty.
TEST(WatchView, SaysWhyNoQuantileIsShownWhileLatencyStatsIsOff) {
    const WatchSample first = sample(1000, 2000, 500, 3000);
    WatchSample second = sample(1200, 1900, 500, 5000);
    second.latency_stats_off = true;
    const std::string frame = render_watch(second, &first, 2, {});
    EXPECT_NE(frame.find("      110M          -         -         -\n"
                         "P99: the module parameter latency_stats is off, so nothing is timed\n"
                         "STORED PAGES/S"),
              std::string::npos)
        << frame;
    EXPECT_EQ(render_watch(first, nullptr, 0, {}).find("latency_stats"), std::string::npos);
}

// Over 2 s: 200 more kernel pages, 100 fewer agent ones (freed), 1000
// writes between 4096 and 8192 ns (p99 interpolated: 4096 * 1.99 = 8151 ns),
// no read, 500 round trips in [2^20, 2^21) ns, 2000 pages staged.
TEST(WatchView, SecondFrameRatesAndQuantilesOfTheInterval) {
    const WatchSample first = sample(1000, 2000, 500, 3000);
    const WatchSample second = sample(1200, 1900, 1500, 5000);
    EXPECT_EQ(render_watch(second, &first, 2, {}),
              "ozram: rates and p99 over the last 2.0 s\n"
              "DEVICE  RATIO  DATA  COMPR  MEM USED  P99 WRITE  P99 READ  P99 RING\n"
              "ozram0   4.00  400M   100M      110M     8.15us         -    2.09ms\n"
              "STORED PAGES/S  KERNEL  AGENT_CPU  AGENT_GPU  HUGE  SAME\n"
              "ozram0            +100        -50         +0    +0    +0\n"
              "AGENT     RING SLOTS USED  STAGED/S  COMPLETED/S  INLINE/S\n"
              "attached               12      1000         1000         0\n");
}

// Every line of the frame, with the widest values, fits 80 columns.
TEST(WatchView, FitsEightyColumns) {
    WatchSample first = sample(1000, 2000, 500, 3000);
    WatchSample second = sample(1000 + 123456789, 2000, 500 + 1000000, 3000 + 999999999);
    for (WatchSample* s : {&first, &second}) {
        s->devices.push_back(s->devices.front());
        s->devices.back().dev_name = "ozram1023";
        s->show_total = true;
        for (StatsRecord* record : {&s->devices.front(), &s->total}) {
            set_stat(*record, OZRAM_STAT_ATTR_ORIG_DATA, 1023ull << 30 | 1ull << 29);  // 1023.5G
            set_stat(*record, OZRAM_STAT_ATTR_COMPR_DATA, 1000ull << 30 | 1ull << 29);
            set_stat(*record, OZRAM_STAT_ATTR_MEM_USED, 1001ull << 30 | 1ull << 29);
            set_stat(*record, OZRAM_STAT_ATTR_AGENT_GPU_PAGES, 900000000);
        }
        record_latency_slow(s->devices.back());
    }
    set_stat(second.devices.front(), OZRAM_STAT_ATTR_AGENT_GPU_PAGES, 0);
    set_stat(second.total, OZRAM_STAT_ATTR_AGENT_GPU_PAGES, 0);
    const std::string frame = render_watch(second, &first, 1, {});
    std::istringstream lines(frame);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
        EXPECT_LE(line.size(), 80U) << line;
    }
    EXPECT_EQ(count, 11);  // title, 2 tables of header + 2 devices + total, the ring's 2
    EXPECT_NE(frame.find("total "), std::string::npos);
    EXPECT_NE(frame.find("-900000000"), std::string::npos);
}

TEST(WatchView, IntervalQuantileOfTheDifference) {
    const LatencyHistogram before = histogram(1000, 5);
    LatencyHistogram after = before;
    EXPECT_FALSE(interval_quantile_ns(before, after, 0.99));  // nothing new
    after.buckets[10] += 100;
    after.count += 100;
    // Only the 100 new ones count: p50 within [1024, 2048).
    EXPECT_DOUBLE_EQ(*interval_quantile_ns(before, after, 0.5), 1024 + 0.5 * 1024);
    // Counters reset (fewer than before): the new histogram alone.
    EXPECT_DOUBLE_EQ(*interval_quantile_ns(before, histogram(10, 3), 0.5), 8 + 0.5 * 8);
}

}  // namespace
}  // namespace ozramctl
