#include "metrics_http.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>

#include "log.hpp"
#include "metrics/exposition.hpp"

namespace ozram::daemon::http {
namespace {

std::string response(std::string_view status, std::string_view content_type,
                     const std::string& body, bool head, std::string_view extra_headers = {}) {
    std::string out = "HTTP/1.1 " + std::string(status) + "\r\n";
    out += "Content-Type: " + std::string(content_type) + "\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += extra_headers;
    out += "Connection: close\r\n\r\n";
    if (!head) {
        out += body;
    }
    return out;
}

// Lines end in CRLF, but RFC 9112 lets a server take a bare LF for one, and
// a request typed into nc or sent by printf ends its lines so.
bool has_empty_line(std::string_view received) {
    for (std::size_t end = received.find('\n'); end != std::string_view::npos;
         end = received.find('\n', end + 1)) {
        const std::string_view next = received.substr(end + 1);
        if (next.starts_with('\n') || next.starts_with("\r\n")) {
            return true;
        }
    }
    return false;
}

// RFC 9112, 2.2: a server should ignore empty lines received before the
// request line (a client may send one after a request's body).
std::string_view without_leading_empty_lines(std::string_view received) {
    while (true) {
        if (received.starts_with('\n')) {
            received.remove_prefix(1);
        } else if (received.starts_with("\r\n")) {
            received.remove_prefix(2);
        } else {
            return received;
        }
    }
}

std::string_view first_line(std::string_view received) {
    std::string_view line = received.substr(0, received.find('\n'));
    if (line.ends_with('\r')) {
        line.remove_suffix(1);
    }
    return line;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// HTTP-version = "HTTP/" DIGIT "." DIGIT: its major digit, or nothing if
// `version` is not one.
std::optional<char> major_version(std::string_view version) {
    if (version.size() != 8 || !version.starts_with("HTTP/") || !is_digit(version[5]) ||
        version[6] != '.' || !is_digit(version[7])) {
        return std::nullopt;
    }
    return version[5];
}

// Whether `target` starts with `scheme` (lower case), in any case.
bool starts_with_scheme(std::string_view target, std::string_view scheme) {
    return target.size() >= scheme.size() &&
           std::equal(scheme.begin(), scheme.end(), target.begin(), [](char want, char got) {
               return want == std::tolower(static_cast<unsigned char>(got));
           });
}

// The path of a request target.  RFC 9112, 3.2.2: a server must accept
// the absolute form ("http://host:port/path"), which a client sends to a
// proxy; its path is what follows the authority, "/" when none does.  A
// query changes nothing here.
std::string_view target_path(std::string_view target) {
    for (const std::string_view scheme : {"http://", "https://"}) {
        if (starts_with_scheme(target, scheme)) {
            target.remove_prefix(scheme.size());
            const std::size_t path = target.find_first_of("/?");
            target = path == std::string_view::npos || target[path] == '?' ? std::string_view("/")
                                                                           : target.substr(path);
            break;
        }
    }
    return target.substr(0, target.find('?'));
}

}  // namespace

RequestState request_state(std::string_view received) {
    if (has_empty_line(without_leading_empty_lines(received))) {
        return RequestState::Complete;
    }
    return received.size() >= MAX_REQUEST ? RequestState::TooLarge : RequestState::Incomplete;
}

std::string respond(std::string_view received, const std::function<std::string()>& render) {
    if (request_state(received) != RequestState::Complete) {
        return response("431 Request Header Fields Too Large", "text/plain", "request too large\n",
                        false);
    }
    // The request line: METHOD SP TARGET SP HTTP-VERSION
    const std::string_view line = first_line(without_leading_empty_lines(received));
    const std::size_t first = line.find(' ');
    const std::size_t second = line.find(' ', first + 1);
    const auto major =
        second == std::string_view::npos ? std::nullopt : major_version(line.substr(second + 1));
    if (first == std::string_view::npos || !major) {
        return response("400 Bad Request", "text/plain", "bad request\n", false);
    }
    if (*major != '1') {
        return response("505 HTTP Version Not Supported", "text/plain", "HTTP/1.x only\n", false);
    }
    const std::string_view method = line.substr(0, first);
    const std::string_view target = target_path(line.substr(first + 1, second - first - 1));
    const bool head = method == "HEAD";
    if (method != "GET" && !head) {
        return response("405 Method Not Allowed", "text/plain", "only GET and HEAD\n", false,
                        "Allow: GET, HEAD\r\n");
    }
    if (target != "/metrics") {
        return response("404 Not Found", "text/plain", "the metrics are at /metrics\n", head);
    }
    try {
        return response("200 OK", metrics::CONTENT_TYPE, render(), head);
    } catch (const std::exception& error) {
        log_error(std::string("metrics endpoint: ") + error.what());
        return response("500 Internal Server Error", "text/plain", "cannot render the metrics\n",
                        head);
    }
}

}  // namespace ozram::daemon::http
