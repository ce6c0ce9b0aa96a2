#include "pagedump_options.hpp"

#include <charconv>
#include <string>

namespace ozram::pagedump {
namespace {

template <typename Number>
Number parse_number(const std::string& option, const std::string& text, Number min_value) {
    Number value{};
    const auto* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), last, value);
    if (ec != std::errc{} || ptr != last || text.empty() || value < min_value) {
        throw UsageError(option + ": expected an integer >= " + std::to_string(min_value) +
                         ", got '" + text + "'");
    }
    return value;
}

}  // namespace

std::string usage_text() {
    return R"(usage: ozram-pagedump PID... -o FILE [--max-pages N] [--include-zero]

Snapshots the resident anonymous memory of running processes (their heap,
stacks and private anonymous mappings) into FILE, a plain concatenation of
4096-byte pages: the corpus ozram-bench reads.  Only pages present in RAM are
read (per /proc/PID/pagemap); swapped-out and never-touched pages are not.

  -o, --output FILE   where to write the pages (created or truncated)
  --max-pages N       stop after N pages in all
  --include-zero      also write all-zero pages (left out by default, since
                      zram stores them without compressing)
  -h, --help          show this help

Reading another process's memory needs ptrace access: root, CAP_SYS_PTRACE, or
the same user with kernel.yama.ptrace_scope=0.

Exit status: 0 success, 1 I/O error or nothing dumped, 2 usage error,
3 no such process, 4 permission denied.
)";
}

Options parse_options(const std::vector<std::string>& args) {
    Options options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& arg = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) {
                throw UsageError(arg + ": missing value");
            }
            return args[++i];
        };
        if (arg == "-h" || arg == "--help") {
            options.help = true;
        } else if (arg == "-o" || arg == "--output") {
            options.output = value();
        } else if (arg == "--max-pages") {
            options.max_pages = parse_number<std::uint64_t>(arg, value(), 1);
        } else if (arg == "--include-zero") {
            options.include_zero = true;
        } else if (arg.starts_with("-")) {
            throw UsageError("unknown option " + arg);
        } else {
            options.pids.push_back(parse_number<pid_t>("PID", arg, 1));
        }
    }
    if (options.help) {
        return options;
    }
    if (options.pids.empty()) {
        throw UsageError("no PID given");
    }
    if (options.output.empty()) {
        throw UsageError("no output file given (-o FILE)");
    }
    return options;
}

}  // namespace ozram::pagedump
