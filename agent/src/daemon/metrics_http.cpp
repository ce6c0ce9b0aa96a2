#include "metrics_http.hpp"

#include <exception>

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

std::string_view first_line(std::string_view received) {
    std::string_view line = received.substr(0, received.find('\n'));
    if (line.ends_with('\r')) {
        line.remove_suffix(1);
    }
    return line;
}

}  // namespace

RequestState request_state(std::string_view received) {
    if (has_empty_line(received)) {
        return RequestState::Complete;
    }
    return received.size() >= MAX_REQUEST ? RequestState::TooLarge : RequestState::Incomplete;
}

std::string respond(std::string_view received, const std::function<std::string()>& render) {
    if (request_state(received) != RequestState::Complete) {
        return response("431 Request Header Fields Too Large", "text/plain", "request too large\n",
                        false);
    }
    // The request line: METHOD SP TARGET SP HTTP/1.x
    const std::string_view line = first_line(received);
    const std::size_t first = line.find(' ');
    const std::size_t second = line.find(' ', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos ||
        !line.substr(second + 1).starts_with("HTTP/1.")) {
        return response("400 Bad Request", "text/plain", "bad request\n", false);
    }
    const std::string_view method = line.substr(0, first);
    std::string_view target = line.substr(first + 1, second - first - 1);
    target = target.substr(0, target.find('?'));  // a query changes nothing
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
