#include "metrics_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "log.hpp"
#include "metrics_http.hpp"
#include "ozram/error.hpp"
#include "ozram/sized_thread.hpp"

namespace ozram::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// The thread's stack, locked whole by mlockall().  Its deepest use is a
// scrape: 1 KiB receive buffers, the render callback building the text on
// the heap, and a log line (vsyslog's buffers) on an error; a few KiB.
constexpr std::size_t STACK_SIZE = 256 * 1024;

// One connection: the request as it comes in, then the answer as it goes
// out, both by the deadline.
struct Client {
    int fd = -1;
    Clock::time_point deadline;
    std::string received;
    std::string answer;
    std::size_t sent = 0;
    bool answering = false;
};

void close_client(Client& client) {
    if (client.fd >= 0) {
        close(client.fd);
        client.fd = -1;
    }
}

// Ends a connection whose answer is sent: what the client sent beyond its
// request is read first, since closing a socket with unread bytes resets
// the connection, which may lose the answer on its way.
void finish_client(Client& client) {
    shutdown(client.fd, SHUT_WR);
    char buffer[1024];
    while (recv(client.fd, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
    }
    close_client(client);
}

// Reads what the client sent; once the request is whole (or too large),
// prepares the answer.  Return: false when the client is done with.
bool receive(Client& client, const std::function<std::string()>& render) {
    char buffer[1024];
    while (!client.answering) {
        const ssize_t n = recv(client.fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        if (n <= 0) {
            return false;  // closed or failed before a whole request
        }
        client.received.append(buffer, static_cast<std::size_t>(n));
        if (http::request_state(client.received) != http::RequestState::Incomplete) {
            client.answer = http::respond(client.received, render);
            client.answering = true;
        }
    }
    return true;
}

// Sends what the socket takes of the answer.  Return: false when the
// client is done with (all sent, or it went away).
bool send_some(Client& client) {
    while (client.sent < client.answer.size()) {
        const ssize_t n = send(client.fd, client.answer.data() + client.sent,
                               client.answer.size() - client.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        if (n <= 0) {
            return false;
        }
        client.sent += static_cast<std::size_t>(n);
    }
    return false;
}

// accept() failures that no waiting for the next client cures: the
// process or the system is out of descriptors or memory.
bool out_of_resources(int error) {
    return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

int poll_timeout_ms(Clock::time_point now, Clock::time_point until) {
    if (until == Clock::time_point::max()) {
        return -1;
    }
    if (until <= now) {
        return 0;
    }
    // Rounded up, so that the thread does not wake just before it is time.
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
}

}  // namespace

MetricsServer::MetricsServer(std::vector<int> listening, std::function<std::string()> render,
                             MetricsServerLimits limits)
    : render_(std::move(render)), limits_(limits), listening_(std::move(listening)) {
    for (const int fd : listening_) {
        // poll() saying a socket is readable does not promise accept() a
        // connection: one that went meanwhile, or a passed socket that
        // another process accepts on too, would block the whole endpoint.
        const int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
            log_warning("metrics endpoint: cannot make a listening socket non-blocking: " +
                        std::string(std::strerror(errno)));
        }
        bound_ += (bound_.empty() ? "" : ", ") + bound_address(fd);
    }
    if (!listening_.empty()) {
        port_ = bound_port(listening_.front());
    }
    // A constructor that throws runs no destructor: what it opened, it
    // closes itself.
    const auto close_all = [this] {
        for (const int fd : listening_) {
            close(fd);
        }
        if (stop_fd_ >= 0) {
            close(stop_fd_);
        }
    };
    stop_fd_ = eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ < 0) {
        const int code = errno;
        close_all();
        throw Error(code, "metrics endpoint: cannot create an eventfd");
    }
    limits_.max_clients = std::max<std::size_t>(limits_.max_clients, 1);
    try {
        thread_ = start_sized_thread<&MetricsServer::serve>(STACK_SIZE, this,
                                                            "the metrics endpoint's thread");
    } catch (const Error&) {
        close_all();
        throw;
    }
}

MetricsServer::MetricsServer(const ListenAddress& address, std::function<std::string()> render,
                             MetricsServerLimits limits)
    : MetricsServer(
          [&address] {
              std::vector<int> none;
              return std::vector<int>{listen_on(address, none)};
          }(),
          std::move(render), limits) {}

MetricsServer::~MetricsServer() {
    const std::uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) != sizeof one) {
        log_error("metrics endpoint: cannot signal its thread to stop");
    }
    pthread_join(thread_, nullptr);
    close(stop_fd_);
    for (const int fd : listening_) {
        close(fd);
    }
}

