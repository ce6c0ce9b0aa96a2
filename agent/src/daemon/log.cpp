#include "log.hpp"

#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace ozram::daemon {
namespace {

std::atomic<LogLevel> threshold{LogLevel::Info};
std::atomic<bool> to_syslog{false};

int syslog_priority(LogLevel level) {
    switch (level) {
        case LogLevel::Error:
            return LOG_ERR;
        case LogLevel::Warning:
            return LOG_WARNING;
        case LogLevel::Info:
            return LOG_INFO;
        case LogLevel::Debug:
            return LOG_DEBUG;
    }
    return LOG_INFO;
}

// Whether stderr is the journal's stream: systemd names it in JOURNAL_STREAM
// as "DEVICE:INODE" (systemd.exec(5)).  A stderr redirected elsewhere by
// the service's own command has another.
bool stderr_is_the_journal() {
    const char* stream = std::getenv("JOURNAL_STREAM");
    struct stat st {};
    if (stream == nullptr || ::fstat(STDERR_FILENO, &st) != 0) {
        return false;
    }
    unsigned long long device = 0;
    unsigned long long inode = 0;
    return std::sscanf(stream, "%llu:%llu", &device, &inode) == 2 &&
           device == static_cast<unsigned long long>(st.st_dev) &&
           inode == static_cast<unsigned long long>(st.st_ino);
}

const char* prefix(LogLevel level) {
    switch (level) {
        case LogLevel::Error:
            return "error: ";
        case LogLevel::Warning:
            return "warning: ";
        case LogLevel::Info:
        case LogLevel::Debug:
            return "";
    }
    return "";
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
    if (text == "error") {
        return LogLevel::Error;
    }
    if (text == "warning") {
        return LogLevel::Warning;
    }
    if (text == "info") {
        return LogLevel::Info;
    }
    if (text == "debug") {
        return LogLevel::Debug;
    }
    return std::nullopt;
}

void set_log_level(LogLevel level) {
    threshold = level;
}

void use_syslog() {
    ::openlog("ozramd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
    to_syslog = true;
}

bool log_enabled(LogLevel level) {
    return level <= threshold.load();
}

void log(LogLevel level, const std::string& message) {
    if (!log_enabled(level)) {
        return;
    }
    if (to_syslog) {
        ::syslog(syslog_priority(level), "%s", message.c_str());
    } else {
        // The priority journald reads from a line on a stream it is given
        // (SyslogLevelPrefix=, on by default; sd-daemon(3)'s "<3>"):
        // without it, it files every line at info, errors included.
        static const bool journal = stderr_is_the_journal();
        char priority[8] = "";
        if (journal) {
            std::snprintf(priority, sizeof priority, "<%d>", syslog_priority(level));
        }
        std::fprintf(stderr, "%sozramd: %s%s\n", priority, prefix(level), message.c_str());
    }
}

}  // namespace ozram::daemon
