#include "command_line.hpp"

#include <cstdint>

#include "cli/arguments.hpp"
#include "cli/integer_option.hpp"
#include "size_format.hpp"

namespace ozramctl {
namespace {

using ozram::cli::UsageError;

struct SubcommandName {
    std::string_view name;
    Subcommand subcommand;
};

constexpr SubcommandName SUBCOMMANDS[] = {
    {"devices", Subcommand::devices},       {"stats", Subcommand::stats},
    {"agent", Subcommand::agent},           {"reset-stats", Subcommand::reset_stats},
    {"compact", Subcommand::compact},       {"setup", Subcommand::setup},
    {"export", Subcommand::export_metrics}, {"latency", Subcommand::latency},
    {"recompress", Subcommand::recompress}, {"writeback", Subcommand::writeback},
};

bool takes_device(Subcommand subcommand) {
    return subcommand == Subcommand::stats || subcommand == Subcommand::reset_stats ||
           subcommand == Subcommand::compact || subcommand == Subcommand::setup ||
           subcommand == Subcommand::latency || subcommand == Subcommand::recompress ||
           subcommand == Subcommand::writeback;
}

bool shows_stats(Subcommand subcommand) {
    return subcommand == Subcommand::devices || subcommand == Subcommand::stats ||
           subcommand == Subcommand::agent || subcommand == Subcommand::latency;
}

// Walks the arguments: options may come before or after the subcommand.
class Parser {
  public:
    explicit Parser(const std::vector<std::string_view>& args) : arguments_(args) {}

    CommandLine parse() {
        while (arguments_.next()) {
            if (arguments_.is_option()) {
                option(arguments_.name());
            } else {
                operand(arguments_.name());
            }
        }
        take_type();
        check();
        return line_;
    }

  private:
    void option(std::string_view name) {
        auto flag = [&](bool& target) {
            arguments_.flag();
            target = true;
        };
        if (name == "-h" || name == "--help") {
            flag(line_.help);
        } else if (name == "-V" || name == "--version") {
            flag(line_.version);
        } else if (name == "-j" || name == "--json") {
            arguments_.flag();
            choose_format("json", std::string(name));
        } else if (name == "-b" || name == "--bytes") {
            flag(line_.bytes);
        } else if (name == "--format") {
            format(name, arguments_.value());
        } else if (name == "--textfile") {
            line_.textfile_dir = std::string(arguments_.value());
            if (line_.textfile_dir->empty()) {
                throw ozram::cli::bad_value(name, "a directory", "");
            }
        } else if (name == "--interval") {
            line_.interval_seconds =
                ozram::cli::parse_integer_option(name, arguments_.value(), 1U, 86400U);
        } else if (name == "--swap") {
            flag(line_.swap);
        } else if (name == "-w" || name == "--watch") {
            flag(line_.watch);
        } else if (name == "-s" || name == "--size") {
            line_.size = parse_size_option(name, arguments_.value());
        } else if (name == "--type") {
            // Checked once the subcommand is known: its types differ.
            type_ = std::string(arguments_.value());
        } else if (name == "--limit") {
            const std::uint64_t limit = parse_size_option(name, arguments_.value());
            if (writeback_limit_pages(limit) == 0) {
                throw ozram::cli::bad_value(name, "at least 4K (one writeback unit)",
                                            std::to_string(limit));
            }
            line_.writeback.limit_bytes = limit;
        } else if (name == "--compressed") {
            const std::string_view value = arguments_.value();
            if (value != "yes" && value != "no") {
                throw ozram::cli::bad_value(name, "yes or no", std::string(value));
            }
            line_.writeback.compressed = value == "yes";
        } else if (name == "--threshold") {
            line_.recompress.threshold = parse_size_option(name, arguments_.value());
        } else if (name == "--max-pages") {
            line_.recompress.max_pages = ozram::cli::parse_integer_option(
                name, arguments_.value(), std::uint64_t{1}, UINT64_MAX);
        } else if (name == "--algo") {
            line_.recompress.algo = std::string(arguments_.value());
            if (line_.recompress.algo->empty() ||
                line_.recompress.algo->find_first_of(" \t=") != std::string::npos) {
                throw ozram::cli::bad_value(name, "an algorithm name", *line_.recompress.algo);
            }
        } else if (name == "-p" || name == "--priority") {
            line_.priority = ozram::cli::parse_integer_option(name, arguments_.value(), -1, 32767);
        } else {
            arguments_.reject();
        }
    }

