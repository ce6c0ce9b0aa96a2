#include "metrics_listen.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "cli/integer_option.hpp"
#include "cli/usage_error.hpp"
#include "ozram/unique_fd.hpp"

namespace ozram::daemon {
namespace {

constexpr std::string_view LOOPBACK = "127.0.0.1";
// Connections the kernel queues before the thread accepts them.
constexpr int BACKLOG = 64;

// Whether socket `fd` is bound to `address` (family, address and port).
bool bound_to(int fd, const sockaddr* address, socklen_t length) {
    sockaddr_storage bound{};
    socklen_t bound_length = sizeof bound;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0 ||
        bound.ss_family != address->sa_family) {
        return false;
    }
    if (address->sa_family == AF_INET) {
        const auto* a = reinterpret_cast<const sockaddr_in*>(&bound);
        const auto* b = reinterpret_cast<const sockaddr_in*>(address);
        return length >= sizeof *b && a->sin_port == b->sin_port &&
               a->sin_addr.s_addr == b->sin_addr.s_addr;
    }
    if (address->sa_family == AF_INET6) {
        const auto* a = reinterpret_cast<const sockaddr_in6*>(&bound);
        const auto* b = reinterpret_cast<const sockaddr_in6*>(address);
        return length >= sizeof *b && a->sin6_port == b->sin6_port &&
               std::memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr) == 0;
    }
    return false;
}

bool refused_by_sandbox(int error) {
    return error == EAFNOSUPPORT || error == EPERM || error == EACCES;
}

// Whether `host` is a numeric address of `family` (inet_pton(3)).
bool numeric_address(int family, const std::string& host) {
    in6_addr parsed{};  // room for either family
    return inet_pton(family, host.c_str(), &parsed) == 1;
}

}  // namespace

ListenAddress parse_listen_address(std::string_view text) {
    const auto bad = [&]() {
        return cli::bad_value("--metrics-listen", "PORT, IPV4:PORT or [IPV6]:PORT", text);
    };
    ListenAddress address;
    std::string_view port = text;
    if (text.starts_with('[')) {
        const std::size_t close = text.find("]:");
        if (close == std::string_view::npos) {
            throw bad();
        }
        address.host = text.substr(1, close - 1);
        port = text.substr(close + 2);
        if (!numeric_address(AF_INET6, address.host)) {
            throw bad();
        }
    } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
        address.host = text.substr(0, colon);
        port = text.substr(colon + 1);
        // Empty: ":PORT".  An IPv6 address needs its brackets.
        if (!address.host.empty() && !numeric_address(AF_INET, address.host)) {
            throw bad();
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

std::string address_text(const sockaddr_storage& address) {
    char host[INET6_ADDRSTRLEN] = "?";
    if (address.ss_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        std::string text(1, '[');
        text.append(host).append("]:").append(std::to_string(ntohs(v6->sin6_port)));
        return text;
    }
    if (address.ss_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        return std::string(host) + ":" + std::to_string(ntohs(v4->sin_port));
    }
    if (address.ss_family == AF_UNIX) {
        const auto* un = reinterpret_cast<const sockaddr_un*>(&address);
        return "unix:" + std::string(un->sun_path, strnlen(un->sun_path, sizeof un->sun_path));
    }
    return "a socket of family " + std::to_string(address.ss_family);
}

std::string bound_address(int fd) {
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
        return "an unnamed socket";
    }
    return address_text(bound);
}

std::uint16_t bound_port(int fd) {
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
        return 0;
    }
    if (bound.ss_family == AF_INET6) {
        return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
    }
    if (bound.ss_family == AF_INET) {
        return ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    }
    return 0;
}

std::vector<int> inherited_listeners() {
    const int count = sd_listen_fds(1);
    if (count < 0) {
        throw Error(-count, "cannot take the sockets systemd passed");
    }
    std::vector<int> listeners;
    for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + count; ++fd) {
        // sd_listen_fds() leaves them inheritable; a child must not get them.
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
            for (const int taken : listeners) {
                close(taken);
            }
            throw Error(EINVAL, "file descriptor " + std::to_string(fd) +
                                    " from systemd is not a listening stream socket "
                                    "(ListenStream= in the socket unit)");
        }
        listeners.push_back(fd);
    }
    return listeners;
}

int listen_on(const ListenAddress& address, std::vector<int>& inherited) {
    const std::string where = address.host + " port " + std::to_string(address.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    // Numeric, as parse_listen_address() checked: no name service is asked.
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(address.port);
    if (int error = getaddrinfo(address.host.c_str(), service.c_str(), &hints, &found);
        error != 0) {
        throw Error(EINVAL, "metrics endpoint: not a numeric address: " + where + ": " +
                                gai_strerror(error));
    }
    int listening = -1;
    int saved_errno = EADDRNOTAVAIL;
    // Sockets tried, and those that socket() itself refused.
    int tried = 0;
    int refused = 0;
    for (addrinfo* ai = found; ai != nullptr && listening < 0; ai = ai->ai_next) {
        // A socket systemd bound there already: that one.
        const auto taken = std::find_if(inherited.begin(), inherited.end(), [&](int fd) {
            return bound_to(fd, ai->ai_addr, ai->ai_addrlen);
        });
        if (taken != inherited.end()) {
            listening = *taken;
            inherited.erase(taken);
            break;
        }
        ++tried;
        UniqueFd fd(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
        if (fd.get() < 0) {
            saved_errno = errno;
            refused += refused_by_sandbox(saved_errno) ? 1 : 0;
            continue;
        }
        const int one = 1;
        if (setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
            bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd.get(), BACKLOG) != 0) {
            saved_errno = errno;
            continue;
        }
        listening = fd.release();
    }
    freeaddrinfo(found);
    if (listening >= 0) {
        return listening;
    }
    const std::string message = "metrics endpoint: cannot listen on " + where;
    if (tried > 0 && refused == tried) {
        throw ListenForbidden(saved_errno, message);
    }
    throw Error(saved_errno, message);
}

}  // namespace ozram::daemon
