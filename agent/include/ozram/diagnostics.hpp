// Where the library's warnings go.  The library itself only warns when it
// degrades without failing a call (a GPU batch finished on the CPU, the GPU
// given up); a daemon routes these into its own log.
#pragma once

#include <string_view>

namespace ozram {

// Receives one message, without a trailing newline.  Called from whichever
// thread degraded; must be thread-safe.
using WarningSink = void (*)(std::string_view message);

// Installs `sink`; nullptr restores the default, which prints to stderr.
void set_warning_sink(WarningSink sink);

// Reports `message` to the installed sink.
void warn(std::string_view message);

}  // namespace ozram
