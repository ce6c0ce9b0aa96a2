#include "log.hpp"

#include <syslog.h>

#include <atomic>
#include <cstdio>

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
        std::fprintf(stderr, "ozramd: %s%s\n", prefix(level), message.c_str());
    }
}

}  // namespace ozram::daemon
