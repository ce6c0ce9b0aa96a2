#include "commands.hpp"

#include <csignal>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>

#include "device_setup.hpp"
#include "genl_client.hpp"
#include "json_output.hpp"
#include "text_output.hpp"

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

// Prints once, or every line.watch_seconds until SIGINT/SIGTERM (exit 0).
int repeat(const CommandLine& line, const std::function<std::string()>& render) {
    if (!line.watch_seconds) {
        print(render());
        return 0;
    }
    struct sigaction action = {};
    action.sa_handler = on_interrupt;  // no SA_RESTART: the sleep ends at once
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    for (bool first = true; !interrupted; first = false) {
        const std::string text = render();
        if (!line.json && !first) {
            print("\n");  // a blank line between two samples
        }
        print(text);
        timespec delay = {static_cast<time_t>(*line.watch_seconds), 0};
        while (!interrupted && nanosleep(&delay, &delay) != 0) {
        }
    }
    return 0;
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

int stats(const CommandLine& line) {
    GenlClient client;
    const TextOptions options{.bytes = line.bytes};
    return repeat(line, [&]() -> std::string {
        if (line.device) {
            auto record = client.stats(line.device);
            return line.json ? with_newline(json_stats(record)) : text_stats(record, options);
        }
        // Device by device, then the module's own total.
        std::vector<StatsRecord> records;
        for (const auto& device : client.devices()) {
            records.push_back(client.stats(device.dev_id));
        }
        auto total = client.stats(std::nullopt);
        if (line.json) {
            return with_newline(json_stats_all(records, total));
        }
        std::string text;
        for (const auto& record : records) {
            text += text_stats(record, options);
        }
        return text + text_stats(total, options);
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

int setup(const CommandLine& line) {
    SetupRequest request{
        .device = line.device, .size = *line.size, .swap = line.swap, .priority = line.priority};
    print(setup_device(request) + '\n');
    return 0;
}

}  // namespace

int run_command(const CommandLine& line) {
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
        case Subcommand::none:
            break;
    }
    return 2;
}

}  // namespace ozramctl
