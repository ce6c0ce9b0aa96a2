// ozramd: the agent that compresses the pages ozram.ko offloads to it.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "compressor_set.hpp"
#include "config.hpp"
#include "cost_model_cache.hpp"
#include "drain_loop.hpp"
#include "exit_status.hpp"
#include "kernel_ring.hpp"
#include "largest_batch.hpp"
#include "log.hpp"
#include "metrics_listen.hpp"
#include "metrics_server.hpp"
#include "options.hpp"
#include "ozram/cost_model.hpp"
#include "ozram/diagnostics.hpp"
#include "ozram/error.hpp"
#include "process.hpp"
#include "shm_ring.hpp"

namespace ozram::daemon {
namespace {

// How long the loop sleeps at most without work, and so how late it sees a
// signal when the transport's wait cannot be interrupted.
constexpr std::chrono::milliseconds IDLE_TIMEOUT{100};
constexpr std::chrono::milliseconds ATTACH_RETRY{100};

std::unique_ptr<ring::RingTransport> attach_once(const Options& options) {
    if (!options.shm_name.empty()) {
        return ring::ShmRing::attach(options.shm_name);
    }
    return ring::KernelRing::attach(options.device_path);
}

bool ring_absent(const Error& error) {
    const int code = error.code().value();
    return code == ENOENT || code == ENODEV || code == ENXIO || code == EAGAIN;
}

// Attaches, or with --wait retries while the ring does not exist yet.
// Null when a signal asked the agent to stop before a ring was attached.
std::unique_ptr<ring::RingTransport> attach(const Options& options) {
    while (!signal_flags().stop) {
        try {
            return attach_once(options);
        } catch (const ring::AbiVersionError&) {
            throw;
        } catch (const ring::NotARingError&) {
            throw;
        } catch (const Error& error) {
            // The kernel's open() of the ring waits interruptibly (while a
            // crashed agent's pages drain), and the handlers do not restart
            // it: a signal is no failure.  A stop ends the loop above.
            if (error.code().value() == EINTR) {
                continue;
            }
            if (!options.wait_for_ring || !ring_absent(error)) {
                throw;
            }
        }
        std::this_thread::sleep_for(ATTACH_RETRY);
    }
    return nullptr;
}

std::span<const std::uint8_t> staging_area(const ring::RingView& view) {
    return {view.staging, view.header.staging.size};
}

std::span<std::uint8_t> output_area(const ring::RingView& view) {
    return {view.output, view.header.output.size};
}

CpuConfig cpu_config(const Config& config) {
    CpuConfig cpu;
    cpu.threads = config.threads;
    cpu.huge_threshold = config.huge_threshold;
    return cpu;
}

// Compressors for batches of `max_batch` pages at most, run once on that
// many (largest_batch.hpp).
std::unique_ptr<CompressorSet> make_compressors(const Config& config, std::uint32_t max_batch) {
    return std::make_unique<CompressorSet>(config.backend, cpu_config(config), max_batch);
}

// The cost model, then the compressors.  At start-up they are built before
// the agent attaches: the kernel routes pages to the ring from the moment
// the ring is opened, and calibration, a GPU context and the warm-up
// batches take far longer than ring_timeout_ms.  Nothing here needs the
// ring: an LZ4 page above the ring's huge threshold is completed raw by the
// drain loop, and compressors built for more pages than the ring has slots
// are built again once it is attached (fit_to_ring()).
std::unique_ptr<CompressorSet> build_compressors(const Options& options, const Config& config,
                                                 std::uint32_t max_batch) {
    set_active_cost_model(
        load_cost_model(options.cost_model_path, options.recalibrate, config.cost_overrides));
    return make_compressors(config, max_batch);
}

// Before attaching, the set was built for batch_size pages; a ring of fewer
// slots never fills such a batch.  Built again for the largest batch the
// ring holds, so that the GPU's buffers fit it (locked memory, for good);
// a warm-up of that many pages is short even with the ring attached.
void fit_to_ring(std::unique_ptr<CompressorSet>& compressors, const Config& config,
                 std::uint32_t ring_slots, AgentMetrics& metrics) {
    const std::uint32_t most = largest_batch(config.batch_size, ring_slots);
    if (compressors->max_batch() <= most) {
        return;
    }
    // The old set goes first: nothing uses it yet (no drain loop, no shared
    // ring), and its GPU memory would otherwise be held twice meanwhile.
    compressors.reset();
    compressors = make_compressors(config, most);
    compressors->set_metrics(&metrics);
    log_info("compressors built again for batches of " + std::to_string(most) +
             " pages, the ring's slots");
}

void apply_batching(DrainLoop& loop, const Config& config) {
    loop.set_batching(config.batch_size, std::chrono::microseconds(config.flush_us));
    log_info("batches of up to " + std::to_string(loop.batch_size()) + " pages, flush after " +
             std::to_string(config.flush_us) + " us, backend " +
             std::string(to_string(config.backend)));
}

// SIGHUP: a bad file keeps the running settings.  The fresh compressors
// take over the staging area's registration from the old ones (the driver
// registers a range once).
void reload(const Options& options, DrainLoop& loop, std::unique_ptr<CompressorSet>& compressors,
            const ring::RingView& view, AgentMetrics& metrics, std::optional<int> running_nice) {
    Config config;
    try {
        config = effective_config(options);
    } catch (const ConfigError& error) {
        log_error(std::string("reload: ") + error.what() + "; keeping the running settings");
        return;
    }
    // One value for all the threads, chosen at start.
    if (config.nice != running_nice) {
        log_warning("reload: a new nice value takes effect when ozramd starts again");
    }
    Options cached = options;
    cached.recalibrate = false;
    // The old compressors go: none of their batches may be in flight.  The
    // drain loop waits for the new ones, whose warm-up takes no more pages
    // than the ring has slots.
    loop.finish_in_flight();
    try {
        auto fresh =
            build_compressors(cached, config, largest_batch(config.batch_size, view.header.slots));
        fresh->set_metrics(&metrics);
        compressors->release_ring();
        if (config.gpu_staging == GpuStaging::InPlace) {
            fresh->share_ring(staging_area(view), output_area(view));
        }
        loop.set_picker(*fresh);
        compressors = std::move(fresh);
    } catch (const std::exception& error) {
        log_error(std::string("reload: ") + error.what() + "; keeping the running settings");
        return;
    }
    set_log_level(config.log_level);
    apply_batching(loop, config);
    log_info("configuration reloaded");
}

// The sockets of the metrics endpoint: --metrics-listen's (the socket
// systemd passed for that address, if any, or a new one) and every other
// socket systemd passed.  Return: an exit status if the agent must stop.
std::optional<int> metrics_sockets(const Options& options, std::vector<int>& inherited,
                                   std::vector<int>& listening) {
    if (options.metrics_listen) {
        const ListenAddress& address = *options.metrics_listen;
        try {
            listening.push_back(listen_on(address, inherited));
        } catch (const ListenForbidden& error) {
            // A sandbox (ozramd.service's) forbids it: no restart helps.
            log_error(
                "--metrics-listen " + address.host + " port " + std::to_string(address.port) +
                ": this process may not open network sockets (socket(): " + error.code().message() +
                "): a sandbox forbids them, as ozramd.service's does (Unix sockets only); "
                "under systemd, enable ozramd-metrics.socket instead, which passes the agent a "
                "socket that listens already (ozramd(8), METRICS)");
            return EXIT_USAGE;
        } catch (const Error& error) {
            log_error(error.what());
            return EXIT_RUNTIME;
        }
    }
    listening.insert(listening.end(), inherited.begin(), inherited.end());
    inherited.clear();
    return std::nullopt;
}

int serve(const Options& options, const Config& initial, std::vector<int> inherited) {
    if (!pin_memory() && options.require_mlock) {
        log_error("--require-mlock: memory could not be locked");
        return EXIT_MLOCK;
    }
    // The ring, and with it the largest batch, is not known yet.
    auto compressors = build_compressors(options, initial, initial.batch_size);
    // Without a GPU the agent compresses on the CPUs the applications need:
    // it takes only what they leave, and the kernel compresses the rest.
    // With one, each page costs the host less through the agent than inline.
    const int nice = initial.nice.value_or(compressors->has_gpu() ? 0 : 19);
    set_nice(nice);
    log_info("nice " + std::to_string(nice) + (initial.nice ? "" : " (auto)"));
    // The endpoint answers from before the ring is attached (with --wait,
    // that may be long) until after it is detached.
    AgentMetrics metrics;
    compressors->set_metrics(&metrics);
    std::optional<MetricsServer> metrics_server;
    std::vector<int> listening;
    if (const auto status = metrics_sockets(options, inherited, listening)) {
        for (const int fd : inherited) {
            close(fd);
        }
        return *status;
    }
    if (!listening.empty()) {
        metrics_server.emplace(std::move(listening), [&metrics] { return metrics.render(); });
        log_info("metrics at http://" + metrics_server->bound() + "/metrics");
    }
    std::unique_ptr<ring::RingTransport> transport;
    try {
        transport = attach(options);
    } catch (const ring::AbiVersionError& error) {
        log_error(error.what());
        return EXIT_ABI_MISMATCH;
    } catch (const ring::NotARingError& error) {
        log_error(error.what());
        return EXIT_RUNTIME;
    } catch (const Error& error) {
        log_error(error.what());
        return ring_absent(error) ? EXIT_NO_RING : EXIT_RUNTIME;
    }
    if (!transport) {
        log_info("stopped by a signal before a ring was attached");
        return EXIT_OK;
    }
    const ring::RingView& view = transport->view();
    log_info("attached to " + transport->describe() + ": " + std::to_string(view.header.slots) +
             " slots, LZ4 pages up to " + std::to_string(view.header.huge_threshold) +
             " bytes, ABI " + std::to_string(view.header.abi_major) + "." +
             std::to_string(view.header.abi_minor));

    // Every format (the CPU pool compresses what the GPU does not), at each
    // page's level where the producer sends levels.
    const bool levels = (view.header.features & OZRAM_RING_FEAT_LEVELS) != 0;
    transport->declare_algorithms(((1u << OZRAM_RING_ALG_NR) - 1) |
                                  (levels ? OZRAM_RING_ALGS_LEVELS : 0u));

    fit_to_ring(compressors, initial, view.header.slots, metrics);
    if (initial.gpu_staging == GpuStaging::InPlace) {
        compressors->share_ring(staging_area(view), output_area(view));
    }

    DrainLoop loop(*transport, *compressors, metrics);
    apply_batching(loop, initial);
    // The module checks every result inside the doorbell's ioctl (with
    // verify=1 it decodes each): rung from a thread of its own, that check
    // runs while the loop compresses the next batch.  A shared-memory
    // producer's doorbell is a semaphore post, not worth a thread.
    loop.set_async_doorbell(options.shm_name.empty());
    report_ready(EXIT_OK);

    SignalFlags& flags = signal_flags();
    int status = EXIT_OK;
    try {
        while (!flags.stop) {
            if (flags.reload.exchange(false)) {
                reload(options, loop, compressors, view, metrics, initial.nice);
            }
            const Step step = loop.step(IDLE_TIMEOUT);
            if (step == Step::Stopping) {
                log_info("the producer is stopping");
                break;
            }
            if (step == Step::ProducerGone) {
                log_info("the producer closed the ring");
                break;
            }
        }
        // A stop (SIGTERM) may come between steps with batches in flight:
        // their compressors read the staging area until they finish, and
        // their results are posted and rung before the ring is let go.
        loop.finish_in_flight();
    } catch (const std::exception& error) {
        // The ring failed (a doorbell refused, say): what is in flight is
        // waited for, not posted, and the ring is let go in order; the
        // producer takes its slots back.
        log_error(std::string("the ring failed: ") + error.what());
        loop.abandon_in_flight();
        status = EXIT_RUNTIME;
    }
    try {
        loop.finish_doorbell();
    } catch (const std::exception& error) {
        log_warning(std::string("the last doorbell failed: ") + error.what());
    }
    // The driver must let go of the ring's areas before they are unmapped.
    compressors->release_ring();
    transport->detach();
    log_info(
        "detached: " + std::to_string(metrics.pages()) + " pages (" +
        std::to_string(metrics.pages(Backend::Gpu)) + " on the GPU) in " +
        std::to_string(metrics.batches()) + " batches (gpu " +
        std::to_string(metrics.batches(Backend::Gpu)) + ", cpu " +
        std::to_string(metrics.batches(Backend::Cpu)) + ", scalar " +
        std::to_string(metrics.batches(Backend::Scalar)) + "), " +
        std::to_string(metrics.output_bytes()) + " bytes out, " +
        std::to_string(metrics.failed_pages()) + " failed, " +
        std::to_string(metrics.rejected_submissions()) + " bad submissions, " +
        std::to_string(
            std::chrono::duration_cast<std::chrono::milliseconds>(metrics.doorbell_cpu()).count()) +
        " ms of CPU in the producer's doorbell");
    if (compressors->has_gpu()) {
        log_info("GPU pages read in place: " + std::to_string(compressors->gpu_pages_in_place()) +
                 ", copied first: " + std::to_string(compressors->gpu_pages_copied()));
    }
    return status;
}

int run(int argc, char** argv) {
    Options options;
    Config config;
    try {
        options = parse_options(argc, argv);
        if (options.help) {
            return cli::print_usage(usage_text());
        }
        if (options.version) {
            std::puts("ozramd (ozram) " OZRAM_VERSION);
            return EXIT_OK;
        }
        config = effective_config(options);
    } catch (const cli::UsageError& error) {
        return cli::usage_error("ozramd", error.what());
    }
    set_log_level(config.log_level);
    // Sockets systemd passed (ozramd-metrics.socket): taken at once, as
    // --daemon's fork would close them.
    std::vector<int> inherited;
    try {
        inherited = inherited_listeners();
    } catch (const Error& error) {
        log_error(error.what());
        return EXIT_USAGE;
    }
    if (options.daemonize && !inherited.empty()) {
        return cli::usage_error("ozramd",
                                "--daemon: the sockets systemd passed cannot follow its fork; "
                                "run ozramd in the foreground (Type=simple), as ozramd.service "
                                "does");
    }
    // The library's warnings (a GPU batch redone on the CPU, the GPU given
    // up) go where the daemon's own messages go, syslog included.
    ozram::set_warning_sink([](std::string_view message) { log_warning(std::string(message)); });
    if (options.daemonize) {
        try {
            daemonize();
        } catch (const Error& error) {
            log_error(error.what());
            return EXIT_RUNTIME;
        }
        use_syslog();
        try {
            write_pidfile(options.pidfile);
        } catch (const Error& error) {
            log_error(error.what());
            report_ready(EXIT_RUNTIME);
            return EXIT_RUNTIME;
        }
    } else if (options.syslog) {
        use_syslog();
    }
    install_signal_handlers();
    int status = EXIT_RUNTIME;
    try {
        status = serve(options, config, std::move(inherited));
    } catch (const ConfigError& error) {
        // Found only when applied (the cost.* settings): a restart cannot
        // mend it either.
        log_error(error.what());
        status = EXIT_USAGE;
    } catch (const std::exception& error) {
        log_error(error.what());
    }
    report_ready(status);
    if (options.daemonize) {
        remove_pidfile(options.pidfile);
    }
    return status;
}

}  // namespace
}  // namespace ozram::daemon

int main(int argc, char** argv) {
    if (!ozram::daemon::open_standard_streams()) {
        return ozram::daemon::EXIT_RUNTIME;  // no /dev/null: nowhere to say so either
    }
    return ozram::cli::finish_stdout("ozramd", ozram::daemon::run(argc, argv));
}