    // --type: recompress's or writeback's, by the subcommand.
    void take_type() {
        if (!type_ || line_.help || line_.version) {
            return;
        }
        const std::string& type = *type_;
        if (line_.subcommand == Subcommand::writeback) {
            if (!is_writeback_type(type)) {
                throw ozram::cli::bad_value("--type", "idle, huge, huge_idle or incompressible",
                                            type);
            }
            line_.writeback.type = type;
        } else {
            // Elsewhere check() refuses it as no option of the subcommand.
            if (line_.subcommand == Subcommand::recompress && type != "idle" && type != "huge" &&
                type != "huge_idle") {
                throw ozram::cli::bad_value("--type", "idle, huge or huge_idle", type);
            }
            line_.recompress.type = type;
        }
    }

    void format(std::string_view name, std::string_view value) {
        if (value != "text" && value != "json" && value != "prometheus") {
            throw ozram::cli::bad_value(name, "text, json or prometheus", value);
        }
        choose_format(value, std::string(name) + " " + std::string(value));
    }

    // -j and --format each name the output format: one that names another
    // than an earlier one is refused, not obeyed over it.
    void choose_format(std::string_view format, const std::string& option) {
        if (!format_.empty() && format != format_) {
            throw UsageError(option + " conflicts with " + format_option_);
        }
        format_ = format;
        format_option_ = option;
        line_.json = format == "json";
        line_.prometheus = format == "prometheus";
    }

    static std::uint64_t parse_size_option(std::string_view name, std::string_view text) {
        auto size = parse_size(text);
        if (!size || *size == 0) {
            throw ozram::cli::bad_value(name, "bytes, or a number with K, M, G, T, P or E", text);
        }
        return *size;
    }

    void operand(std::string_view arg) {
        if (line_.subcommand == Subcommand::none) {
            for (const auto& entry : SUBCOMMANDS) {
                if (entry.name == arg) {
                    line_.subcommand = entry.subcommand;
                    return;
                }
            }
            throw UsageError("unknown command '" + std::string(arg) + "'");
        }
        if (!takes_device(line_.subcommand) || line_.device) {
            throw ozram::cli::unexpected_argument(arg);
        }
        const auto device = parse_device_argument(arg);
        if (!device) {
            throw UsageError("invalid device '" + std::string(arg) +
                             "' (expected ozramN, /dev/ozramN, zramN with compat=1, or N)");
        }
        line_.device = device->number;
        line_.device_prefix = device->prefix;
    }

    // Options that only make sense for some subcommands are refused elsewhere,
    // so that a typo is not silently ignored.
    void check() const {
        if (line_.help || line_.version) {
            return;
        }
        const Subcommand sub = line_.subcommand;
        if (sub == Subcommand::none) {
            throw UsageError("no command given");
        }
        const std::string where =
            " is not an option of '" + std::string(subcommand_name(sub)) + "'";
        if (line_.json && !shows_stats(sub)) {
            throw UsageError("--json" + where);
        }
        // latency prints times and counts, no size.
        if (line_.bytes && (!shows_stats(sub) || sub == Subcommand::latency) &&
            sub != Subcommand::recompress && sub != Subcommand::writeback) {
            throw UsageError("--bytes" + where);
        }
        if (line_.watch && !watches(sub)) {
            throw UsageError("--watch" + where);
        }
        if (line_.prometheus && sub != Subcommand::stats) {
            throw UsageError("--format prometheus" + where);
        }
        if (sub != Subcommand::export_metrics && line_.textfile_dir) {
            throw UsageError("--textfile" + where);
        }
        if (sub != Subcommand::export_metrics && line_.interval_seconds && !line_.watch) {
            throw UsageError(watches(sub) ? "--interval needs --watch" : "--interval" + where);
        }
        if (sub == Subcommand::export_metrics && !line_.textfile_dir) {
            throw UsageError("export needs --textfile DIR");
        }
        if (sub != Subcommand::setup && (line_.size || line_.swap || line_.priority)) {
            throw UsageError(std::string(line_.size   ? "--size"
                                         : line_.swap ? "--swap"
                                                      : "--priority") +
                             where);
        }
        const RecompressRequest& r = line_.recompress;
        if (sub != Subcommand::recompress && (r.type || r.threshold || r.max_pages || r.algo)) {
            throw UsageError(std::string(r.type        ? "--type"
                                         : r.threshold ? "--threshold"
                                         : r.max_pages ? "--max-pages"
                                                       : "--algo") +
                             where);
        }
        if (sub != Subcommand::writeback && line_.writeback.compressed) {
            throw UsageError("--compressed" + where);
        }
        if (sub != Subcommand::writeback && line_.writeback.limit_bytes) {
            throw UsageError("--limit" + where);
        }
        if (sub == Subcommand::writeback && !line_.writeback.type) {
            throw UsageError("writeback needs --type");
        }
        if (sub == Subcommand::setup) {
            if (!line_.size) {
                throw UsageError("setup needs --size");
            }
            if (line_.priority && !line_.swap) {
                throw UsageError("--priority needs --swap");
            }
        }
    }

