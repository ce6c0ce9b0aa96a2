// ozramd's metrics endpoint (--metrics-listen, or the listening sockets
// systemd passes): answers "GET /metrics" with the Prometheus text format
// (metrics_http.hpp), on sockets of its own served by a thread of its own,
// so that neither a scrape nor a client ever holds up the drain loop.
//
// One thread serves every client at once, without blocking: a client that
// sends its request a byte at a time, or never reads the answer, holds a
// connection until its deadline and nothing else.  The connections are
// bounded; a new one past the bound closes the oldest, so that a crowd of
// idle connections cannot keep a scrape out.  When accept() runs out of
// file descriptors the listening sockets rest for a while instead of
// waking the thread at once, again and again.
#pragma once

#include <pthread.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "metrics_listen.hpp"

namespace ozram::daemon {

struct MetricsServerLimits {
    // Clients served at once; one more closes the oldest.
    std::size_t max_clients = 32;
    // From the accept to the last byte of the answer: the request's time
    // in all, however its bytes trickle in.
    std::chrono::milliseconds deadline{5000};
    // The first and the longest rest of the listening sockets after
    // accept() ran out of file descriptors (doubled at each failure).
    std::chrono::milliseconds accept_rest{50};
    std::chrono::milliseconds accept_rest_max{1000};
};

class MetricsServer {
  public:
    // Serves on `listening` (sockets that listen already; the server owns
    // them) and starts the thread; `render` is called on that thread for
    // each scrape.  Throws ozram::Error if the thread cannot start.
    MetricsServer(std::vector<int> listening, std::function<std::string()> render,
                  MetricsServerLimits limits = {});
    // Binds `address` and serves on it.  Throws ozram::Error naming it.
    MetricsServer(const ListenAddress& address, std::function<std::string()> render,
                  MetricsServerLimits limits = {});
    // Stops the thread and closes every socket.
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    // The addresses served, as "127.0.0.1:9101" or "[::1]:9101", joined
    // with ", "; port() is the first one's port.
    [[nodiscard]] const std::string& bound() const { return bound_; }
    [[nodiscard]] std::uint16_t port() const { return port_; }

  private:
    void serve();

    std::function<std::string()> render_;
    MetricsServerLimits limits_;
    std::vector<int> listening_;
    int stop_fd_ = -1;  // an eventfd: written once to end the thread
    std::string bound_;
    std::uint16_t port_ = 0;
    pthread_t thread_{};  // of a small stack (ozram/sized_thread.hpp)
};

}  // namespace ozram::daemon
