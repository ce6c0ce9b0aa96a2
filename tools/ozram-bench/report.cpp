#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

namespace ozram::bench {
namespace {

std::string fixed(double value, int decimals) {
    if (std::isinf(value)) {
        return "inf";
    }
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    return text;
}

// A row whose pages did not all round-trip has no throughput: a batch that
// failed early takes less time than one that did the work, so its GB/s
// would flatter it.  Such figures are "-" in the table, empty in CSV and
// null in JSON.
bool has_throughput(const Measurement& m) {
    return m.mismatches == 0;
}

std::string throughput(const Measurement& m, double gbps) {
    return has_throughput(m) ? fixed(gbps, 4) : "";
}

// Field values in the order of csv_header(); JSON has no infinity, so an
// infinite ratio (every page same-filled) is null there and "inf" in CSV.
struct Field {
    const char* key;
    std::string value;
    bool quoted;
};

std::vector<Field> fields(const Measurement& m) {
    const auto ratio = m.ratio();
    return {
        {"backend", m.backend, true},
        {"threads", std::to_string(m.threads), false},
        {"batch", std::to_string(m.batch), false},
        {"repeats", std::to_string(m.repeats), false},
        {"pages", std::to_string(m.pages), false},
        {"bytes_in", std::to_string(m.bytes_in), false},
        {"bytes_out", std::to_string(m.bytes_out), false},
        {"ratio", fixed(ratio, 4), false},
        {"compress_gbps", throughput(m, m.compress_gbps), false},
        {"decompress_gbps", throughput(m, m.decompress_gbps), false},
        {"copy_gbps", fixed(m.copy_gbps, 4), false},
        {"verified_pages", std::to_string(m.verified_pages), false},
        {"mismatches", std::to_string(m.mismatches), false},
        {"raw_pages", std::to_string(m.raw_pages), false},
        {"same_filled_pages", std::to_string(m.same_filled_pages), false},
        {"kernel_gbps", throughput(m, m.kernel_gbps), false},
        {"warp_steps_per_page", fixed(m.warp_steps_per_page, 1), false},
    };
}

const Measurement* find(std::span<const Measurement> rows, std::string_view backend) {
    for (const auto& row : rows) {
        if (row.backend == backend) {
            return &row;
        }
    }
    return nullptr;
}

// The median over passes of a's GB/s divided by b's in the same pass; 0 when
// there is no pair.
double paired_median(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (b[i] > 0) {
            ratios.push_back(a[i] / b[i]);
        }
    }
    return median(std::move(ratios));
}

void print_comparison(std::ostream& out, std::span<const Measurement> rows,
                      std::string_view library) {
    const auto* cpu = find(rows, "cpu");
    if (cpu == nullptr) {
        return;
    }
    const auto* reference = find(rows, std::string(library) + "-" + std::to_string(cpu->threads));
    if (reference == nullptr || reference->compress_gbps <= 0 || reference->decompress_gbps <= 0 ||
        reference->bytes_out == 0) {
        return;
    }
    for (const auto* row : {cpu, reference}) {
        if (!has_throughput(*row)) {
            out << "\ncpu vs " << reference->backend << ": not compared, " << row->mismatches
                << " page(s) of " << row->backend << " did not round-trip\n";
            return;
        }
    }
    const auto extra_bytes =
        static_cast<long long>(cpu->bytes_out) - static_cast<long long>(reference->bytes_out);
    out << "\ncpu vs " << reference->backend << " (same pages, batches and threads):\n"
        << "  medians:       compress " << fixed(cpu->compress_gbps / reference->compress_gbps, 3)
        << "x, decompress " << fixed(cpu->decompress_gbps / reference->decompress_gbps, 3) << "x\n"
        << "  pass by pass:  compress "
        << fixed(paired_median(cpu->compress_by_pass, reference->compress_by_pass), 3)
        << "x, decompress "
        << fixed(paired_median(cpu->decompress_by_pass, reference->decompress_by_pass), 3)
        << "x (median of the per-pass ratios)\n"
        << "  stored bytes:  " << cpu->bytes_out << " vs " << reference->bytes_out << " ("
        << (extra_bytes >= 0 ? "+" : "") << extra_bytes << "), ratio "
        << fixed(cpu->ratio() / reference->ratio(), 5) << "x\n"
        << "  same ratio:    " << (same_ratio(*cpu, *reference) ? "yes" : "NO") << " (within "
        << fixed(SAME_RATIO_TOLERANCE * 100, 1) << " % of " << reference->backend
        << "'s stored bytes)\n";
}

}  // namespace

