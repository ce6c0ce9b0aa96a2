#include "commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "all_stats.hpp"
#include "backing.hpp"
#include "device_names.hpp"
#include "device_setup.hpp"
#include "each_listed_device.hpp"
#include "error_text.hpp"
#include "genl_client.hpp"
#include "json_output.hpp"
#include "module_parameters.hpp"
#include "ozram/error.hpp"
#include "prometheus_output.hpp"
#include "recompress.hpp"
#include "text_output.hpp"
#include "textfile_export.hpp"
#include "watch_view.hpp"

namespace ozramctl {
namespace {

volatile std::sig_atomic_t interrupted = 0;

void on_interrupt(int) {
    interrupted = 1;
}

void print(const std::string& text) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
}

// Runs `once` every `seconds` until SIGINT/SIGTERM (exit 0).
int every(unsigned seconds, const std::function<void(bool first)>& once) {
    struct sigaction action = {};
    action.sa_handler = on_interrupt;  // no SA_RESTART: the sleep ends at once
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    for (bool first = true; !interrupted; first = false) {
        once(first);
        timespec delay = {static_cast<time_t>(seconds), 0};
        while (!interrupted && nanosleep(&delay, &delay) != 0) {
        }
    }
    return 0;
}

unsigned watch_seconds(const CommandLine& line) {
    return line.interval_seconds.value_or(DEFAULT_WATCH_SECONDS);
}

// Prints once, or every interval under --watch until SIGINT/SIGTERM (exit 0).
int repeat(const CommandLine& line, const std::function<std::string()>& render) {
    if (!line.watch) {
        print(render());
        return 0;
    }
    return every(watch_seconds(line), [&](bool first) {
        const std::string text = render();
        if (!line.json && !line.prometheus && !first) {
            print("\n");  // a blank line between two samples
        }
        print(text);
    });
}

const std::filesystem::path SYS_BLOCK = "/sys/block";

bool device_exists(const std::string& name) {
    std::error_code error;
    return std::filesystem::exists(SYS_BLOCK / name, error);
}

// A device that the command named fails it when it goes; one that it found
// in the list is skipped (for_each_listed_device()).
void on_each_device(const CommandLine& line, const std::vector<std::string>& names,
                    const std::function<void(const std::string&)>& act) {
    if (line.device) {
        act(names.front());
    } else {
        for_each_listed_device(names, device_exists, act);
    }
}

StatsRecord device_stats(GenlClient& client, std::optional<std::uint32_t> device) {
    return client.stats(device);
}

AllStats all_stats(GenlClient& client) {
    return gather_all_stats(client.devices(), [&client](std::optional<std::uint32_t> device) {
        return client.stats(device);
    });
}

std::string with_newline(std::string json) {
    return json + '\n';
}

int devices(const CommandLine& line) {
    GenlClient client;
    auto list = client.devices();
    print(line.json ? with_newline(json_devices(list))
                    : text_devices(list, TextOptions{.bytes = line.bytes}));
    return 0;
}

// The module times I/O only while its parameter latency_stats is on, which
// it is not by default.
bool latency_stats_off() {
    return module_flag("latency_stats") == false;
}

// Says so on stderr, rather than show empty histograms as if nothing had
// happened.
void note_latency_stats_off() {
    if (latency_stats_off()) {
        std::fprintf(stderr, "ozramctl: %s; turn it on with: echo 1 > %s\n", LATENCY_STATS_OFF,
                     (MODULE_PARAMETERS / "latency_stats").c_str());
    }
}

// The live view: redrawn in place on a terminal, a block per sample
// (separated by a blank line) otherwise.
int watch_view(const CommandLine& line, GenlClient& client) {
    const TextOptions options{.bytes = line.bytes};
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
    std::optional<WatchSample> previous;
    timespec previous_time = {};
    return every(watch_seconds(line), [&](bool first) {
        WatchSample sample;
        sample.latency_stats_off = latency_stats_off();
        if (line.device) {
            sample.devices.push_back(device_stats(client, line.device));
            sample.total = client.stats(std::nullopt);
            sample.show_total = false;
        } else {
            AllStats all = all_stats(client);
            sample.devices = std::move(all.devices);
            sample.total = std::move(all.total);
        }
        timespec now = {};
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double seconds = static_cast<double>(now.tv_sec - previous_time.tv_sec) +
                               static_cast<double>(now.tv_nsec - previous_time.tv_nsec) / 1e9;
        const std::string frame =
            render_watch(sample, previous ? &*previous : nullptr, seconds, options);
        // Home and clear: the frame replaces the last one.
        print(terminal ? "\x1b[H\x1b[2J" + frame : (first ? "" : "\n") + frame);
        previous = std::move(sample);
        previous_time = now;
    });
}

int stats(const CommandLine& line) {
    GenlClient client;
    const TextOptions options{.bytes = line.bytes};
    if (line.watch && !line.json && !line.prometheus) {
        return watch_view(line, client);
    }
    return repeat(line, [&]() -> std::string {
        if (line.device) {
            auto record = device_stats(client, line.device);
            if (line.prometheus) {
                return prometheus_stats({record}, record);
            }
            return line.json ? with_newline(json_stats(record)) : text_stats(record, options);
        }
        // Device by device, then the module's own total.
        const AllStats all = all_stats(client);
        if (line.prometheus) {
            return prometheus_stats(all.devices, all.total);
        }
        if (line.json) {
            return with_newline(json_stats_all(all.devices, all.total));
        }
        std::string text;
        for (const auto& record : all.devices) {
            text += text_stats(record, options);
        }
        return text + text_stats(all.total, options);
    });
}

int agent(const CommandLine& line) {
    GenlClient client;
    const TextOptions options{.bytes = line.bytes};
    return repeat(line, [&]() -> std::string {
        auto total = client.stats(std::nullopt);
        return line.json ? with_newline(json_agent(total)) : text_agent(total, options);
    });
}

std::string json_latency(const StatsRecord& record) {
    const std::string name = record.dev_name.empty() ? "total" : record.dev_name;
    return "{\"dev_name\":" + json_string(name) + ',' + json_latency_members(record.latency) + '}';
}

int latency(const CommandLine& line) {
    GenlClient client;
    note_latency_stats_off();
    return repeat(line, [&]() -> std::string {
        std::vector<StatsRecord> records;
        if (line.device) {
            records.push_back(client.stats(line.device));
        } else {
            AllStats all = all_stats(client);
            records = std::move(all.devices);
            records.push_back(std::move(all.total));
        }
        std::string out;
        for (const StatsRecord& record : records) {
            if (!out.empty()) {
                out += line.json ? ',' : '\n';
            }
            out += line.json ? json_latency(record)
                             : text_latency(record.dev_name.empty() ? "total" : record.dev_name,
                                            record.latency);
        }
        if (line.json) {
            return with_newline(line.device ? out : "{\"devices\":[" + out + "]}");
        }
        return out;
    });
}

std::string path_of(const std::string& name, const char* file) {
    return "/sys/block/" + name + "/" + file;
}

// The text of /sys/block/NAME/FILE, or an Error with the errno.
std::string read_sysfs(const std::string& name, const char* file) {
    const std::string path = path_of(name, file);
    std::ifstream in(path);
    std::string text(std::istreambuf_iterator<char>(in), {});
    if (!in && !in.eof()) {
        const int code = errno ? errno : EIO;
        throw ozram::Error(code, "cannot read " + path + ": " + std::strerror(code));
    }
    if (text.empty()) {
        throw ozram::Error(EIO, "cannot read " + path);
    }
    return text;
}

// Writes the request to the device's recompress file and waits for the
// pass; zram's errnos in words.
void write_recompress(const std::string& name, const std::string& request) {
    const std::string path = path_of(name, "recompress");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        const int code = errno;
        throw ozram::Error(code, "cannot open " + path + ": " + std::strerror(code) +
                                     (code == EACCES ? " (needs root)" : ""));
    }
    // An empty request is one newline: every stored page.
    const std::string text = request + "\n";
    const ssize_t written = ::write(fd, text.data(), text.size());
    const int error = errno;
    ::close(fd);
    if (written < 0) {
        throw ozram::Error(
            error, name + ": recompress '" + request + "' refused: " + std::strerror(error) +
                       (error == EINVAL ? " (an algorithm the device lacks, or a threshold "
                                          "not below the huge class)"
                                        : ""));
    }
}

