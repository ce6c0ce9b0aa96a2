// The kernel module's own work for each page it stores, timed natively on
// one thread: what zram-style inline compression costs it, and what the
// kernel side of the offload ring costs it when an agent compresses.
//
// Everything that is the module's runs as the module's C, built in
// userspace through the kernel shim (agent/src/ring/kshim): its slot rules
// and its check of a result (kmod/ozram_ring_slots.c), which walks an LZ4
// block with the LZ4 check (kmod/ozram_lz4_verify.c).  The codecs are the libraries, with the
// kernel's parameters (cpu/block_codec.hpp).  What only the kernel has
// (zsmalloc's allocator, the ring lock, the doorbell's system call) is not
// here: "store" is the copy into the object, as zsmalloc makes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "ozram/algorithm.hpp"

namespace ozram::bench {

// One row: the median over the passes of the row's nanoseconds a page.
struct ModuleWorkRow {
    std::string name;
    std::string what;  // the work, in words
    double us_per_page = 0.0;
};

struct ModuleWork {
    Algorithm algorithm = Algorithm::Lz4;
    std::size_t pages = 0;        // pages timed (same-filled ones left out)
    std::size_t same_filled = 0;  // left out: the module stores the word
    std::size_t huge = 0;         // stored raw by both paths
    std::size_t batch = 0;
    bool cold = false;
    unsigned repeats = 0;
    std::vector<ModuleWorkRow> rows;
    // Pages whose check refused the agent's honest result: must be 0.
    std::size_t refused = 0;
    // A reading of the thread's CPU clock, taken off every timed lap.
    std::uint64_t clock_cost_ns = 0;

    // The row of that name; throws std::out_of_range without one.
    [[nodiscard]] double us(const std::string& name) const;
};

// Times the rows (see the usage text of --backend module) on `pages`, with
// the thread's CPU clock.  Warm: in batches of `batch` pages, each run once
// to warm the caches and then timed row after row.  `cold`: each row streams
// over every page once, so that what it reads comes from memory, as the
// pages of a writer or of reclaim do.  `repeats` passes; each row reports
// its median pass.  Blocks longer than `huge_threshold` are stored raw, as
// the agent and the module store them.
[[nodiscard]] ModuleWork measure_module_work(std::span<const std::uint8_t* const> pages,
                                             Algorithm algorithm, std::size_t batch, bool cold,
                                             unsigned repeats, std::size_t huge_threshold);

// The rows as a table with their ratios (to inline, and the checks to each
// other), or as CSV lines "algorithm,row,us_per_page" after a header.
void print_module_work(std::ostream& out, const ModuleWork& work);
void print_module_work_csv(std::ostream& out, const ModuleWork& work, bool header);

}  // namespace ozram::bench
