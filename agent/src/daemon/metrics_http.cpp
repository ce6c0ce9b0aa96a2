#include "metrics_http.hpp"

#include <exception>

#include "log.hpp"
#include "metrics/exposition.hpp"

namespace ozram::daemon::http {
namespace {

constexpr std::string_view END_OF_HEAD = "\r\n\r\n";

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

}  // namespace

RequestState request_state(std::string_view received) {
    if (received.find(END_OF_HEAD) != std::string_view::npos) {
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
    const std::string_view line = received.substr(0, received.find("\r\n"));
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
