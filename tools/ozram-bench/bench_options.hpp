// The command line of ozram-bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ozram/algorithm.hpp"
#include "ozram/backend.hpp"
#include "ozram/gpu.hpp"
#include "ozram/gpu_kernel.hpp"

namespace ozram::bench {

enum class BackendChoice : std::uint8_t { Cpu, Scalar, Gpu, Kernels, WarpSteps, Module, All };
enum class OutputFormat : std::uint8_t { Table, Json, Csv };

struct Options {
    std::string input;
    BackendChoice backend = BackendChoice::All;
    // The format of the backends' pages and of the reference library's rows.
    Algorithm algorithm = Algorithm::Lz4;
    unsigned threads = 0;  // 0: every online core
    std::size_t batch = 1024;
    bool batch_given = false;  // --batch on the command line
    unsigned repeats = 5;
    std::size_t max_pages = 0;  // 0: the whole corpus
    // The largest compressed block kept (in any format); a page whose block
    // is longer is stored raw (zram's rule).
    std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD;
    // The compression kernel of the gpu rows; the kernel rows time them all.
    GpuCompressKernel gpu_kernel = DEFAULT_GPU_COMPRESS_KERNEL;
    // Pages in a fixed random order instead of the corpus's: a ring's slots
    // are handed to the agent in the order they were freed.
    bool shuffled = false;
    // --backend module: every row streams over the corpus (no warm batches).
    bool cold = false;
    // Batches in flight of the gpu rows (GpuBatchConfig::ring_buffer_slots).
    std::size_t gpu_slots = GpuBatchConfig{}.ring_buffer_slots;
    std::string timeline;  // --timeline: where the gpu row's timeline goes
    OutputFormat format = OutputFormat::Table;
    bool print_crossover = false;
    bool help = false;
};

// argv without the program name.  Throws cli::UsageError.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args);

[[nodiscard]] std::string usage_text();

}  // namespace ozram::bench
