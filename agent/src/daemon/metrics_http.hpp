// The HTTP side of ozramd's metrics endpoint, without sockets: whether the
// bytes received so far hold a whole request, and the answer to one.  It
// speaks just enough HTTP/1.1 for a scraper: one request per connection,
// GET or HEAD of /metrics (in the origin or the absolute form of RFC 9112),
// a bounded request size, then the connection is closed.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ozram::daemon::http {

// A scraper's request is a few hundred bytes; anything longer is refused.
inline constexpr std::size_t MAX_REQUEST = 8192;

enum class RequestState {
    Incomplete,  // no blank line yet: wait for more
    Complete,    // the head ends with its blank line (CRLF or bare LF): answer it
    TooLarge,    // MAX_REQUEST bytes without a blank line: refuse it
};

[[nodiscard]] RequestState request_state(std::string_view received);

// The whole response (status line, headers, body) to a request that is
// Complete or TooLarge.  `render` is called for GET and HEAD of /metrics
// only; if it throws, the answer is a 500 and the error is logged.
[[nodiscard]] std::string respond(std::string_view received,
                                  const std::function<std::string()>& render);

}  // namespace ozram::daemon::http
