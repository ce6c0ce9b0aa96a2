#include "timeline.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include "ozram/error.hpp"

namespace ozram::bench {
namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// The length of the union of `intervals`.
std::uint64_t covered_ns(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end());
    std::uint64_t covered = 0;
    std::uint64_t reached = 0;
    for (const auto& [begin, end] : intervals) {
        const std::uint64_t from = std::max(begin, reached);
        if (end > from)
            covered += end - from;
        reached = std::max(reached, end);
    }
    return covered;
}

std::uint64_t first_start(std::span<const GpuTimelineEntry> entries, bool decompress) {
    std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
    for (const GpuTimelineEntry& e : entries) {
        if (e.decompress == decompress)
            first = std::min(first, e.start_ns);
    }
    return first;
}

}  // namespace

void write_timeline_csv(const std::string& path, std::span<const GpuTimelineEntry> entries) {
    std::ofstream out(path);
    if (!out)
        throw Error(errno != 0 ? errno : EIO, "ozram-bench: cannot write " + path);
    out << "phase,stream,pages,start_us,uploaded_us,computed_us,end_us\n";
    for (const bool decompress : {false, true}) {
        const std::uint64_t origin = first_start(entries, decompress);
        for (const GpuTimelineEntry& e : entries) {
            if (e.decompress != decompress)
                continue;
            const auto us = [origin](std::uint64_t ns) {
                return static_cast<double>(ns - std::min(ns, origin)) / 1e3;
            };
            char line[160];
            std::snprintf(line, sizeof(line), "%s,%u,%u,%.3f,%.3f,%.3f,%.3f\n",
                          decompress ? "decompress" : "compress", e.stream, e.pages, us(e.start_ns),
                          us(e.uploaded_ns), us(e.computed_ns), us(e.end_ns));
            out << line;
        }
    }
    out.flush();
    if (!out)
        throw Error(EIO, "ozram-bench: cannot write " + path);
}

std::string summarize_timeline(std::span<const GpuTimelineEntry> entries) {
    std::string text;
    for (const bool decompress : {false, true}) {
        std::vector<Interval> in, kernel, out, any;
        std::uint64_t pages = 0;
        for (const GpuTimelineEntry& e : entries) {
            if (e.decompress != decompress)
                continue;
            in.emplace_back(e.start_ns, e.uploaded_ns);
            kernel.emplace_back(e.uploaded_ns, e.computed_ns);
            out.emplace_back(e.computed_ns, e.end_ns);
            any.emplace_back(e.start_ns, e.end_ns);
            pages += e.pages;
        }
        if (any.empty())
            continue;
        std::uint64_t begin = std::numeric_limits<std::uint64_t>::max();
        std::uint64_t end = 0;
        for (const auto& [b, e] : any) {
            begin = std::min(begin, b);
            end = std::max(end, e);
        }
        const double span = static_cast<double>(std::max<std::uint64_t>(end - begin, 1));
        const auto share = [span](const std::vector<Interval>& intervals) {
            return 100.0 * static_cast<double>(covered_ns(intervals)) / span;
        };
        char line[256];
        std::snprintf(line, sizeof(line),
                      "timeline %-10s %zu batches, %llu pages in %.1f us of device time: "
                      "in %.0f %%, kernel %.0f %%, out %.0f %%, any %.0f %%\n",
                      decompress ? "decompress" : "compress", any.size(),
                      static_cast<unsigned long long>(pages), span / 1e3, share(in), share(kernel),
                      share(out), share(any));
        text += line;
    }
    return text;
}

}  // namespace ozram::bench
