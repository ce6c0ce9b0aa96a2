#include "latency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "text_output.hpp"

namespace ozramctl {
namespace {

// The quantiles ozramctl shows, with their column names and JSON keys.
struct Quantile {
    double q;
    std::string_view column;
    std::string_view key;
};
constexpr std::array QUANTILES = {Quantile{0.5, "p50", "p50_ns"}, Quantile{0.99, "p99", "p99_ns"},
                                  Quantile{0.999, "p99.9", "p999_ns"}};

constexpr std::size_t BAR_WIDTH = 40;

std::string optional_duration(const std::optional<double>& ns) {
    return ns ? human_duration(*ns) : "-";
}

}  // namespace

std::string_view latency_op_name(LatencyOp op) {
    switch (op) {
        case LatencyOp::write:
            return "write";
        case LatencyOp::read:
            return "read";
        case LatencyOp::ring:
            return "ring";
    }
    return "?";
}

double LatencyHistogram::lower_ns(std::size_t i) {
    return i == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(i));
}

double LatencyHistogram::upper_ns(std::size_t i) {
    return std::ldexp(1.0, static_cast<int>(i) + 1);
}

std::optional<double> LatencyHistogram::quantile_ns(double q) const {
    std::uint64_t total = 0;
    for (std::uint64_t n : buckets) {
        total += n;
    }
    if (total == 0) {
        return std::nullopt;
    }
    const double rank = q * static_cast<double>(total);
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        const std::uint64_t n = buckets[i];
        if (n != 0 && static_cast<double>(below + n) >= rank) {
            if (i + 1 == buckets.size()) {
                return lower_ns(i);
            }
            const double within = (rank - static_cast<double>(below)) / static_cast<double>(n);
            return lower_ns(i) + (upper_ns(i) - lower_ns(i)) * std::clamp(within, 0.0, 1.0);
        }
        below += n;
    }
    return lower_ns(buckets.size() - 1);
}

std::string human_duration(double ns) {
    struct Unit {
        double scale;
        const char* suffix;
    };
    constexpr std::array UNITS = {Unit{1e9, "s"}, Unit{1e6, "ms"}, Unit{1e3, "us"}};
    char text[32];
    for (const Unit& unit : UNITS) {
        if (ns >= unit.scale) {
            const double value = ns / unit.scale;
            std::snprintf(text, sizeof text,
                          value < 10    ? "%.2f%s"
                          : value < 100 ? "%.1f%s"
                                        : "%.0f%s",
                          value, unit.suffix);
            return text;
        }
    }
    std::snprintf(text, sizeof text, "%.0fns", ns);
    return text;
}

std::string text_latency(const std::string& title, const LatencyRecord& latency) {
    std::vector<std::vector<std::string>> rows = {{title, "COUNT", "MEAN"}};
    for (const Quantile& quantile : QUANTILES) {
        rows[0].emplace_back(quantile.column);
    }
    for (LatencyOp op : ALL_LATENCY_OPS) {
        const auto& hist = latency[static_cast<std::size_t>(op)];
        std::vector<std::string> row = {std::string(latency_op_name(op))};
        if (!hist) {
            row.insert(row.end(), 2 + QUANTILES.size(), "n/a");
        } else {
            row.push_back(std::to_string(hist->count));
            row.push_back(hist->count ? human_duration(static_cast<double>(hist->sum_ns) /
                                                       static_cast<double>(hist->count))
                                      : "-");
            for (const Quantile& quantile : QUANTILES) {
                row.push_back(optional_duration(hist->quantile_ns(quantile.q)));
            }
        }
        rows.push_back(std::move(row));
    }
    std::string out = render_table(rows);
    for (LatencyOp op : ALL_LATENCY_OPS) {
        const auto& hist = latency[static_cast<std::size_t>(op)];
        if (!hist || hist->count == 0) {
            continue;
        }
        const auto& b = hist->buckets;
        const auto first = std::ranges::find_if(b, [](std::uint64_t n) { return n != 0; });
        const auto last = std::ranges::find_if(b.rbegin(), b.rend(), [](std::uint64_t n) {
                              return n != 0;
                          }).base();
        const std::uint64_t peak = *std::ranges::max_element(b);
        // Ranges and counts aligned as a table, a bar after each line.
        std::vector<std::vector<std::string>> rows = {
            {"  " + std::string(latency_op_name(op)) + ':', "COUNT"}};
        std::vector<std::string> bars = {""};
        for (auto it = first; it != last; ++it) {
            const auto i = static_cast<std::size_t>(it - b.begin());
            const std::string upper =
                i + 1 == b.size() ? "inf" : human_duration(LatencyHistogram::upper_ns(i));
            rows.push_back({"    " + human_duration(LatencyHistogram::lower_ns(i)) + " .. " + upper,
                            std::to_string(*it)});
            const auto width = static_cast<std::size_t>(
                std::llround(static_cast<double>(*it) * BAR_WIDTH / static_cast<double>(peak)));
            bars.push_back(width ? "  " + std::string(width, '#') : "");
        }
        const std::string table = render_table(rows);
        out += '\n';
        std::size_t at = 0;
        for (const std::string& bar : bars) {
            const std::size_t end = table.find('\n', at);
            out += table.substr(at, end - at) + bar + '\n';
            at = end + 1;
        }
    }
    return out;
}

std::string json_latency_members(const LatencyRecord& latency) {
    std::string out;
    for (LatencyOp op : ALL_LATENCY_OPS) {
        const auto& hist = latency[static_cast<std::size_t>(op)];
        if (!out.empty()) {
            out += ',';
        }
        out += '"' + std::string(latency_op_name(op)) + "\":";
        if (!hist) {
            out += "null";
            continue;
        }
        out += "{\"count\":" + std::to_string(hist->count) +
               ",\"sum_ns\":" + std::to_string(hist->sum_ns);
        for (const Quantile& quantile : QUANTILES) {
            const auto value = hist->quantile_ns(quantile.q);
            out += ",\"" + std::string(quantile.key) +
                   "\":" + (value ? std::to_string(std::llround(*value)) : "null");
        }
        out += ",\"buckets\":[";
        for (std::size_t i = 0; i < hist->buckets.size(); ++i) {
            if (i != 0) {
                out += ',';
            }
            out += std::to_string(hist->buckets[i]);
        }
        out += "]}";
    }
    return out;
}

}  // namespace ozramctl
