#include "recompress.hpp"

#include <sstream>

#include "size_format.hpp"

namespace ozramctl {

std::string recompress_argument(const RecompressRequest& request) {
    std::string out;
    auto add = [&](std::string_view key, const std::string& value) {
        if (!out.empty()) {
            out += ' ';
        }
        out += std::string(key) + '=' + value;
    };
    if (request.type) {
        add("type", *request.type);
    }
    if (request.threshold) {
        add("threshold", std::to_string(*request.threshold));
    }
    if (request.max_pages) {
        add("max_pages", std::to_string(*request.max_pages));
    }
    if (request.algo) {
        add("algo", *request.algo);
    }
    return out;
}

std::optional<RecompressCounts> parse_recompress_counts(std::string_view mm_stat) {
    std::istringstream in{std::string(mm_stat)};
    std::uint64_t numbers[11];
    for (std::uint64_t& number : numbers) {
        if (!(in >> number)) {
            return std::nullopt;
        }
    }
    return RecompressCounts{numbers[9], numbers[10]};
}

std::string recompress_summary(std::string_view device, const RecompressCounts& before,
                               const RecompressCounts& after, bool bytes) {
    // A page recompressed and then overwritten leaves the counts: clamp.
    const std::uint64_t pages = after.pages > before.pages ? after.pages - before.pages : 0;
    const std::uint64_t saved = after.saved > before.saved ? after.saved - before.saved : 0;
    return std::string(device) + ": " + std::to_string(pages) + " pages recompressed, " +
           (bytes ? std::to_string(saved) + " bytes" : human_size(saved)) + " saved\n";
}

}  // namespace ozramctl
