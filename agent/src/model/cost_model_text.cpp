// The cost model's text form: one "key = value" per line, '#' comments.
// The agent caches a calibrated model in this form and its configuration can
// override single constants; when a key repeats, the last value wins, so an
// override is simply appended to the cached text.
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"

namespace ozram {
namespace {

enum class Field { ScalarFixed, ScalarPerPage, CpuFixed, CpuPerPage, GpuFixed, GpuPcie, GpuKernel };

struct Key {
    std::string_view name;
    Field field;
    bool must_be_positive;  // a rate; times may be zero
};

constexpr std::array<Key, 7> KEYS{{
    {"scalar.fixed_ns", Field::ScalarFixed, false},
    {"scalar.per_page_ns", Field::ScalarPerPage, false},
    {"cpu.fixed_ns", Field::CpuFixed, false},
    {"cpu.per_page_ns", Field::CpuPerPage, false},
    {"gpu.fixed_ns", Field::GpuFixed, false},
    {"gpu.pcie_gbps", Field::GpuPcie, true},
    {"gpu.kernel_gbps", Field::GpuKernel, true},
}};

std::string format_number(double value) {
    // Shortest text that reads back as the same double.
    std::array<char, 64> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
}

std::string_view trim(std::string_view text) {
    constexpr std::string_view BLANKS = " \t\r";
    const std::size_t first = text.find_first_not_of(BLANKS);
    if (first == std::string_view::npos) {
        return {};
    }
    const std::size_t last = text.find_last_not_of(BLANKS);
    return text.substr(first, last - first + 1);
}

[[noreturn]] void reject(std::size_t line_number, std::string_view line, const std::string& why) {
    throw Error(EINVAL, "cost model line " + std::to_string(line_number) + " (\"" +
                            std::string(line) + "\"): " + why);
}

}  // namespace

std::string CostModel::serialize() const {
    std::ostringstream out;
    out << "# ozram cost model: time(n pages) = fixed_ns + n * per_page_ns\n";
    out << "scalar.fixed_ns = " << format_number(scalar.fixed_ns) << '\n';
    out << "scalar.per_page_ns = " << format_number(scalar.per_page_ns) << '\n';
    out << "cpu.fixed_ns = " << format_number(cpu.fixed_ns) << '\n';
    out << "cpu.per_page_ns = " << format_number(cpu.per_page_ns) << '\n';
    if (gpu) {
        out << "# gpu: time(n) = fixed_ns + n * 4096 / min(pcie_gbps, kernel_gbps)\n";
        out << "gpu.fixed_ns = " << format_number(gpu->fixed_ns) << '\n';
        out << "gpu.pcie_gbps = " << format_number(gpu->pcie_gbps) << '\n';
        out << "gpu.kernel_gbps = " << format_number(gpu->kernel_gbps) << '\n';
    }
    return out.str();
}

CostModel CostModel::parse(const std::string& text) {
    // Keys not given keep the defaults; the GPU exists only if its rates are given.
    CostModel model = defaults();
    GpuCost gpu{.fixed_ns = DEFAULT_GPU_FIXED_NS};
    bool any_gpu_key = false;
    bool has_pcie = false;
    bool has_kernel = false;

    std::istringstream lines(text);
    std::string raw_line;
    std::size_t line_number = 0;
    while (std::getline(lines, raw_line)) {
        ++line_number;
        std::string_view line = raw_line;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) {
            reject(line_number, line, "expected \"key = value\"");
        }
        const std::string_view name = trim(line.substr(0, equals));
        const std::string_view value_text = trim(line.substr(equals + 1));

        const Key* key = nullptr;
        for (const Key& candidate : KEYS) {
            if (candidate.name == name) {
                key = &candidate;
            }
        }
        if (key == nullptr) {
            reject(line_number, line, "unknown key");
        }
        double value = 0;
        const char* end = value_text.data() + value_text.size();
        const auto [stop, error] = std::from_chars(value_text.data(), end, value);
        if (value_text.empty() || error != std::errc{} || stop != end) {
            reject(line_number, line, "the value is not a number");
        }
        if (!std::isfinite(value) || value < 0 || (key->must_be_positive && value == 0)) {
            reject(line_number, line,
                   key->must_be_positive ? "a rate must be a positive finite number"
                                         : "a time must be a finite number >= 0");
        }

        switch (key->field) {
            case Field::ScalarFixed:
                model.scalar.fixed_ns = value;
                break;
            case Field::ScalarPerPage:
                model.scalar.per_page_ns = value;
                break;
            case Field::CpuFixed:
                model.cpu.fixed_ns = value;
                break;
            case Field::CpuPerPage:
                model.cpu.per_page_ns = value;
                break;
            case Field::GpuFixed:
                gpu.fixed_ns = value;
                any_gpu_key = true;
                break;
            case Field::GpuPcie:
                gpu.pcie_gbps = value;
                any_gpu_key = has_pcie = true;
                break;
            case Field::GpuKernel:
                gpu.kernel_gbps = value;
                any_gpu_key = has_kernel = true;
                break;
        }
    }
    if (any_gpu_key) {
        if (!has_pcie || !has_kernel) {
            throw Error(EINVAL, "cost model: a GPU needs both gpu.pcie_gbps and gpu.kernel_gbps");
        }
        model.gpu = gpu;
    }
    return model;
}

}  // namespace ozram
