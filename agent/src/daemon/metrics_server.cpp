#include "metrics_server.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "cli/integer_option.hpp"
#include "cli/usage_error.hpp"
#include "log.hpp"
#include "metrics/exposition.hpp"
#include "ozram/error.hpp"

namespace ozram::daemon {
namespace {

constexpr std::string_view LOOPBACK = "127.0.0.1";
// A scraper's request is a few hundred bytes; anything longer is refused.
constexpr std::size_t MAX_REQUEST = 8192;
// How long a client may take to send its request and read the answer.
constexpr time_t CLIENT_TIMEOUT_S = 5;

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) {
            close(fd_);
        }
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    [[nodiscard]] int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_;
};

std::string address_text(const sockaddr_storage& address) {
    char host[INET6_ADDRSTRLEN] = "?";
    std::uint16_t port = 0;
    if (address.ss_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        port = ntohs(v6->sin6_port);
        std::string text(1, '[');
        text.append(host).append("]:").append(std::to_string(port));
        return text;
    }
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
    port = ntohs(v4->sin_port);
    return std::string(host) + ":" + std::to_string(port);
}

void send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;  // the client went away or timed out: nothing to tell
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

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

ListenAddress parse_listen_address(std::string_view text) {
    const auto bad = [&]() {
        return cli::bad_value("--metrics-listen", "PORT, ADDR:PORT or [IPV6]:PORT", text);
    };
    ListenAddress address;
    std::string_view port = text;
    if (text.starts_with('[')) {
        const std::size_t close = text.find("]:");
        if (close == std::string_view::npos || close == 1) {
            throw bad();
        }
        address.host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
        address.host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (address.host.find(':') != std::string::npos) {
            throw bad();  // an IPv6 address needs its brackets
        }
    }
    if (address.host.empty()) {
        address.host = LOOPBACK;
    }
    const auto number = cli::parse_integer<std::uint16_t>(port);
    if (!number || *number == 0) {
        throw bad();
    }
    address.port = *number;
    return address;
}

MetricsServer::MetricsServer(const ListenAddress& address, std::function<std::string()> render)
    : render_(std::move(render)) {
    const std::string where = address.host + " port " + std::to_string(address.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(address.port);
    if (int error = getaddrinfo(address.host.c_str(), service.c_str(), &hints, &found);
        error != 0) {
        throw Error(EINVAL,
                    "metrics endpoint: cannot resolve " + where + ": " + gai_strerror(error));
    }
    int saved_errno = EADDRNOTAVAIL;
    for (addrinfo* ai = found; ai != nullptr && listen_fd_ < 0; ai = ai->ai_next) {
        Fd fd(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
        const int one = 1;
        if (fd.get() < 0 || setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
            bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd.get(), 16) != 0) {
            saved_errno = errno;
            continue;
        }
        listen_fd_ = fd.release();
    }
    freeaddrinfo(found);
    if (listen_fd_ < 0) {
        throw Error(saved_errno, "metrics endpoint: cannot listen on " + where);
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
    bound_ = address_text(bound);
    port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                              : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) {
        const int code = errno;
        close(listen_fd_);
        throw Error(code, "metrics endpoint: cannot create an eventfd");
    }
    thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
    const std::uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) != sizeof one) {
        log_error("metrics endpoint: cannot signal its thread to stop");
    }
    thread_.join();
    close(stop_fd_);
    close(listen_fd_);
}

void MetricsServer::serve() {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    while (true) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            log_error(std::string("metrics endpoint: poll: ") + std::strerror(errno));
            return;
        }
        if (fds[1].revents != 0) {
            return;
        }
        if (fds[0].revents == 0) {
            continue;
        }
        Fd connection(accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC));
        if (connection.get() >= 0) {
            answer(connection.get());
        }
    }
}

void MetricsServer::answer(int connection) {
    const timeval timeout{CLIENT_TIMEOUT_S, 0};
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    // Read the head of the request: up to the blank line that ends it.
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos) {
        if (request.size() >= MAX_REQUEST) {
            send_all(connection, response("431 Request Header Fields Too Large", "text/plain",
                                          "request too large\n", false));
            return;
        }
        const ssize_t n = recv(connection, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;  // closed or timed out before a whole request
        }
        request.append(buffer, static_cast<std::size_t>(n));
    }
    // The request line: METHOD SP TARGET SP HTTP/1.x
    const std::string_view line = std::string_view(request).substr(0, request.find("\r\n"));
    const std::size_t first = line.find(' ');
    const std::size_t second = line.find(' ', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos ||
        !line.substr(second + 1).starts_with("HTTP/1.")) {
        send_all(connection, response("400 Bad Request", "text/plain", "bad request\n", false));
        return;
    }
    const std::string_view method = line.substr(0, first);
    std::string_view target = line.substr(first + 1, second - first - 1);
    target = target.substr(0, target.find('?'));  // a query changes nothing
    const bool head = method == "HEAD";
    if (method != "GET" && !head) {
        send_all(connection, response("405 Method Not Allowed", "text/plain", "only GET and HEAD\n",
                                      false, "Allow: GET, HEAD\r\n"));
        return;
    }
    if (target != "/metrics") {
        send_all(connection,
                 response("404 Not Found", "text/plain", "the metrics are at /metrics\n", head));
        return;
    }
    std::string body;
    try {
        body = render_();
    } catch (const std::exception& error) {
        log_error(std::string("metrics endpoint: ") + error.what());
        send_all(connection, response("500 Internal Server Error", "text/plain",
                                      "cannot render the metrics\n", head));
        return;
    }
    send_all(connection, response("200 OK", metrics::CONTENT_TYPE, body, head));
}

}  // namespace ozram::daemon