// Whether the device has a recompression algorithm: zram's recompress
// does nothing, and says nothing, without one.
bool has_recompression_algorithm(const std::string& name) {
    std::string algorithms;
    std::ifstream(path_of(name, "recomp_algorithm")) >> algorithms;
    return !algorithms.empty();
}

int recompress(const CommandLine& line) {
    GenlClient client;
    std::vector<std::string> names;
    if (line.device) {
        names.push_back(client.stats(line.device).dev_name);
        if (!has_recompression_algorithm(names.back())) {
            throw ozram::Error(EINVAL, names.back() +
                                           ": no recompression algorithm (write algo=NAME to "
                                           "recomp_algorithm before disksize)");
        }
    } else {
        // Every initialized device that has one, as writeback takes those
        // with a backing device.
        for (const StatsRecord& record : client.devices()) {
            if (record.value("initstate").value_or(0) == 1 &&
                has_recompression_algorithm(record.dev_name)) {
                names.push_back(record.dev_name);
            }
        }
        if (names.empty()) {
            throw ozram::Error(EINVAL,
                               "no initialized ozram device with a recompression algorithm (write "
                               "algo=NAME to recomp_algorithm before disksize)");
        }
    }
    const std::string request = recompress_argument(line.recompress);
    on_each_device(line, names, [&](const std::string& name) {
        auto counts = [&] {
            const auto parsed = parse_recompress_counts(read_sysfs(name, "backend_stat"));
            if (!parsed) {
                throw ozram::Error(EPROTO, name + ": backend_stat has no recompression numbers");
            }
            return *parsed;
        };
        const RecompressCounts before = counts();
        write_recompress(name, request);
        print(recompress_summary(name, before, counts(), line.bytes));
    });
    return 0;
}

