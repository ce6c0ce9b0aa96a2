// ozramctl's command line: the subcommand, its device and its options.
// Parsing is pure (no I/O) so that it can be tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backing.hpp"
#include "device_names.hpp"
#include "recompress.hpp"

namespace ozramctl {

enum class Subcommand {
    none,
    devices,
    stats,
    agent,
    reset_stats,
    compact,
    setup,
    export_metrics,  // "export"
    latency,
    recompress,
    writeback,
};

struct CommandLine {
    Subcommand subcommand = Subcommand::none;
    bool help = false;                    // --help: of the subcommand when there is one
    bool version = false;                 // --version
    bool json = false;                    // -j, --json, --format json
    bool prometheus = false;              // --format prometheus
    bool bytes = false;                   // -b, --bytes
    bool watch = false;                   // -w, --watch
    std::optional<std::uint32_t> device;  // DEV
    std::string_view device_prefix;       // the naming DEV is written in, "" for a number
    // setup
    std::optional<std::uint64_t> size;  // -s, --size SIZE
    bool swap = false;                  // --swap
    std::optional<int> priority;        // -p, --priority N (-1..32767)
    // export
    std::optional<std::string> textfile_dir;   // --textfile DIR
    std::optional<unsigned> interval_seconds;  // --interval SECS (export, --watch)
    // recompress
    RecompressRequest recompress;  // --type, --threshold, --max-pages, --algo
    // writeback
    WritebackRequest writeback;  // --type, --limit, --compressed
};

// The seconds between two samples under --watch and export --interval.
inline constexpr unsigned DEFAULT_WATCH_SECONDS = 1;

// Parses argv[1..]; throws ozram::cli::UsageError with a message for people.
CommandLine parse_command_line(const std::vector<std::string_view>& args);

std::string_view subcommand_name(Subcommand subcommand);

// The usage text of one subcommand, or of the program for Subcommand::none.
std::string usage_text(Subcommand subcommand);

}  // namespace ozramctl
