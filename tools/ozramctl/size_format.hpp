// Sizes as people read them and write them: binary K/M/G/T, like zramctl.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ozramctl {

// "0B", "512B", "4K", "1.5M", "64G": the largest binary unit that keeps the
// number at least 1, with one decimal when it is not whole (rounded).
std::string human_size(std::uint64_t bytes);

// Parses "4096", "64M", "4G", "1.5G", "512KiB", "2T" (binary units, case
// insensitive, optional "B"/"iB").  Empty on anything else or on overflow.
std::optional<std::uint64_t> parse_size(std::string_view text);

}  // namespace ozramctl
