// ozram-ringload: the producer side of a shared-memory ring, to drive and
// verify ozramd without the kernel module.
#include <getopt.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include "cli/getopt_error.hpp"
#include "cli/integer_option.hpp"
#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "load_driver.hpp"
#include "ozram/backend.hpp"
#include "ozram/error.hpp"
#include "page_corpus.hpp"
#include "shm_ring.hpp"

namespace {

using ozram::ringload::LoadPlan;
using ozram::ringload::LoadReport;
using ozram::ringload::ProducerTime;

constexpr const char* PROGRAM = "ozram-ringload";

std::string usage_text() {
    return "Usage: ozram-ringload --shm NAME --input CORPUS [OPTION]...\n"
           "Create a shared-memory offload ring, feed it the pages of CORPUS as the\n"
           "kernel would, and verify every completion against the page submitted\n"
           "with the module's own check.  Start 'ozramd --shm NAME' to serve it.\n"
           "\n"
           "  --shm NAME         shared-memory name of the ring (created, then removed)\n"
           "  --input CORPUS     a file of whole 4096-byte pages (see ozram-pagedump)\n"
           "  --pages N          pages to submit, cycling through the corpus\n"
           "                     (default: the corpus once)\n"
           "  --slots N          staging slots, pages in flight at most (default 256)\n"
           "  --huge-threshold N largest LZ4 page accepted, bytes (default " +
           std::to_string(ozram::DEFAULT_HUGE_THRESHOLD) +
           ")\n"
           "  --timeout SEC      give up when the agent does not answer (default 10)\n"
           "  --threads N        threads that stage pages and check completions, each\n"
           "                     on its own, as the kernel's writers do on their CPUs\n"
           "                     (default: every core)\n"
           "  --keep-agent       do not ask the agent to detach at the end\n"
           "  --json             one JSON object instead of text\n"
           "  -h, --help         show this help and exit\n"
           "\n"
           "Exit status: 0 every page verified, 1 a mismatch, a malformed completion,\n"
           "a page given back with an error, or no agent, 2 usage error.\n";
}

struct Options {
    std::string shm;
    std::string input;
    std::uint64_t pages = 0;
    std::uint32_t slots = 256;
    std::uint32_t huge_threshold = ozram::DEFAULT_HUGE_THRESHOLD;
    unsigned timeout_s = 10;
    unsigned threads = 0;  // 0: every core
    bool keep_agent = false;
    bool json = false;
};

void print_report(const LoadReport& report, bool json) {
    const ProducerTime& time = report.time;
    if (json) {
        std::printf("{\"pages\":%" PRIu64 ",\"bytes_in\":%" PRIu64 ",\"bytes_out\":%" PRIu64
                    ",\"ratio\":%.4f,\"gbps\":%.4f,\"pages_per_sec\":%.1f,\"mismatches\":%" PRIu64
                    ",\"rejected\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"fallback\":%" PRIu64
                    ",\"cpu_us_per_page\":%.3f",
                    report.pages, report.bytes_in, report.bytes_out,
                    report.bytes_out == 0 ? 0.0 : report.ratio(), report.gbps(),
                    report.pages_per_sec(), report.mismatches, report.rejected, report.stale,
                    report.fallback, report.cpu_us_per_page());
        std::printf(
            ",\"time_us_per_page\":{\"checking\":%.3f,\"staging\":%.3f,\"locked\":%.3f"
            ",\"lock_wait\":%.3f,\"waking\":%.3f,\"idle\":%.3f}"
            ",\"lock_takes\":%" PRIu64 ",\"lock_waits\":%" PRIu64 ",\"timed_out\":%s}\n",
            report.us_per_page(time.checking), report.us_per_page(time.staging),
            report.us_per_page(time.locked), report.us_per_page(time.lock_wait),
            report.us_per_page(time.waking), report.us_per_page(time.idle), time.lock_takes,
            time.lock_waits, report.timed_out ? "true" : "false");
        return;
    }
    std::printf("pages          %" PRIu64 " verified\n", report.pages);
    std::printf("bytes          %" PRIu64 " in, %" PRIu64 " out, ratio %.3f\n", report.bytes_in,
                report.bytes_out, report.bytes_out == 0 ? 0.0 : report.ratio());
    std::printf("throughput     %.3f GB/s, %.0f pages/s\n", report.gbps(), report.pages_per_sec());
    std::printf("producer CPU   %.3f us a page, every thread\n", report.cpu_us_per_page());
    std::printf(
        "producer time  us a page, every thread: checking %.3f, staging %.3f, under the "
        "lock %.3f, waiting for it %.3f, waking the agent %.3f, idle %.3f\n",
        report.us_per_page(time.checking), report.us_per_page(time.staging),
        report.us_per_page(time.locked), report.us_per_page(time.lock_wait),
        report.us_per_page(time.waking), report.us_per_page(time.idle));
    std::printf("ring lock      %" PRIu64 " takes, %" PRIu64 " of them waited\n", time.lock_takes,
                time.lock_waits);
    std::printf("mismatches     %" PRIu64 "\n", report.mismatches);
    std::printf("rejected       %" PRIu64 "\n", report.rejected);
    std::printf("stale          %" PRIu64 "\n", report.stale);
    std::printf("fallback       %" PRIu64 "%s\n", report.fallback,
                report.timed_out ? " (the agent timed out)" : "");
}

int run(int argc, char** argv) {
    enum {
        OPT_SHM = 256,
        OPT_INPUT,
        OPT_PAGES,
        OPT_SLOTS,
        OPT_HUGE,
        OPT_TIMEOUT,
        OPT_THREADS,
        OPT_KEEP,
        OPT_JSON
    };
    static const option LONG_OPTIONS[] = {
        {"shm", required_argument, nullptr, OPT_SHM},
        {"input", required_argument, nullptr, OPT_INPUT},
        {"pages", required_argument, nullptr, OPT_PAGES},
        {"slots", required_argument, nullptr, OPT_SLOTS},
        {"huge-threshold", required_argument, nullptr, OPT_HUGE},
        {"timeout", required_argument, nullptr, OPT_TIMEOUT},
        {"threads", required_argument, nullptr, OPT_THREADS},
        {"keep-agent", no_argument, nullptr, OPT_KEEP},
        {"json", no_argument, nullptr, OPT_JSON},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    Options options;
    opterr = 0;
    int choice = 0;
    try {
        for (int word = optind;
             (choice = getopt_long(argc, argv, ":h", LONG_OPTIONS, nullptr)) != -1; word = optind) {
            switch (choice) {
                case OPT_SHM:
                    options.shm = optarg;
                    break;
                case OPT_INPUT:
                    options.input = optarg;
                    break;
                case OPT_PAGES:
                    options.pages =
                        ozram::cli::parse_integer_option("--pages", optarg, std::uint64_t{1});
                    break;
                case OPT_SLOTS:
                    options.slots = ozram::cli::parse_integer_option(
                        "--slots", optarg, std::uint32_t{1}, OZRAM_RING_MAX_SLOTS);
                    break;
                case OPT_HUGE:
                    options.huge_threshold = ozram::cli::parse_integer_option(
                        "--huge-threshold", optarg, std::uint32_t{1}, OZRAM_RING_PAGE_SIZE);
                    break;
                case OPT_TIMEOUT:
                    options.timeout_s =
                        ozram::cli::parse_integer_option("--timeout", optarg, 1U, 86400U);
                    break;
                case OPT_THREADS:
                    options.threads =
                        ozram::cli::parse_integer_option("--threads", optarg, 1U, 1024U);
                    break;
                case OPT_KEEP:
                    options.keep_agent = true;
                    break;
                case OPT_JSON:
                    options.json = true;
                    break;
                case 'h':
                    return ozram::cli::print_usage(usage_text());
                default:  // ':' or '?'
                    throw ozram::cli::getopt_error(argv, word, choice);
            }
        }
        if (optind < argc) {
            throw ozram::cli::unexpected_argument(argv[optind]);
        }
        if (options.shm.empty() || options.input.empty()) {
            throw ozram::cli::UsageError("--shm and --input are required");
        }
    } catch (const ozram::cli::UsageError& error) {
        return ozram::cli::usage_error(PROGRAM, error.what());
    }
    try {
        // A corpus larger than the run is read only as far as the run goes.
        const ozram::PageCorpus corpus(
            options.input, options.pages > SIZE_MAX ? 0 : static_cast<std::size_t>(options.pages));
        ozram::ring::ShmRingOwner::Geometry geometry;
        geometry.slots = options.slots;
        geometry.huge_threshold = options.huge_threshold;
        auto ring = ozram::ring::ShmRingOwner::create(options.shm, geometry);
        LoadPlan plan;
        plan.pages = options.pages != 0 ? options.pages : corpus.page_count();
        plan.agent_timeout = std::chrono::seconds(options.timeout_s);
        plan.stop_agent = !options.keep_agent;
        plan.threads = options.threads != 0 ? options.threads
                                            : std::max(1U, std::thread::hardware_concurrency());
        const LoadReport report = ozram::ringload::run_load(*ring, corpus.pages(), plan);
        print_report(report, options.json);
        if (report.timed_out) {
            std::fprintf(stderr, "ozram-ringload: no answer from an agent for %u s\n",
                         options.timeout_s);
        } else if (report.fallback != 0) {
            std::fprintf(stderr,
                         "ozram-ringload: the agent gave %" PRIu64 " pages back with an error\n",
                         report.fallback);
        }
        return report.clean() ? 0 : 1;
    } catch (const ozram::Error& error) {
        std::fprintf(stderr, "ozram-ringload: %s\n", error.what());
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    return ozram::cli::finish_stdout("ozram-ringload", run(argc, argv));
}
