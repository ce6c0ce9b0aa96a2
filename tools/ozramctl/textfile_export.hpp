// "ozramctl export --textfile DIR": the metrics for node_exporter's textfile
// collector, which reads every DIR/*.prom at each scrape.  The file is
// replaced atomically (written under a hidden name, then renamed over the
// old one), so that a scrape never sees half of it.  The hidden name is
// random and the file is created new, relative to DIR: DIR is often
// writable by the exporter's account, and a symbolic link planted there
// must not turn root's write against another file.
#pragma once

#include <filesystem>
#include <string_view>

namespace ozramctl {

// The file the exporter writes in DIR.
inline constexpr std::string_view TEXTFILE_NAME = "ozram.prom";

// Writes `text` to DIR/ozram.prom atomically (mode 0644).  Throws
// ozram::Error naming the path on failure; leaves no temporary file behind.
void write_textfile(const std::filesystem::path& dir, std::string_view text);

// Removes DIR/ozram.prom (the name itself, never what a link points at), so
// that the collector serves no figures that are no longer current.
void remove_textfile(const std::filesystem::path& dir) noexcept;

}  // namespace ozramctl
