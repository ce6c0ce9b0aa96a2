#include "recompress.hpp"

#include <sstream>

#include "ozram_genl.h"
#include "size_format.hpp"
#include "stat_fields.hpp"

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

std::optional<RecompressCounts> parse_recompress_counts(std::string_view backend_stat) {
    auto name_of = [](int stat_attr) {
        return std::string(stat_fields()[*find_stat_field(Source::nested_stats, stat_attr)].key);
    };
    const std::string pages_name = name_of(OZRAM_STAT_ATTR_RECOMPRESSED_PAGES);
    const std::string saved_name = name_of(OZRAM_STAT_ATTR_RECOMPRESS_SAVED);
    std::optional<std::uint64_t> pages;
    std::optional<std::uint64_t> saved;
    std::istringstream in{std::string(backend_stat)};
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(": ");
        if (colon == std::string::npos) {
            continue;
        }
        std::uint64_t value = 0;
        if (!(std::istringstream(line.substr(colon + 2)) >> value)) {
            continue;
        }
        const std::string name = line.substr(0, colon);
        if (name == pages_name) {
            pages = value;
        } else if (name == saved_name) {
            saved = value;
        }
    }
    if (!pages || !saved) {
        return std::nullopt;
    }
    return RecompressCounts{*pages, *saved};
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
