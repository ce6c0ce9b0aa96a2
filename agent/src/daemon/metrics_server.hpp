// ozramd's metrics endpoint (--metrics-listen): answers "GET /metrics" with
// the Prometheus text format, on a socket of its own served by a thread of
// its own, so that neither a scrape nor a slow client ever holds up the
// drain loop.  It speaks just enough HTTP/1.1 for a scraper: one request per
// connection, GET or HEAD, a bounded request size and a time limit, then
// the connection is closed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace ozram::daemon {

// Where to listen: "ADDR:PORT", "[IPV6]:PORT", or "PORT" / ":PORT" for the
// loopback address 127.0.0.1.
struct ListenAddress {
    std::string host;
    std::uint16_t port = 0;
};

// Throws cli::UsageError naming `text` when it is none of the above.
[[nodiscard]] ListenAddress parse_listen_address(std::string_view text);

class MetricsServer {
  public:
    // Binds, listens and starts the thread; `render` is called on that
    // thread for each scrape.  Throws ozram::Error naming the address.
    MetricsServer(const ListenAddress& address, std::function<std::string()> render);
    // Stops the thread and closes the socket.
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    // The address and port bound, as "127.0.0.1:9101" or "[::1]:9101".
    [[nodiscard]] const std::string& bound() const { return bound_; }
    [[nodiscard]] std::uint16_t port() const { return port_; }

  private:
    void serve();
    void answer(int connection);

    std::function<std::string()> render_;
    int listen_fd_ = -1;
    int stop_fd_ = -1;  // an eventfd: written once to end the thread
    std::string bound_;
    std::uint16_t port_ = 0;
    std::thread thread_;
};

}  // namespace ozram::daemon