void MetricsServer::serve() {
    std::vector<Client> clients;
    std::vector<pollfd> fds;
    // While accept() is out of descriptors, the listening sockets rest
    // until then, for a rest that doubles at each failure.
    Clock::time_point resting_until = Clock::time_point::min();
    std::chrono::milliseconds rest = limits_.accept_rest;
    bool resting_logged = false;

    while (true) {
        Clock::time_point now = Clock::now();
        // A client past its deadline is dropped, whatever it was doing.
        std::erase_if(clients, [&](Client& client) {
            if (client.deadline > now) {
                return false;
            }
            close_client(client);
            return true;
        });
        const bool accepting = now >= resting_until;
        Clock::time_point wake = accepting ? Clock::time_point::max() : resting_until;
        fds.clear();
        fds.push_back({stop_fd_, POLLIN, 0});
        if (accepting) {
            for (const int fd : listening_) {
                fds.push_back({fd, POLLIN, 0});
            }
        }
        for (const Client& client : clients) {
            fds.push_back({client.fd, static_cast<short>(client.answering ? POLLOUT : POLLIN), 0});
            wake = std::min(wake, client.deadline);
        }
        if (poll(fds.data(), fds.size(), poll_timeout_ms(now, wake)) < 0) {
            if (errno == EINTR) {
                continue;
            }
            // The endpoint ends; its clients are closed below.
            log_error(std::string("metrics endpoint: poll: ") + std::strerror(errno));
            break;
        }
        if (fds[0].revents != 0) {
            break;
        }
        // The clients first: fds[] names them after the listening sockets.
        const std::size_t first_client = accepting ? 1 + listening_.size() : 1;
        for (std::size_t i = 0; i < clients.size(); ++i) {
            Client& client = clients[i];
            const short events = fds[first_client + i].revents;
            if (events == 0) {
                continue;
            }
            bool keep = (events & POLLNVAL) == 0;
            if (keep && !client.answering) {
                keep = receive(client, render_);
            }
            if (keep && client.answering) {
                keep = send_some(client);
            }
            if (!keep && client.answering && client.sent == client.answer.size()) {
                finish_client(client);
            } else if (!keep) {
                close_client(client);
            }
        }
        std::erase_if(clients, [](const Client& client) { return client.fd < 0; });
        if (!accepting) {
            continue;
        }
        now = Clock::now();
        for (std::size_t i = 0; i < listening_.size(); ++i) {
            if (fds[1 + i].revents == 0) {
                continue;
            }
            const int fd = accept4(listening_[i], nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0) {
                if (out_of_resources(errno)) {
                    // The connection stays queued, and the socket readable:
                    // polling it again at once would spin.
                    if (!resting_logged) {
                        log_warning(std::string("metrics endpoint: cannot accept a client: ") +
                                    std::strerror(errno) + "; trying again in " +
                                    std::to_string(rest.count()) + " ms, then less often");
                        resting_logged = true;
                    }
                    resting_until = now + rest;
                    rest = std::min(rest * 2, limits_.accept_rest_max);
                }
                continue;  // otherwise the client went before it was taken (EAGAIN)
            }
            rest = limits_.accept_rest;
            if (resting_logged) {
                log_info("metrics endpoint: accepting clients again");
                resting_logged = false;
            }
            // A full house: the oldest client goes, so that a crowd of idle
            // connections cannot keep a scrape out.
            if (clients.size() >= limits_.max_clients) {
                const auto oldest = std::min_element(
                    clients.begin(), clients.end(),
                    [](const Client& a, const Client& b) { return a.deadline < b.deadline; });
                close_client(*oldest);
                clients.erase(oldest);
            }
            Client client;
            client.fd = fd;
            client.deadline = now + limits_.deadline;
            clients.push_back(std::move(client));
        }
    }
    for (Client& client : clients) {
        close_client(client);
    }
}

}  // namespace ozram::daemon
