// The Prometheus text exposition format, version 0.0.4: metric families,
// each introduced by its HELP and TYPE lines, with their samples right after.
// The writer escapes help texts and label values as the format requires and
// refuses what the format forbids (a bad name, a family given twice).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ozram::metrics {

// The Content-Type of the format, for an HTTP answer.
inline constexpr std::string_view CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

enum class Type { counter, gauge, histogram };

struct Label {
    std::string name;
    std::string value;
};
using Labels = std::vector<Label>;

// One bucket of a histogram: the observations at most `upper_bound`, counted
// cumulatively as the format wants them.
struct Bucket {
    double upper_bound;
    std::uint64_t cumulative_count;
};

class Exposition {
  public:
    // Starts a family.  Throws std::invalid_argument on a name that is not
    // [a-zA-Z_:][a-zA-Z0-9_:]* or that an earlier family used.
    void family(std::string_view name, Type type, std::string_view help);

    // A sample of the current counter or gauge family.
    void count(const Labels& labels, std::uint64_t value);
    void value(const Labels& labels, double value);

    // A histogram of the current histogram family: its _bucket lines (the
    // "+Inf" one added, holding `count`), then _sum and _count.
    void histogram(const Labels& labels, std::span<const Bucket> buckets, double sum,
                   std::uint64_t count);

    [[nodiscard]] const std::string& text() const { return text_; }

  private:
    void sample(std::string_view suffix, const Labels& labels, const Label* extra,
                std::string_view value);
    void require(Type type) const;

    std::string text_;
    std::string name_;
    Type type_ = Type::counter;
    bool open_ = false;
    std::vector<std::string> names_;
};

// A number as the format writes it: the shortest text that reads back as the
// same double, "+Inf", "-Inf" or "NaN".
std::string format_number(double value);

}  // namespace ozram::metrics