bool same_ratio(const Measurement& row, const Measurement& reference) {
    const auto a = static_cast<double>(row.bytes_out);
    const auto b = static_cast<double>(reference.bytes_out);
    return std::abs(a - b) <= SAME_RATIO_TOLERANCE * b;
}

std::string csv_header() {
    std::string header;
    for (const auto& field : fields(Measurement{})) {
        header += header.empty() ? "" : ",";
        header += field.key;
    }
    return header;
}

std::string csv_row(const Measurement& m) {
    std::string row;
    for (const auto& field : fields(m)) {
        row += row.empty() ? "" : ",";
        row += field.value;
    }
    return row;
}

std::string json_row(const Measurement& m) {
    std::string row = "{";
    for (const auto& field : fields(m)) {
        row += row.size() > 1 ? ", " : "";
        row.append("\"").append(field.key).append("\": ");
        if (field.quoted) {
            row.append("\"").append(field.value).append("\"");  // names are [a-z0-9-]
        } else {
            row += field.value.empty() || field.value == "inf" ? "null" : field.value;
        }
    }
    return row + "}";
}

void print_table(std::ostream& out, std::span<const Measurement> rows,
                 std::string_view reference_library) {
    char line[256];
    std::snprintf(line, sizeof(line), "%-10s %7s %9s %10s %10s %7s %8s %8s %10s %10s %9s %10s\n",
                  "backend", "threads", "pages", "MiB in", "MiB out", "ratio", "raw", "same",
                  "comp GB/s", "decomp GB/s", "verified", "mismatches");
    out << line;
    constexpr double MIB = 1024.0 * 1024.0;
    const auto count = [](std::uint64_t n) { return static_cast<unsigned long long>(n); };
    for (const auto& m : rows) {
        if (m.copy_gbps > 0) {
            std::snprintf(line, sizeof(line), "%-10s pinned copy of %.1f MiB: %.2f GB/s\n",
                          m.backend.c_str(), static_cast<double>(m.bytes_in) / MIB, m.copy_gbps);
        } else {
            const auto gbps = [&](double value) {
                return has_throughput(m) ? fixed(value, 3) : std::string("-");
            };
            std::snprintf(
                line, sizeof(line),
                "%-10s %7u %9llu %10.1f %10.1f %7s %8llu %8llu %10s %11s %9llu %10llu\n",
                m.backend.c_str(), m.threads, count(m.pages), static_cast<double>(m.bytes_in) / MIB,
                static_cast<double>(m.bytes_out) / MIB, fixed(m.ratio(), 3).c_str(),
                count(m.raw_pages), count(m.same_filled_pages), gbps(m.compress_gbps).c_str(),
                gbps(m.decompress_gbps).c_str(), count(m.verified_pages), count(m.mismatches));
        }
        out << line;
    }
    for (const auto& m : rows) {
        if (m.warp_steps_per_page > 0) {
            std::snprintf(line, sizeof(line), "%-16s warp-steps a page (host emulation): %.0f\n",
                          m.backend.c_str(), m.warp_steps_per_page);
            out << line;
        }
    }
    for (const auto& m : rows) {
        if (m.kernel_gbps > 0 && has_throughput(m)) {
            std::snprintf(line, sizeof(line),
                          "%-10s compression kernel alone (device time): %.2f GB/s\n",
                          m.backend.c_str(), m.kernel_gbps);
            out << line;
        }
    }
    print_comparison(out, rows, reference_library);
}

}  // namespace ozram::bench
