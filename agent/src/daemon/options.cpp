#include "options.hpp"

#include <getopt.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "cli/getopt_error.hpp"
#include "cli/usage_error.hpp"
#include "ozram_ring.h"

namespace ozram::daemon {
namespace {

enum LongOnly {
    OPT_SHM = 256,
    OPT_DEVICE,
    OPT_PIDFILE,
    OPT_SYSLOG,
    OPT_COST_MODEL,
    OPT_RECALIBRATE,
    OPT_REQUIRE_MLOCK,
    OPT_WAIT,
    OPT_BATCH_SIZE,
    OPT_FLUSH_US,
    OPT_THREADS,
    OPT_BACKEND,
    OPT_GPU_STAGING,
    OPT_HUGE_THRESHOLD,
    OPT_LOG_LEVEL,
    OPT_NICE,
    OPT_METRICS_LISTEN,
};

constexpr option LONG_OPTIONS[] = {
    {"config", required_argument, nullptr, 'c'},
    {"shm", required_argument, nullptr, OPT_SHM},
    {"device", required_argument, nullptr, OPT_DEVICE},
    {"daemon", no_argument, nullptr, 'd'},
    {"pidfile", required_argument, nullptr, OPT_PIDFILE},
    {"syslog", no_argument, nullptr, OPT_SYSLOG},
    {"cost-model", required_argument, nullptr, OPT_COST_MODEL},
    {"recalibrate", no_argument, nullptr, OPT_RECALIBRATE},
    {"require-mlock", no_argument, nullptr, OPT_REQUIRE_MLOCK},
    {"wait", no_argument, nullptr, OPT_WAIT},
    {"batch-size", required_argument, nullptr, OPT_BATCH_SIZE},
    {"flush-us", required_argument, nullptr, OPT_FLUSH_US},
    {"threads", required_argument, nullptr, OPT_THREADS},
    {"backend", required_argument, nullptr, OPT_BACKEND},
    {"gpu-staging", required_argument, nullptr, OPT_GPU_STAGING},
    {"huge-threshold", required_argument, nullptr, OPT_HUGE_THRESHOLD},
    {"log-level", required_argument, nullptr, OPT_LOG_LEVEL},
    {"nice", required_argument, nullptr, OPT_NICE},
    {"metrics-listen", required_argument, nullptr, OPT_METRICS_LISTEN},
    {"verbose", no_argument, nullptr, 'v'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'V'},
    {nullptr, 0, nullptr, 0},
};

// The flag that sets `key`: "--batch-size" for batch_size.
std::string flag_name(std::string_view key) {
    std::string name = "--" + std::string(key);
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
}

// `value`, or a usage error when it is empty.
std::string non_empty(std::string_view flag, std::string_view expected, const char* value) {
    if (*value == '\0') {
        throw cli::bad_value(flag, expected, value);
    }
    return value;
}

}  // namespace

const char* usage_text() {
    return "Usage: ozramd [OPTION]...\n"
           "Compress the pages that ozram.ko queues on its ring, in batches, on the\n"
           "GPU or on every CPU core, and hand the results back to the kernel.\n"
           "\n"
           "Ring:\n"
           "      --device PATH        the kernel ring (default " OZRAM_RING_DEV_PATH
           ")\n"
           "      --shm NAME           a userspace ring in POSIX shared memory instead\n"
           "      --wait               wait for the ring to appear instead of failing\n"
           "Settings (override the configuration file):\n"
           "  -c, --config FILE        configuration file (default /etc/ozram/ozramd.conf)\n"
           "      --batch-size N       pages per batch at most (default 256)\n"
           "      --flush-us N         how long a partial batch waits to fill (default 200)\n"
           "      --threads N          CPU threads, 0 for every core (default 0)\n"
           "      --backend B          auto, cpu, scalar or gpu (default auto)\n"
           "      --gpu-staging M      in-place: the GPU reads staged pages where they are\n"
           "                           if the driver can register them; copy: always\n"
           "                           through pinned buffers (default in-place)\n"
           "      --huge-threshold N   largest LZ4 page kept, 1..4096 bytes; a longer one is\n"
           "                           stored raw.  The ring's own threshold applies too\n"
           "                           (default 4096: the ring's threshold decides)\n"
           "      --log-level L        error, warning, info or debug (default info)\n"
           "      --nice N             nice value of every thread, -20..19, or auto\n"
           "                           (default auto: 19 without a GPU, so applications\n"
           "                           come first and the kernel compresses what the\n"
           "                           agent cannot; 0 with one)\n"
           "  -v, --verbose            same as --log-level debug\n"
           "Cost model:\n"
           "      --cost-model FILE    calibration cache (default /var/cache/ozram/cost-model)\n"
           "      --recalibrate        measure again even if the cache exists\n"
           "Process:\n"
           "  -d, --daemon             detach from the terminal; log to syslog\n"
           "      --pidfile FILE       with --daemon (default /run/ozramd.pid)\n"
           "      --syslog             log to syslog in the foreground too\n"
           "      --require-mlock      fail if memory cannot be locked\n"
           "Monitoring:\n"
           "      --metrics-listen A   serve the agent's metrics in the Prometheus text\n"
           "                           format at http://A/metrics; A is PORT (on\n"
           "                           127.0.0.1), IPV4:PORT or [IPV6]:PORT, numeric\n"
           "                           addresses only (default: off);\n"
           "                           sockets systemd passes serve them too\n"
           "  -h, --help               show this help and exit\n"
           "  -V, --version            show the version and exit\n"
           "\n"
           "Signals: SIGTERM/SIGINT finish the batch in flight and detach, SIGHUP reloads\n"
           "the configuration file.  Exit status: 0 ok, 1 runtime error, 2 usage or\n"
           "configuration error, 3 ring ABI version mismatch, 4 no ring, 5 mlock failed.\n";
}

Options parse_options(int argc, char** argv) {
    Options options;
    optind = 0;  // parse from the start, also when called again
    opterr = 0;
    int choice = 0;
    for (int word = optind;
         (choice = getopt_long(argc, argv, ":c:dvhV", LONG_OPTIONS, nullptr)) != -1;
         word = optind) {
        switch (choice) {
            case 'c':
                options.config_path = optarg;
                options.config_given = true;
                break;
            // Empty means "not given" below: as a value it is no ring.
            case OPT_SHM:
                options.shm_name = non_empty("--shm", "the name of a shared memory ring", optarg);
                break;
            case OPT_DEVICE:
                options.device_path = non_empty("--device", "the path of a ring device", optarg);
                break;
            case 'd':
                options.daemonize = true;
                break;
            case OPT_PIDFILE:
                options.pidfile = optarg;
                break;
            case OPT_SYSLOG:
                options.syslog = true;
                break;
            case OPT_COST_MODEL:
                options.cost_model_path = optarg;
                break;
            case OPT_RECALIBRATE:
                options.recalibrate = true;
                break;
            case OPT_REQUIRE_MLOCK:
                options.require_mlock = true;
                break;
            case OPT_WAIT:
                options.wait_for_ring = true;
                break;
            case OPT_BATCH_SIZE:
                options.settings.emplace_back("batch_size", optarg);
                break;
            case OPT_FLUSH_US:
                options.settings.emplace_back("flush_us", optarg);
                break;
            case OPT_THREADS:
                options.settings.emplace_back("threads", optarg);
                break;
            case OPT_BACKEND:
                options.settings.emplace_back("backend", optarg);
                break;
            case OPT_GPU_STAGING:
                options.settings.emplace_back("gpu_staging", optarg);
                break;
            case OPT_HUGE_THRESHOLD:
                options.settings.emplace_back("huge_threshold", optarg);
                break;
            case OPT_LOG_LEVEL:
                options.settings.emplace_back("log_level", optarg);
                break;
            case OPT_NICE:
                options.settings.emplace_back("nice", optarg);
                break;
            case OPT_METRICS_LISTEN:
                options.metrics_listen = parse_listen_address(optarg);
                break;
            case 'v':
                options.settings.emplace_back("log_level", "debug");
                break;
            case 'h':
                options.help = true;
                break;
            case 'V':
                options.version = true;
                break;
            default:  // ':' or '?'
                throw cli::getopt_error(argv, word, choice);
        }
    }
    if (optind < argc) {
        throw cli::unexpected_argument(argv[optind]);
    }
    if (!options.shm_name.empty() && !options.device_path.empty()) {
        throw cli::UsageError("--shm and --device exclude each other");
    }
    if (options.device_path.empty()) {
        options.device_path = OZRAM_RING_DEV_PATH;
    }
    // Check the flags now, so that a bad value is a usage error at once,
    // worded with the flag's name.
    Config scratch;
    for (const auto& [key, value] : options.settings) {
        apply_setting(scratch, key, value, flag_name(key));
    }
    return options;
}

Config effective_config(const Options& options) {
    Config config = load_config_file(options.config_path, options.config_given);
    for (const auto& [key, value] : options.settings) {
        apply_setting(config, key, value);
    }
    return config;
}

}  // namespace ozram::daemon
