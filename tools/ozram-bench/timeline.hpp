// The "gpu" row's timeline of the streams (--timeline): each batch's stages
// as the device ran them, written as CSV, and how much of a pass the streams
// spent on each stage.
#pragma once

#include <span>
#include <string>

#include "ozram/gpu.hpp"

namespace ozram::bench {

// Writes `entries` (one pass: its compression, then its decompression) to
// `path` as CSV: phase,stream,pages,start_us,uploaded_us,computed_us,end_us,
// times in µs from the phase's first batch.  Throws Error on an I/O error.
void write_timeline_csv(const std::string& path, std::span<const GpuTimelineEntry> entries);

// One line a phase: its span from the first batch's start to the last
// batch's end, and the share of that span in which at least one stream was
// bringing data in, running the kernel, taking data out, or doing any of
// the three.  A share under 100 % for "any" is time the device stood idle,
// waiting for the host.
[[nodiscard]] std::string summarize_timeline(std::span<const GpuTimelineEntry> entries);

}  // namespace ozram::bench
