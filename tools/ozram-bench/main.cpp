// ozram-bench: ozram's backends against liblz4 on a corpus of real pages.
// See Documentation/tools.md and Documentation/performance.md.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_options.hpp"
#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "codec.hpp"
#include "kernel_bench.hpp"
#include "measurement.hpp"
#include "module_work.hpp"
#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"
#include "page_corpus.hpp"
#include "pcie_bandwidth.hpp"
#include "report.hpp"
#include "warp_steps.hpp"

namespace {

using namespace ozram;
using namespace ozram::bench;

constexpr int EXIT_MISMATCH_OR_ERROR = 1;

// --backend module's batch: a ring's worth of slots whose pages, blocks and
// objects stay in the caches between its warm run and its timed run.
constexpr std::size_t MODULE_WORK_BATCH = 64;

void print_error(const std::system_error& e) {
    const char* name = strerrorname_np(e.code().value());
    std::cerr << "ozram-bench: " << e.what() << " (" << (name ? name : "error") << ")\n";
}

std::string crossover_text(std::optional<std::size_t> pages) {
    return pages ? std::to_string(*pages) : "none";
}

// A longer calibration than the daemon's start-up one: the crossover is a
// property of the machine, and a loaded machine needs more samples.
constexpr unsigned CROSSOVER_CALIBRATION_MS = 1000;

int print_crossover() {
    const auto model = CostModel::calibrate(CROSSOVER_CALIBRATION_MS);
    set_active_cost_model(model);
    const bool has_gpu = model.gpu.has_value();
    std::cout << "scalar->cpu " << crossover_text(model.crossover(Backend::Scalar, Backend::Cpu))
              << "\n";
    std::cout << "cpu->gpu "
              << (has_gpu ? crossover_text(model.crossover(Backend::Cpu, Backend::Gpu))
                          : std::string("none"))
              << "\n";
    // What select_backend() now picks, as a cross-check of the lines above.
    std::cout << "# select_backend:";
    for (std::size_t pages = 1; pages <= 16384; pages *= 4) {
        std::cout << " " << pages << "=" << to_string(select_backend(pages, has_gpu));
    }
    std::cout << "\n";
    std::istringstream text(model.serialize());
    for (std::string line; std::getline(text, line);) {
        std::cout << "# " << line << "\n";
    }
    return 0;
}

// The GPU codecs, or none (with the reason on stderr) when there is no GPU:
//   gpu         the backend as the agent uses it: the corpus registered with
//               the driver and read in place (pinned host pages in), bytes
//               written by the device into registered output buffers;
//   gpu-stream  the same compressor, the corpus GPU_STREAM_ROUNDS times in
//               one stream of batches a pass: the pipeline's steady state;
//   gpu-copy    every page copied into a pinned buffer and every block copied
//               out by the host, as for memory the driver cannot register.
// `in_place` is set to the compressor of the first two, which must read every
// page in place.
std::vector<std::unique_ptr<Codec>> make_gpu_codecs(const Options& options,
                                                    const PageCorpus& corpus,
                                                    const GpuBatchCompressor*& in_place) {
    std::vector<std::unique_ptr<Codec>> codecs;
    const char* skip = "ozram-bench: gpu: skipped: ";
    if (!gpu_available()) {
        std::cerr << skip << "no usable CUDA device (or built without CUDA)\n";
        return codecs;
    }
    const GpuBatchConfig config{.batch_size = options.batch,
                                .ring_buffer_slots = options.gpu_slots,
                                .huge_threshold = options.huge_threshold,
                                .kernel = options.gpu_kernel};
    try {
        std::shared_ptr<GpuBatchCompressor> gpu = GpuBatchCompressor::create(config);
        if (gpu->register_host_region(corpus.bytes())) {
            in_place = gpu.get();
            codecs.push_back(make_gpu_codec("gpu", gpu, options.timeline));
            codecs.push_back(make_gpu_codec("gpu-stream", gpu, {}, GPU_STREAM_ROUNDS));
        } else {
            std::cerr << "ozram-bench: gpu (in place): skipped: the driver cannot register "
                         "the corpus mapping\n";
        }
        codecs.push_back(make_library_codec("gpu-copy", GpuBatchCompressor::create(config), 0));
    } catch (const Error& e) {
        if (e.code().value() != ENODEV) {
            throw;
        }
        std::cerr << skip << e.what() << "\n";
        codecs.clear();
        in_place = nullptr;
    }
    return codecs;
}

std::vector<Measurement> copy_rows(const Options& options) {
    const auto bytes = options.batch * PAGE_SIZE;
    const auto copy = measure_pinned_copy(bytes, options.repeats);
    if (!copy) {
        std::cerr << "ozram-bench: pinned copy bandwidth could not be measured\n";
        return {};
    }
    std::vector<Measurement> rows;
    for (const auto& [name, gbps] :
         {std::pair{"pcie-h2d", copy->h2d_gbps}, std::pair{"pcie-d2h", copy->d2h_gbps}}) {
        rows.push_back(Measurement{.backend = name,
                                   .batch = options.batch,
                                   .repeats = options.repeats,
                                   .pages = options.batch,
                                   .bytes_in = bytes,
                                   .bytes_out = bytes,
                                   .copy_gbps = gbps});
    }
    return rows;
}

void write_rows(const Options& options, const PageCorpus& corpus, unsigned threads,
                std::span<const Measurement> rows) {
    switch (options.format) {
        case OutputFormat::Json:
            for (const auto& row : rows) {
                std::cout << json_row(row) << "\n";
            }
            break;
        case OutputFormat::Csv:
            std::cout << csv_header() << "\n";
            for (const auto& row : rows) {
                std::cout << csv_row(row) << "\n";
            }
            break;
        case OutputFormat::Table:
            std::cout << "corpus " << corpus.path() << ": " << corpus.page_count() << " pages; "
                      << to_string(options.algorithm) << "; batch " << options.batch << " pages, "
                      << options.repeats << " repeats, " << threads << " threads\n\n";
            print_table(std::cout, rows, reference_library(options.algorithm));
            break;
    }
}

// The module's own work a page (--backend module).
int run_module_work(const Options& options, const PageCorpus& corpus) {
    const std::size_t batch = options.batch_given ? options.batch : MODULE_WORK_BATCH;
    const ModuleWork work =
        measure_module_work(corpus.pages(), options.algorithm, batch, options.cold, options.repeats,
                            options.huge_threshold);
    if (options.format == OutputFormat::Csv) {
        print_module_work_csv(std::cout, work, true);
    } else {
        std::cout << "corpus " << corpus.path() << ": " << corpus.page_count() << " pages\n";
        print_module_work(std::cout, work);
    }
    if (work.refused != 0) {
        std::cerr << "ozram-bench: module: the check refused " << work.refused
                  << " honest result(s)\n";
        return EXIT_MISMATCH_OR_ERROR;
    }
    return 0;
}

int run(const Options& options) {
    const unsigned threads =
        options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
    const bool all = options.backend == BackendChoice::All;

    // Before the codecs: the GPU's registration of it ends with them.
    const PageCorpus corpus(options.input, options.max_pages);
    if (options.backend == BackendChoice::Module) {
        return run_module_work(options, corpus);
    }
    if (options.backend == BackendChoice::Kernels || options.backend == BackendChoice::WarpSteps) {
        const auto threshold = static_cast<std::uint32_t>(options.huge_threshold);
        auto rows = options.backend == BackendChoice::WarpSteps
                        ? measure_warp_steps(corpus.pages(), threshold)
                        : measure_kernels(corpus.pages(), ALL_GPU_COMPRESS_KERNELS, options.repeats,
                                          threshold);
        if (rows.empty()) {
            std::cerr << "ozram-bench: --backend kernels needs a GPU\n";
            return cli::EXIT_USAGE;
        }
        write_rows(options, corpus, threads, rows);
        for (const auto& row : rows) {
            if (row.mismatches != 0) {
                std::cerr << "ozram-bench: " << row.backend << ": " << row.mismatches
                          << " page(s) wrong\n";
                return EXIT_MISMATCH_OR_ERROR;
            }
        }
        return 0;
    }
    std::vector<std::unique_ptr<Codec>> codecs;
    const GpuBatchCompressor* in_place = nullptr;
    const Algorithm algorithm = options.algorithm;
    if (all && algorithm != Algorithm::Lz4) {
        std::cerr << "ozram-bench: gpu: left out: it compresses only lz4\n";
    } else if (all || options.backend == BackendChoice::Gpu) {
        codecs = make_gpu_codecs(options, corpus, in_place);
        if (codecs.empty() && !all) {
            std::cerr << "ozram-bench: --backend gpu needs a GPU\n";
            return cli::EXIT_USAGE;
        }
        // The gpu row writes it: said, rather than an old file left as is.
        if (in_place == nullptr && !options.timeline.empty()) {
            std::cerr << "ozram-bench: --timeline " << options.timeline
                      << ": not written, the gpu row does not run\n";
        }
    }
    if (all || options.backend == BackendChoice::Cpu) {
        codecs.push_back(make_library_codec(
            "cpu",
            make_cpu_compressor(Backend::Cpu, CpuConfig{.threads = threads,
                                                        .huge_threshold = options.huge_threshold,
                                                        .algorithm = algorithm}),
            threads, algorithm));
    }
    if (all || options.backend == BackendChoice::Scalar) {
        codecs.push_back(make_library_codec(
            "scalar",
            make_cpu_compressor(Backend::Scalar, CpuConfig{.huge_threshold = options.huge_threshold,
                                                           .algorithm = algorithm}),
            1, algorithm));
    }
    codecs.push_back(make_reference_codec(algorithm, 1));
    if (threads > 1) {
        codecs.push_back(make_reference_codec(algorithm, threads));
    }

    std::vector<Codec*> order;
    for (const auto& codec : codecs) {
        order.push_back(codec.get());
    }
    std::vector<const std::uint8_t*> pages(corpus.pages().begin(), corpus.pages().end());
    if (options.shuffled) {
        std::shuffle(pages.begin(), pages.end(), std::mt19937_64(1));
    }
    auto rows = measure_codecs(order, pages, options.batch, options.repeats);
    if (codecs.front()->name().starts_with("gpu")) {
        for (auto& row : measure_kernels(corpus.pages(), ALL_GPU_COMPRESS_KERNELS, options.repeats,
                                         static_cast<std::uint32_t>(options.huge_threshold))) {
            rows.push_back(std::move(row));
        }
        for (auto& row : copy_rows(options)) {
            rows.push_back(std::move(row));
        }
    }
    write_rows(options, corpus, threads, rows);

    std::uint64_t mismatches = 0;
    for (const auto& row : rows) {
        mismatches += row.mismatches;
    }
    // Each pass of the gpu row reads the corpus once, of the gpu-stream row
    // GPU_STREAM_ROUNDS times.
    const std::uint64_t pages_run =
        std::uint64_t{options.repeats} * corpus.page_count() * (1 + GPU_STREAM_ROUNDS);
    if (in_place != nullptr && in_place->pages_read_in_place() != pages_run) {
        std::cerr << "ozram-bench: gpu: only " << in_place->pages_read_in_place() << " of "
                  << pages_run << " pages were read in place: its row is not what it says\n";
        return EXIT_MISMATCH_OR_ERROR;
    }
    if (mismatches != 0) {
        std::cerr << "ozram-bench: " << mismatches << " page(s) did not round-trip\n";
        return EXIT_MISMATCH_OR_ERROR;
    }
    return 0;
}

int run(int argc, char** argv) {
    Options options;
    try {
        options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const cli::UsageError& e) {
        return cli::usage_error("ozram-bench", e.what());
    }
    if (options.help) {
        return cli::print_usage(usage_text());
    }
    try {
        return options.print_crossover ? print_crossover() : run(options);
    } catch (const std::system_error& e) {
        print_error(e);
        return EXIT_MISMATCH_OR_ERROR;
    } catch (const std::exception& e) {
        std::cerr << "ozram-bench: " << e.what() << "\n";
        return EXIT_MISMATCH_OR_ERROR;
    }
}

}  // namespace

int main(int argc, char** argv) {
    return ozram::cli::finish_stdout("ozram-bench", run(argc, argv));
}
