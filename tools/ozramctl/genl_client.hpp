// The ozram generic netlink family, as ozramctl uses it (libnl-genl-3).
// Every failure is an ozram::Error whose code is the errno the kernel (or
// libnl) answered and whose message says it in words.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "stat_fields.hpp"

struct nl_sock;

namespace ozramctl {

class GenlClient {
  public:
    // Connects and resolves the family: ENOENT when the module is not loaded,
    // EPROTO when its family is older than this program reads.
    GenlClient();
    ~GenlClient();
    GenlClient(const GenlClient&) = delete;
    GenlClient& operator=(const GenlClient&) = delete;

    // GET_DEVICES: identity, disksize and initstate of every device.
    std::vector<StatsRecord> devices();

    // GET_STATS of one device (ENODEV when there is none such), or the total
    // over every device.
    StatsRecord stats(std::optional<std::uint32_t> device);

    // RESET_STATS and COMPACT, of one device or of all (EPERM without
    // CAP_NET_ADMIN).
    void reset_stats(std::optional<std::uint32_t> device);
    void compact(std::optional<std::uint32_t> device);

  private:
    struct SocketDeleter {
        void operator()(nl_sock* socket) const;
    };

    void request(int command, std::optional<std::uint32_t> device, bool dump,
                 std::vector<StatsRecord>* replies);

    std::unique_ptr<nl_sock, SocketDeleter> socket_;
    int family_ = 0;
};

}  // namespace ozramctl
