// HTTP over 127.0.0.1 for the tests of ozramd's metrics endpoint: a
// listening socket as systemd passes one, a client's connection, and the
// check of a scrape's answer (a 200 whose body Prometheus's own parser,
// promtool, accepts).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "promtool_check.hpp"

namespace ozram::test {

// A socket listening on 127.0.0.1 at a port the kernel picks (written to
// `port`), as systemd passes one for ListenStream=; -1 on failure.
inline int loopback_listener(std::uint16_t& port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(fd, 16) != 0) {
        close(fd);
        return -1;
    }
    socklen_t length = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    return fd;
}

// A client's connection to 127.0.0.1:`port`.
class LoopbackClient {
  public:
    explicit LoopbackClient(std::uint16_t port)
        : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~LoopbackClient() { close(fd_); }
    LoopbackClient(const LoopbackClient&) = delete;
    LoopbackClient& operator=(const LoopbackClient&) = delete;

    [[nodiscard]] bool connected() const { return connected_; }
    bool send_text(const std::string& text) const {
        return send(fd_, text.data(), text.size(), MSG_NOSIGNAL) ==
               static_cast<ssize_t>(text.size());
    }
    // Everything the server sends until it closes, or what came before
    // `limit` ran out.
    std::string receive_all(std::chrono::milliseconds limit = std::chrono::seconds(5)) const {
        using Clock = std::chrono::steady_clock;
        std::string answer;
        const auto end = Clock::now() + limit;
        char buffer[4096];
        while (Clock::now() < end) {
            pollfd fd{fd_, POLLIN, 0};
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(end - Clock::now());
            if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) {
                break;
            }
            const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
            if (n <= 0) {
                closed_ = true;
                break;
            }
            answer.append(buffer, static_cast<std::size_t>(n));
        }
        return answer;
    }
    // Whether the server closed the connection within `limit`.
    [[nodiscard]] bool closed_by_server(std::chrono::milliseconds limit) const {
        (void)receive_all(limit);
        return closed_;
    }

  private:
    int fd_;
    bool connected_ = false;
    mutable bool closed_ = false;
};

inline const std::string SCRAPE_REQUEST = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

// The body of a scrape's `answer` if it is a 200 that promtool accepts,
// else a description of what came back.
inline std::string scrape_body(const std::string& answer) {
    if (!answer.starts_with("HTTP/1.1 200 OK\r\n")) {
        return "no 200: '" + answer + "'";
    }
    const std::string body = answer.substr(answer.find("\r\n\r\n") + 4);
    const auto checked = ozram::testing::promtool_check(body);
    return checked.status == 0 ? body : "promtool: " + checked.output;
}

}  // namespace ozram::test
