// The module's latency histograms as ozramctl reads them (OZRAM_ATTR_LATENCY):
// per operation, log2 buckets of nanoseconds, the quantiles estimated from
// them, and "ozramctl latency" for people.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ozramctl {

enum class LatencyOp { write, read, ring };
inline constexpr std::array ALL_LATENCY_OPS = {LatencyOp::write, LatencyOp::read, LatencyOp::ring};

// "write", "read", "ring".
std::string_view latency_op_name(LatencyOp op);

struct LatencyHistogram {
    std::uint64_t count = 0;
    std::uint64_t sum_ns = 0;
    // Bucket i counts intervals in [2^i, 2^(i+1)) ns (bucket 0 also those
    // under 1 ns); the last one everything from its lower bound on.
    std::vector<std::uint64_t> buckets;

    // Bounds of bucket i in ns: [lower, upper); the last one's upper bound
    // is infinite.
    [[nodiscard]] static double lower_ns(std::size_t i);
    [[nodiscard]] static double upper_ns(std::size_t i);

    // The q-quantile (0 < q <= 1) in ns, interpolated linearly within its
    // bucket as Prometheus's histogram_quantile() does; the lower bound
    // when it falls in the open last bucket.  Empty for an empty histogram.
    [[nodiscard]] std::optional<double> quantile_ns(double q) const;
};

// Per operation, indexed by LatencyOp; empty where the module sent none.
using LatencyRecord = std::array<std::optional<LatencyHistogram>, ALL_LATENCY_OPS.size()>;

// "850ns", "3.2us", "12ms", "1.5s": three significant digits at most.
std::string human_duration(double ns);

// "ozramctl latency": a table of count, mean, p50, p99 and p99.9 per
// operation, then each non-empty histogram with a bar per bucket.  `title`
// names the device or the total.
std::string text_latency(const std::string& title, const LatencyRecord& latency);

// {"write":{"count":N,"sum_ns":N,"p50_ns":N,"p99_ns":N,"p999_ns":N,
// "buckets":[...]},...}; quantiles null when empty.
std::string json_latency_members(const LatencyRecord& latency);

}  // namespace ozramctl
