#include "proc_maps.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <string>
#include <system_error>

namespace ozram::pagedump {
namespace {

// Splits off the next space-separated field of a maps line.
std::string_view next_field(std::string_view& rest) {
    const auto begin = rest.find_first_not_of(' ');
    if (begin == std::string_view::npos) {
        rest = {};
        return {};
    }
    rest.remove_prefix(begin);
    const auto end = rest.find(' ');
    const auto field = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
    return field;
}

bool parse_hex(std::string_view text, std::uint64_t& value) {
    const auto* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), last, value, 16);
    return ec == std::errc{} && ptr == last && !text.empty();
}

std::optional<RegionKind> classify(std::string_view path) {
    if (path.empty()) {
        return RegionKind::Anonymous;
    }
    if (path == "[heap]") {
        return RegionKind::Heap;
    }
    // Kernels before 4.5 also listed thread stacks as [stack:TID].
    if (path == "[stack]" || path.starts_with("[stack:")) {
        return RegionKind::Stack;
    }
    // Named with prctl(PR_SET_VMA_ANON_NAME): still anonymous memory.
    if (path.starts_with("[anon:")) {
        return RegionKind::Anonymous;
    }
    return std::nullopt;  // a file, or [vdso], [vvar], [vsyscall], ...
}

}  // namespace

std::string_view to_string(RegionKind kind) {
    switch (kind) {
        case RegionKind::Heap:
            return "heap";
        case RegionKind::Stack:
            return "stack";
        case RegionKind::Anonymous:
            return "anon";
    }
    return "unknown";
}

std::optional<Region> parse_anonymous_region(std::string_view line) {
    auto rest = line;
    const auto range = next_field(rest);
    const auto perms = next_field(rest);
    const auto offset = next_field(rest);
    const auto device = next_field(rest);
    const auto inode = next_field(rest);
    if (inode.empty() || perms.size() != 4 || offset.empty() || device.empty()) {
        return std::nullopt;
    }
    // The path is the remainder after the padding; it may contain spaces.
    const auto path_begin = rest.find_first_not_of(' ');
    const auto path =
        path_begin == std::string_view::npos ? std::string_view{} : rest.substr(path_begin);

    Region region;
    const auto dash = range.find('-');
    if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), region.start) ||
        !parse_hex(range.substr(dash + 1), region.end) || region.end <= region.start) {
        return std::nullopt;
    }
    // Shared anonymous memory is shmem (tmpfs), swapped by shmem, not by zram's
    // path for anonymous pages; an inode means a file even when the path is empty.
    const bool readable = perms[0] == 'r';
    const bool is_private = perms[3] == 'p';
    if (!readable || !is_private || inode != "0") {
        return std::nullopt;
    }
    const auto kind = classify(path);
    if (!kind) {
        return std::nullopt;
    }
    region.kind = *kind;
    return region;
}

std::vector<Region> read_anonymous_regions(pid_t pid) {
    const auto path = "/proc/" + std::to_string(pid) + "/maps";
    std::ifstream maps(path);
    if (!maps) {
        throw std::system_error(errno, std::generic_category(), "cannot open " + path);
    }
    std::vector<Region> regions;
    std::string line;
    while (std::getline(maps, line)) {
        if (auto region = parse_anonymous_region(line)) {
            regions.push_back(*region);
        }
    }
    if (maps.bad()) {
        throw std::system_error(errno, std::generic_category(), "cannot read " + path);
    }
    return regions;
}

}  // namespace ozram::pagedump
