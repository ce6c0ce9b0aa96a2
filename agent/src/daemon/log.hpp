// ozramd's log: stderr in the foreground, syslog when asked or detached.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ozram::daemon {

enum class LogLevel { Error, Warning, Info, Debug };

[[nodiscard]] std::optional<LogLevel> parse_log_level(std::string_view text);

void set_log_level(LogLevel level);
// Sends every later message to syslog (facility daemon) instead of stderr.
void use_syslog();
[[nodiscard]] bool log_enabled(LogLevel level);
void log(LogLevel level, const std::string& message);

inline void log_error(const std::string& message) {
    log(LogLevel::Error, message);
}
inline void log_warning(const std::string& message) {
    log(LogLevel::Warning, message);
}
inline void log_info(const std::string& message) {
    log(LogLevel::Info, message);
}
inline void log_debug(const std::string& message) {
    log(LogLevel::Debug, message);
}

}  // namespace ozram::daemon
