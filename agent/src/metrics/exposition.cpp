#include "metrics/exposition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ozram::metrics {
namespace {

bool valid_name(std::string_view name, bool colon_allowed) {
    auto first = [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
               (colon_allowed && c == ':');
    };
    auto other = [&](char c) { return first(c) || (c >= '0' && c <= '9'); };
    return !name.empty() && first(name.front()) && std::all_of(name.begin() + 1, name.end(), other);
}

// HELP text escapes backslash and line feed; label values double quotes too.
std::string escape(std::string_view text, bool quotes) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (quotes && c == '"') {
            out += "\\\"";
        } else {
            out += c;
        }
    }
    return out;
}

std::string_view type_name(Type type) {
    switch (type) {
        case Type::counter:
            return "counter";
        case Type::gauge:
            return "gauge";
        case Type::histogram:
            return "histogram";
    }
    return "untyped";
}

void append_label(std::string& out, const Label& label) {
    if (!valid_name(label.name, false) || label.name.starts_with("__")) {
        throw std::invalid_argument("invalid label name '" + label.name + "'");
    }
    out += label.name;
    out += "=\"";
    out += escape(label.value, true);
    out += '"';
}

}  // namespace

std::string format_number(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "+Inf" : "-Inf";
    }
    char buffer[32];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, end);
}

void Exposition::family(std::string_view name, Type type, std::string_view help) {
    if (!valid_name(name, true)) {
        throw std::invalid_argument("invalid metric name '" + std::string(name) + "'");
    }
    if (std::ranges::find(names_, name) != names_.end()) {
        throw std::invalid_argument("metric family '" + std::string(name) + "' given twice");
    }
    names_.emplace_back(name);
    name_ = name;
    type_ = type;
    open_ = true;
    text_ += "# HELP " + name_ + ' ' + escape(help, false) + '\n';
    text_ += "# TYPE " + name_ + ' ' + std::string(type_name(type)) + '\n';
}

void Exposition::require(Type type) const {
    if (!open_ || (type == Type::histogram) != (type_ == Type::histogram)) {
        throw std::logic_error("sample of the wrong kind for family '" + name_ + "'");
    }
}

void Exposition::sample(std::string_view suffix, const Labels& labels, const Label* extra,
                        std::string_view value) {
    text_ += name_;
    text_ += suffix;
    if (!labels.empty() || extra != nullptr) {
        text_ += '{';
        bool first = true;
        for (const Label& label : labels) {
            if (!first) {
                text_ += ',';
            }
            append_label(text_, label);
            first = false;
        }
        if (extra != nullptr) {
            if (!first) {
                text_ += ',';
            }
            append_label(text_, *extra);
        }
        text_ += '}';
    }
    text_ += ' ';
    text_ += value;
    text_ += '\n';
}

void Exposition::count(const Labels& labels, std::uint64_t value) {
    require(Type::counter);
    sample("", labels, nullptr, std::to_string(value));
}

void Exposition::value(const Labels& labels, double value) {
    require(Type::gauge);
    sample("", labels, nullptr, format_number(value));
}

void Exposition::histogram(const Labels& labels, std::span<const Bucket> buckets, double sum,
                           std::uint64_t count) {
    require(Type::histogram);
    for (const Bucket& bucket : buckets) {
        const Label le{"le", format_number(bucket.upper_bound)};
        sample("_bucket", labels, &le, std::to_string(bucket.cumulative_count));
    }
    const Label infinity{"le", "+Inf"};
    sample("_bucket", labels, &infinity, std::to_string(count));
    sample("_sum", labels, nullptr, format_number(sum));
    sample("_count", labels, nullptr, std::to_string(count));
}

}  // namespace ozram::metrics
