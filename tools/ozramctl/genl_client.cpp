#include "genl_client.hpp"

#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "device_names.hpp"
#include "genl_reply.hpp"
#include "ozram/error.hpp"
#include "ozram_genl.h"

namespace ozramctl {
namespace {

// What the receive callbacks fill in.
struct Reception {
    std::vector<StatsRecord>* replies = nullptr;
    int kernel_errno = 0;
    bool parse_failed = false;
    bool done = false;  // the ack, the end of a dump or an error arrived
};

int on_message(nl_msg* message, void* arg) {
    auto* reception = static_cast<Reception*>(arg);
    auto record = record_from_reply(nlmsg_hdr(message));
    if (!record) {
        reception->parse_failed = true;
        return NL_STOP;
    }
    reception->replies->push_back(std::move(*record));
    return NL_OK;
}

int on_error(sockaddr_nl*, nlmsgerr* error, void* arg) {
    auto* reception = static_cast<Reception*>(arg);
    reception->kernel_errno = -error->error;
    reception->done = true;
    return NL_STOP;
}

int on_done(nl_msg*, void* arg) {
    static_cast<Reception*>(arg)->done = true;
    return NL_STOP;
}

std::string device_text(std::optional<std::uint32_t> device) {
    return device ? loaded_module_naming().value_or(OZRAM_NAMING).name(*device) : "every device";
}

[[noreturn]] void throw_kernel_error(int command, int code, std::optional<std::uint32_t> device) {
    switch (code) {
        case EPERM:
            throw ozram::Error(EPERM, "operation not permitted: needs CAP_NET_ADMIN");
        case ENODEV:
            throw ozram::Error(ENODEV, "no such device: " + device_text(device));
        case ERANGE:
            throw ozram::Error(ENODEV, "no such device: " + device_text(device) +
                                           " (beyond the module's device limit)");
        case EINVAL:
            if (command == OZRAM_CMD_COMPACT) {
                throw ozram::Error(EINVAL, device_text(device) + " is not initialized");
            }
            break;
        default:
            break;
    }
    throw ozram::Error(code,
                       "the ozram module refused the request: " + std::string(std::strerror(code)));
}

// The family's id, once its version is one this program reads.
int resolve_family(nl_sock* socket) {
    nl_cache* raw_cache = nullptr;
    if (int error = genl_ctrl_alloc_cache(socket, &raw_cache); error < 0) {
        throw ozram::Error(
            EIO, std::string("cannot list the generic netlink families: ") + nl_geterror(error));
    }
    const std::unique_ptr<nl_cache, decltype(&nl_cache_free)> cache(raw_cache, nl_cache_free);
    genl_family* family = genl_ctrl_search_by_name(cache.get(), OZRAM_GENL_NAME);
    if (family == nullptr) {
        // The family lives in the host's network namespace only: in
        // another one (a container, "ip netns exec") it is not found
        // although the module is loaded.
        std::error_code ignored;
        if (std::filesystem::exists("/sys/module/ozram", ignored)) {
            throw ozram::Error(ENOENT,
                               "the ozram module is loaded, but its generic netlink family "
                               "is not in this network namespace: run ozramctl in the host's");
        }
        throw ozram::Error(ENOENT,
                           "ozram module not loaded (generic netlink family 'ozram' not found)");
    }
    const auto id = static_cast<int>(genl_family_get_id(family));
    const unsigned version = genl_family_get_version(family);
    genl_family_put(family);  // the search took a reference
    if (auto problem = family_version_problem(version)) {
        throw ozram::Error(EPROTO, *problem);
    }
    return id;
}

}  // namespace

void GenlClient::SocketDeleter::operator()(nl_sock* socket) const {
    nl_socket_free(socket);
}

GenlClient::GenlClient() : socket_(nl_socket_alloc()) {
    if (!socket_) {
        throw ozram::Error(ENOMEM, "cannot allocate a netlink socket");
    }
    if (int error = genl_connect(socket_.get()); error < 0) {
        throw ozram::Error(
            EIO, std::string("cannot open a generic netlink socket: ") + nl_geterror(error));
    }
    family_ = resolve_family(socket_.get());
}

GenlClient::~GenlClient() = default;

void GenlClient::request(int command, std::optional<std::uint32_t> device, bool dump,
                         std::vector<StatsRecord>* replies) {
    std::unique_ptr<nl_msg, decltype(&nlmsg_free)> message(nlmsg_alloc(), nlmsg_free);
    if (!message) {
        throw ozram::Error(ENOMEM, "cannot allocate a netlink message");
    }
    // nl_send_auto() adds NLM_F_REQUEST and NLM_F_ACK: a request ends with
    // an ack (or an error), a dump with NLMSG_DONE.
    const int flags = dump ? NLM_F_DUMP : 0;
    if (!genlmsg_put(message.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, flags, command,
                     OZRAM_GENL_VERSION) ||
        (device && nla_put_u32(message.get(), OZRAM_ATTR_DEV_ID, *device) < 0)) {
        throw ozram::Error(ENOMEM, "cannot build the netlink request");
    }

    std::vector<StatsRecord> ignored;
    Reception reception;
    reception.replies = replies ? replies : &ignored;
    std::unique_ptr<nl_cb, decltype(&nl_cb_put)> callbacks(nl_cb_alloc(NL_CB_DEFAULT), nl_cb_put);
    if (!callbacks) {
        throw ozram::Error(ENOMEM, "cannot allocate netlink callbacks");
    }
    nl_cb_set(callbacks.get(), NL_CB_VALID, NL_CB_CUSTOM, on_message, &reception);
    nl_cb_err(callbacks.get(), NL_CB_CUSTOM, on_error, &reception);
    nl_cb_set(callbacks.get(), NL_CB_ACK, NL_CB_CUSTOM, on_done, &reception);
    nl_cb_set(callbacks.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_done, &reception);

    if (int error = nl_send_auto(socket_.get(), message.get()); error < 0) {
        throw ozram::Error(EIO,
                           std::string("cannot send to the ozram module: ") + nl_geterror(error));
    }
    // One nl_recvmsgs() returns after each datagram of a request (the reply,
    // then the ack) and after the whole of a dump.
    while (!reception.done) {
        int error = nl_recvmsgs(socket_.get(), callbacks.get());
        if (reception.kernel_errno != 0) {
            throw_kernel_error(command, reception.kernel_errno, device);
        }
        if (error < 0) {
            throw ozram::Error(
                EIO, std::string("cannot read the ozram module's answer: ") + nl_geterror(error));
        }
        if (reception.parse_failed) {
            throw ozram::Error(EPROTO, "malformed answer from the ozram module");
        }
    }
}

std::vector<StatsRecord> GenlClient::devices() {
    std::vector<StatsRecord> replies;
    request(OZRAM_CMD_GET_DEVICES, std::nullopt, true, &replies);
    return replies;
}

StatsRecord GenlClient::stats(std::optional<std::uint32_t> device) {
    std::vector<StatsRecord> replies;
    request(OZRAM_CMD_GET_STATS, device, false, &replies);
    if (replies.size() != 1) {
        throw ozram::Error(EPROTO, "expected one statistics answer from the ozram module, got " +
                                       std::to_string(replies.size()));
    }
    return replies.front();
}

void GenlClient::reset_stats(std::optional<std::uint32_t> device) {
    request(OZRAM_CMD_RESET_STATS, device, false, nullptr);
}

void GenlClient::compact(std::optional<std::uint32_t> device) {
    request(OZRAM_CMD_COMPACT, device, false, nullptr);
}

}  // namespace ozramctl