// Over sysfs alone, as zram's tools do: no netlink needed.
int writeback(const CommandLine& line) {
    std::vector<std::string> names;
    const auto loaded = loaded_module_naming();
    const DeviceNaming naming = loaded.value_or(OZRAM_NAMING);
    // No device to act on, and no module: say the cause (a device that is
    // there without the module is driven all the same, sysfs being all).
    const auto unless_not_loaded = [&loaded](const std::string& otherwise) {
        if (!loaded) {
            return ozram::Error(ENOENT, "ozram module not loaded (" +
                                            MODULE_PARAMETERS.parent_path().string() +
                                            " not found)");
        }
        return ozram::Error(ENODEV, otherwise);
    };
    if (line.device) {
        names.push_back(naming.name(*line.device));
        if (!std::filesystem::exists(SYS_BLOCK / names.back())) {
            throw unless_not_loaded("no such device: " + names.back());
        }
    } else {
        // Every initialized device that has a backing device.
        for (std::string& name : initialized_devices(SYS_BLOCK, naming)) {
            if (has_backing_device(SYS_BLOCK / name)) {
                names.push_back(std::move(name));
            }
        }
        if (names.empty()) {
            throw unless_not_loaded("no initialized ozram device with a backing device");
        }
    }
    on_each_device(line, names, [&](const std::string& name) {
        const WritebackResult result = run_writeback(SYS_BLOCK / name, name, line.writeback);
        // What was written before a failure is said too.
        print(writeback_summary(name, result, line.bytes));
        if (result.error != 0) {
            throw ozram::Error(result.error,
                               writeback_error_message(name, *line.writeback.type, result.error,
                                                       result.limit_left == 0U));
        }
    });
    return 0;
}

int reset_stats(const CommandLine& line) {
    GenlClient client;
    client.reset_stats(line.device);
    return 0;
}

int compact(const CommandLine& line) {
    GenlClient client;
    client.compact(line.device);
    return 0;
}

int export_metrics(const CommandLine& line) {
    std::optional<GenlClient> client;
    auto once = [&] {
        if (!client) {
            client.emplace();
        }
        const AllStats all = all_stats(*client);
        write_textfile(*line.textfile_dir, prometheus_stats(all.devices, all.total));
    };
    if (!line.interval_seconds) {
        once();
        return 0;
    }
    const int status = every(*line.interval_seconds, [&](bool first) {
        if (first) {
            // Its error ends the command: a wrong directory or no module
            // shows at once.
            once();
            return;
        }
        try {
            once();
        } catch (const std::exception& error) {
            // A device removed, the module reloaded (its netlink family
            // anew), a full disk: the figures are withdrawn rather than left
            // to look current, and the next round tries again.
            client.reset();
            remove_textfile(*line.textfile_dir);
            std::fprintf(stderr,
                         "ozramctl: export: %s; the file is removed until a write succeeds\n",
                         error_text(error).c_str());
        }
    });
    // Stopped by SIGINT or SIGTERM: nobody writes the figures any more, so
    // they are withdrawn, as after a failed write.
    remove_textfile(*line.textfile_dir);
    return status;
}

int setup(const CommandLine& line) {
    SetupRequest request{
        .device = line.device, .size = *line.size, .swap = line.swap, .priority = line.priority};
    print(setup_device(request, {.naming = loaded_module_naming().value_or(OZRAM_NAMING)}) + '\n');
    return 0;
}

}  // namespace

int run_command(const CommandLine& line) {
    // "zram0" given while the module has its own names, or "ozram0" while it
    // has zram's: say so, rather than act on a device of the other naming
    // (the stock zram module's zram0 may well exist).
    if (line.device) {
        const auto naming = loaded_module_naming();
        const DeviceArgument given{*line.device, line.device_prefix};
        if (auto mismatch = naming ? naming_mismatch(given, *naming) : std::nullopt) {
            throw ozram::Error(ENODEV, *mismatch);
        }
    }
    switch (line.subcommand) {
        case Subcommand::devices:
            return devices(line);
        case Subcommand::stats:
            return stats(line);
        case Subcommand::agent:
            return agent(line);
        case Subcommand::reset_stats:
            return reset_stats(line);
        case Subcommand::compact:
            return compact(line);
        case Subcommand::setup:
            return setup(line);
        case Subcommand::export_metrics:
            return export_metrics(line);
        case Subcommand::latency:
            return latency(line);
        case Subcommand::recompress:
            return recompress(line);
        case Subcommand::writeback:
            return writeback(line);
        case Subcommand::none:
            break;
    }
    return 2;
}

}  // namespace ozramctl
