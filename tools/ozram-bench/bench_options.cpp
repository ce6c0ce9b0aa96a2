#include "bench_options.hpp"

#include <limits>
#include <string>

#include "cli/arguments.hpp"
#include "cli/integer_option.hpp"
#include "ozram/page.hpp"

namespace ozram::bench {
namespace {

BackendChoice parse_backend(std::string_view name, std::string_view text) {
    if (text == "cpu") {
        return BackendChoice::Cpu;
    }
    if (text == "scalar") {
        return BackendChoice::Scalar;
    }
    if (text == "gpu") {
        return BackendChoice::Gpu;
    }
    if (text == "kernels") {
        return BackendChoice::Kernels;
    }
    if (text == "warp-steps") {
        return BackendChoice::WarpSteps;
    }
    if (text == "module") {
        return BackendChoice::Module;
    }
    if (text == "all") {
        return BackendChoice::All;
    }
    throw cli::bad_value(name, "cpu, scalar, gpu, kernels, warp-steps, module or all", text);
}

Algorithm parse_algorithm_name(std::string_view name, std::string_view text) {
    if (const auto algorithm = parse_algorithm(text)) {
        return *algorithm;
    }
    throw cli::bad_value(name, "lz4, lz4hc, lzo, lzo-rle or zstd", text);
}

// A batch larger than this would not fit a BatchResult's 32-bit offsets.
constexpr std::size_t MAX_BATCH_PAGES = std::numeric_limits<std::uint32_t>::max() / PAGE_SIZE;
constexpr unsigned MAX_THREADS = 4096;

}  // namespace

std::string usage_text() {
    return std::string() + R"(Usage: ozram-bench --input FILE [--algorithm NAME]
                   [--backend cpu|scalar|gpu|kernels|warp-steps|module|all]
                   [--threads N]
                   [--batch PAGES] [--repeat N] [--max-pages N]
                   [--huge-threshold BYTES] [--gpu-kernel NAME] [--gpu-slots N]
                   [--shuffle] [--cold] [--timeline FILE] [--json|--csv]
       ozram-bench --print-crossover

Compresses a page corpus (a file of 4096-byte pages, see ozram-pagedump) batch
by batch with ozram's backends and, in the same run, with the format's own
library alone on 1 and N threads; restores every batch and checks every page
byte for byte, and every compressed page with its library's safe decoder.
Reports the stored bytes, the ratio and the median compress and decompress
throughput (10^9 input bytes/s), then how cpu compares with the library on
N threads, and whether both store the same bytes to within 0.1 %.

  -i, --input FILE   the corpus
  --algorithm NAME   the format: lz4 (default), lz4hc, lzo, lzo-rle or zstd
                     (zstd with the kernel's parameters).  The reference rows
                     are liblz4-T, liblz4hc-T, liblzo2-T (lzo and lzo-rle:
                     the library stores LZO1X-1 for both) or libzstd-T.
                     Only lz4 runs on the GPU: with another format, all
                     leaves gpu out and --backend gpu is a usage error
  --backend B        cpu (liblz4 on a thread pool), scalar (one thread), gpu,
                     or all (default: all; gpu is left out without a GPU).
                     gpu gives these rows: gpu, the backend as the agent
                     uses it (the corpus registered with the CUDA driver and
                     read in place, compressed bytes written by the device
                     into registered 4 KiB output buffers, 4 batches in
                     flight); gpu-stream, the same with the corpus 8 times
                     in one stream of batches a pass (its steady state,
                     figures per corpus); gpu-copy, with every page copied
                     into pinned buffers and the bytes copied out by the
                     host; one
                     kernel-NAME row per compression kernel, the kernels
                     alone on the corpus in device memory (compress: the
                     compression kernel; decompress: the decompression
                     kernel on its blocks); and pcie-h2d and pcie-d2h, the
                     pinned copy bandwidth.  kernels: the kernel-NAME rows
                     alone.  warp-steps: no GPU needed: each kernel's source
                     runs on the host through the emulated warp, which
                     counts warp-steps a page (steps-NAME rows, every block
                     checked with liblz4; use --max-pages, it is slow).
                     module: the kernel module's own work for each page it
                     stores, on one thread, in batches (--batch, default
                     64 here), each batch run once to warm the caches and
                     then timed with the thread's CPU clock: inline-compress
                     and inline-store (zram's path), ring-stage, ring-check
                     and ring-store (the kernel's side of the offload ring:
                     a staging slot taken and the page copied into it; the
                     agent's slot claimed, an LZ4 block copied into its
                     object and walked there by ozram_lz4_verify(), another
                     block copied out and decoded and compared; the copy of
                     that block into its object and the slot freed),
                     ring-check-decode and ring-store-decode (the check by
                     decode and compare, and the store after it),
                     and the two checks alone, check-verify and
                     check-decode-compare.  The slot rules and the checks
                     are the module's C (kmod/), the codecs the libraries.
                     Same-filled pages are left out: neither path sees
                     them.  With --csv: algorithm,row,us_per_page,pages
  --cold             --backend module: no warm batches; each row streams
                     over the whole corpus, reading its pages, blocks and
                     objects from memory
  --gpu-kernel NAME  the compression kernel of the gpu and gpu-copy rows:
                     window-12, window-11, window-10 or reprobe (default
                     )" +
           std::string(to_string(DEFAULT_GPU_COMPRESS_KERNEL)) + R"()
  --gpu-slots N      batches in flight of the gpu and gpu-copy rows, 1..64
                     (default 4)
  --shuffle          take the pages in a fixed random order, as a ring's
                     staging slots come: for the gpu row, pages scattered
                     over the registered corpus are read by the gather kernel
                     instead of DMA
  --timeline FILE    the gpu row (--backend gpu or all, lz4; nothing is
                     written when it does not run, and stderr says so):
                     each batch's stages as the device ran
                     them in the last pass (stream, pages, and the device
                     times at which its pages started in, its kernel
                     started, its bytes started out, and all was done, in
                     us from the phase's first batch), compression then
                     decompression, written to FILE as CSV; and, on
                     stderr, the share of each phase's device time in
                     which some stream was bringing data in, running a
                     kernel, taking data out, or any of these
  --threads N        threads of cpu and of the library's N-thread row
                     (default: every core)
  --batch PAGES      pages per batch (default 1024)
  --repeat N         passes over the corpus; medians are reported (default 5)
  --max-pages N      use only the first N pages of the corpus
  --huge-threshold BYTES
                     the largest block (in any format) ozram's backends
                     keep: a page whose block is longer is stored raw, as
                     zram does (default 3071, below zram's huge class);
                     4096 keeps every block that fits the page, as the
                     library rows do
  --json             one JSON object per line
  --csv              a header line, then one line per row
  --print-crossover  calibrate the cost model and print the batch sizes from
                     which select_backend() prefers cpu over scalar, and gpu
                     over cpu; then exit
  -h, --help         show this help

Exit status: 0 every page verified, 1 a page did not round-trip or an error,
2 usage error or (with --backend gpu or kernels) no usable GPU.
)";
}

Options parse_options(const std::vector<std::string>& args) {
    Options options;
    cli::Arguments arguments(args);
    while (arguments.next()) {
        const std::string_view name = arguments.name();
        if (!arguments.is_option()) {
            arguments.reject();
        } else if (name == "-h" || name == "--help") {
            arguments.flag();
            options.help = true;
        } else if (name == "--input" || name == "-i") {
            options.input = arguments.value();
        } else if (name == "--algorithm") {
            options.algorithm = parse_algorithm_name(name, arguments.value());
        } else if (name == "--backend") {
            options.backend = parse_backend(name, arguments.value());
        } else if (name == "--threads") {
            options.threads = cli::parse_integer_option(name, arguments.value(), 1U, MAX_THREADS);
        } else if (name == "--batch") {
            options.batch =
                cli::parse_integer_option(name, arguments.value(), std::size_t{1}, MAX_BATCH_PAGES);
            options.batch_given = true;
        } else if (name == "--repeat") {
            options.repeats = cli::parse_integer_option(name, arguments.value(), 1U, 1000U);
        } else if (name == "--max-pages") {
            options.max_pages = cli::parse_integer_option(name, arguments.value(), std::size_t{1});
        } else if (name == "--huge-threshold") {
            options.huge_threshold =
                cli::parse_integer_option(name, arguments.value(), std::size_t{1}, PAGE_SIZE);
        } else if (name == "--gpu-kernel") {
            const std::string_view text = arguments.value();
            const auto kernel = parse_gpu_compress_kernel(text);
            if (!kernel) {
                throw cli::bad_value(name, "window-12, window-11, window-10 or reprobe", text);
            }
            options.gpu_kernel = *kernel;
        } else if (name == "--shuffle") {
            arguments.flag();
            options.shuffled = true;
        } else if (name == "--cold") {
            arguments.flag();
            options.cold = true;
        } else if (name == "--timeline") {
            options.timeline = arguments.value();
        } else if (name == "--gpu-slots") {
            options.gpu_slots =
                cli::parse_integer_option(name, arguments.value(), std::size_t{1}, std::size_t{64});
        } else if (name == "--json" || name == "--csv") {
            arguments.flag();
            const auto format = name == "--json" ? OutputFormat::Json : OutputFormat::Csv;
            if (options.format != OutputFormat::Table && options.format != format) {
                throw cli::UsageError("--json and --csv exclude each other");
            }
            options.format = format;
        } else if (name == "--print-crossover") {
            arguments.flag();
            options.print_crossover = true;
        } else {
            arguments.reject();
        }
    }
    if (!options.help && !options.print_crossover && options.input.empty()) {
        throw cli::UsageError("no corpus given (--input FILE)");
    }
    if (options.cold && options.backend != BackendChoice::Module) {
        throw cli::UsageError("--cold is for --backend module");
    }
    if (options.backend == BackendChoice::Module && options.format == OutputFormat::Json) {
        throw cli::UsageError("--backend module writes a table or --csv");
    }
    if ((options.backend == BackendChoice::Gpu || options.backend == BackendChoice::Kernels ||
         options.backend == BackendChoice::WarpSteps) &&
        options.algorithm != Algorithm::Lz4) {
        throw cli::UsageError("the gpu backend compresses only lz4");
    }
    // Only the gpu row has a timeline; all runs it, for lz4.
    if (!options.timeline.empty() &&
        ((options.backend != BackendChoice::Gpu && options.backend != BackendChoice::All) ||
         options.algorithm != Algorithm::Lz4)) {
        throw cli::UsageError("--timeline is for the gpu row (--backend gpu or all, lz4)");
    }
    return options;
}

}  // namespace ozram::bench