    static bool watches(Subcommand sub) {
        return sub == Subcommand::stats || sub == Subcommand::agent || sub == Subcommand::latency;
    }

    ozram::cli::Arguments arguments_;
    CommandLine line_;
    std::optional<std::string> type_;
    std::string format_;         // "text", "json" or "prometheus"; empty: none given
    std::string format_option_;  // the option that chose it, as the user would write it
};

}  // namespace

CommandLine parse_command_line(const std::vector<std::string_view>& args) {
    return Parser(args).parse();
}

std::string_view subcommand_name(Subcommand subcommand) {
    for (const auto& entry : SUBCOMMANDS) {
        if (entry.subcommand == subcommand) {
            return entry.name;
        }
    }
    return "ozramctl";
}

std::string usage_text(Subcommand subcommand) {
    switch (subcommand) {
        case Subcommand::devices:
            return "Usage: ozramctl devices [-j] [-b]\n"
                   "List the ozram devices: name, disk size and whether initialized.\n"
                   "  -j, --json    one JSON object\n"
                   "  -b, --bytes   sizes in bytes\n";
        case Subcommand::stats:
            return "Usage: ozramctl stats [-j | --format FMT] [-b] [-w [--interval SECS]] [DEV]\n"
                   "Statistics of DEV, or of every device and\n"
                   "their total, each number under its one name.\n"
                   "  -j, --json          one JSON object (one per line with --watch)\n"
                   "      --format FMT    text (default), json, or prometheus: the\n"
                   "                      Prometheus text format 0.0.4, metrics ozram_*\n"
                   "                      with a device label\n"
                   "  -b, --bytes         sizes in bytes\n"
                   "  -w, --watch         a live view until interrupted: per device the\n"
                   "                      ratio, memory, stored pages per backend per\n"
                   "                      second and p99 latencies, then the ring; redrawn\n"
                   "                      in place on a terminal, one block per sample\n"
                   "                      otherwise (JSON and prometheus: the whole output)\n"
                   "      --interval SECS seconds between samples under --watch (default 1)\n";
        case Subcommand::agent:
            return "Usage: ozramctl agent [-j] [-b] [-w [--interval SECS]]\n"
                   "State of the compression agent (ozramd) and of the offload ring:\n"
                   "attached or not, pid, ring occupancy, batches, pages per backend,\n"
                   "fallbacks, rejected completions, verify failures (n/a: not reported\n"
                   "by this module).\n"
                   "  -j, --json          one JSON object\n"
                   "  -b, --bytes         sizes in bytes\n"
                   "  -w, --watch         print again every interval until interrupted\n"
                   "      --interval SECS seconds between samples under --watch (default 1)\n";
        case Subcommand::reset_stats:
            return "Usage: ozramctl reset-stats [DEV]\n"
                   "Restart from 0 every counter (*_total but compacted_pages_total,\n"
                   "which the allocator keeps), clear the latency histograms and restart\n"
                   "mem_used_max_bytes, of DEV or of every device; the gauges are kept.\n"
                   "Needs CAP_NET_ADMIN.\n";
        case Subcommand::compact:
            return "Usage: ozramctl compact [DEV]\n"
                   "Compact the memory allocator of DEV or of every initialized device.\n"
                   "Needs CAP_NET_ADMIN.\n";
        case Subcommand::setup:
            return "Usage: ozramctl setup --size SIZE [--swap [--priority N]] [DEV]\n"
                   "Set the disk size of DEV, or of the first free device (adding one if\n"
                   "none is free), and print its path.\n"
                   "  -s, --size SIZE      disk size: bytes, or a number with K, M, G, T, P or E\n"
                   "      --swap           then run mkswap and swapon on it\n"
                   "  -p, --priority N     swap priority, -1..32767 (default: the kernel's)\n";
        case Subcommand::export_metrics:
            return "Usage: ozramctl export --textfile DIR [--interval SECS]\n"
                   "Write the statistics of every device, in the Prometheus text format,\n"
                   "to DIR/ozram.prom for node_exporter's textfile collector\n"
                   "(--collector.textfile.directory=DIR).  The file is replaced\n"
                   "atomically: written under a hidden name, then renamed.\n"
                   "  --textfile DIR      the collector's directory\n"
                   "  --interval SECS     write again every SECS seconds until interrupted\n"
                   "                      (default: once)\n";
        case Subcommand::latency:
            return "Usage: ozramctl latency [-j] [-w [--interval SECS]] [DEV]\n"
                   "Latency of page writes, page reads and ring round trips (a page\n"
                   "staged for the agent until it is stored) of DEV, or of every device\n"
                   "and their total: count, mean, p50, p99 and p99.9, then the\n"
                   "histograms.  Quantiles are estimated from log2 buckets (linearly\n"
                   "within a bucket, as Prometheus's histogram_quantile).\n"
                   "  -j, --json          one JSON object\n"
                   "  -w, --watch         print again every interval until interrupted\n"
                   "      --interval SECS seconds between samples under --watch (default 1)\n";
        case Subcommand::recompress:
            return "Usage: ozramctl recompress [--type TYPE] [--threshold SIZE] [--max-pages N]\n"
                   "                          [--algo NAME] [-b] [DEV]\n"
                   "Recompress the stored pages of DEV, or of every initialized device, with\n"
                   "the recompression algorithm set in recomp_algorithm, and print the pages\n"
                   "recompressed and the memory saved.  Runs until the pass is done; needs\n"
                   "root.  By default every stored page is a candidate, as zram's.\n"
                   "  --type TYPE        idle (pages marked idle), huge (pages stored raw),\n"
                   "                     or huge_idle (both)\n"
                   "  --threshold SIZE   only objects of at least SIZE bytes\n"
                   "  --max-pages N      at most N pages\n"
                   "  --algo NAME        only this recompression algorithm\n"
                   "  -b, --bytes        sizes in bytes\n";
        case Subcommand::writeback:
            return "Usage: ozramctl writeback --type TYPE [--limit SIZE] [--compressed yes|no]\n"
                   "                          [-b] [DEV]\n"
                   "Write pages of DEV, or of every initialized device that has one, to its\n"
                   "backing device (backing_dev, set before disksize) through zram's writeback\n"
                   "file, and print what was written back with bd_stat before and after\n"
                   "(bd_count blocks held, bd_reads and bd_writes pages, in 4 KiB units).\n"
                   "Needs root.\n"
                   "  --type TYPE     idle (pages marked idle: write 'all' or an age to\n"
                   "                  the idle file first), huge (pages stored raw),\n"
                   "                  huge_idle (both), or incompressible (zram 6.2's ABI)\n"
                   "  --limit SIZE    first set writeback_limit to SIZE (K, M, G, T, P, E; in\n"
                   "                  4 KiB units, rounded down) and writeback_limit_enable\n"
                   "                  to 1; the budget then shrinks with every page written\n"
                   "  --compressed yes|no\n"
                   "                  first set compressed_writeback (ozram's, not zram's):\n"
                   "                  yes packs the compressed pages into blocks, no writes\n"
                   "                  each page to a block of its own, as zram does; kept\n"
                   "                  for later writebacks\n"
                   "  -b, --bytes     sizes in bytes\n";
        case Subcommand::none:
            break;
    }
    return "Usage: ozramctl [OPTIONS] COMMAND [ARGS]\n"
           "Show and control ozram compressed RAM block devices.\n"
           "\n"
           "Commands:\n"
           "  devices                 list the devices\n"
           "  stats [DEV]             statistics of DEV, or of every device and the total\n"
           "  agent                   state of the compression agent and the ring\n"
           "  latency [DEV]           write, read and ring latency: quantiles, histograms\n"
           "  reset-stats [DEV]       reset the event counters (needs CAP_NET_ADMIN)\n"
           "  compact [DEV]           compact the allocator (needs CAP_NET_ADMIN)\n"
           "  setup --size SIZE [--swap [--priority N]] [DEV]\n"
           "                          size a free device (or DEV), optionally as swap\n"
           "  export --textfile DIR [--interval SECS]\n"
           "                          metrics for node_exporter's textfile collector\n"
           "  recompress [--type TYPE] [--threshold SIZE] [--max-pages N] [--algo NAME] [DEV]\n"
           "                          recompress stored pages with recomp_algorithm's\n"
           "  writeback --type TYPE [--limit SIZE] [--compressed yes|no] [DEV]\n"
           "                          write pages to the backing device (bd_stat)\n"
           "\n"
           "Options:\n"
           "  -j, --json              JSON output (devices, stats, agent, latency)\n"
           "      --format FMT        text, json or prometheus (stats)\n"
           "  -b, --bytes             sizes in bytes, not K/M/G\n"
           "  -w, --watch             repeat until interrupted (stats: a live view)\n"
           "      --interval SECS     seconds between samples (--watch, export)\n"
           "  -h, --help              this text; 'ozramctl COMMAND --help' for a command\n"
           "  -V, --version           the version\n"
           "\n"
           "DEV is ozramN, /dev/ozramN or N; zramN and /dev/zramN when the module\n"
           "is loaded with compat=1 and takes zram's names.  Exit status: 0 ok,\n"
           "1 runtime error, 2 usage error.\n";
}

}  // namespace ozramctl
