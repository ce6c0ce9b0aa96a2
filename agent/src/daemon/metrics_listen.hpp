// The listening sockets of ozramd's metrics endpoint: the address given
// with --metrics-listen, and the sockets systemd passes (socket
// activation: ozramd-metrics.socket), which serve the endpoint where the
// service's sandbox lets the agent open no network socket of its own.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ozram/error.hpp"

namespace ozram::daemon {

// Where to listen: "IPV4:PORT", "[IPV6]:PORT", or "PORT" / ":PORT" for the
// loopback address 127.0.0.1.  Numeric addresses only: a host name would be
// looked up long after start-up, and it could fail or change meanwhile.
struct ListenAddress {
    std::string host;  // numeric, without brackets
    std::uint16_t port = 0;
};

// Throws cli::UsageError naming `text` when it is none of the above.
[[nodiscard]] ListenAddress parse_listen_address(std::string_view text);

// "127.0.0.1:9101", "[::1]:9101", or "unix:PATH" for a Unix socket (which
// systemd may pass: ListenStream=/run/...).
[[nodiscard]] std::string address_text(const sockaddr_storage& address);
// The address a socket is bound to, as address_text() writes it, and its
// port (0 for a socket that has none, such as a Unix one).
[[nodiscard]] std::string bound_address(int fd);
[[nodiscard]] std::uint16_t bound_port(int fd);

// The listening stream sockets systemd passed to this process (LISTEN_FDS,
// sd_listen_fds(3)), close-on-exec from now on; the variables are removed
// from the environment.  Throws ozram::Error if one of them is not a
// listening stream socket.
[[nodiscard]] std::vector<int> inherited_listeners();

// listen_on() could not even create a socket for the address: the process
// may not open network sockets (a seccomp filter such as systemd's
// RestrictAddressFamilies=, an LSM), which no retry changes.
class ListenForbidden : public Error {
  public:
    using Error::Error;
};

// A listening socket for `address`: the one of `inherited` bound there if
// any (it is taken out of the list), otherwise a new one.  Throws
// ListenForbidden when socket() itself is refused, else ozram::Error,
// naming the address either way.
[[nodiscard]] int listen_on(const ListenAddress& address, std::vector<int>& inherited);

}  // namespace ozram::daemon
