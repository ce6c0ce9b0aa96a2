#include "genl_client.hpp"

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "device_names.hpp"
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

std::optional<std::uint64_t> attribute_value(nlattr* attr, int width_bits) {
    if (attr == nullptr) {
        return std::nullopt;
    }
    switch (width_bits) {
        case 8:
            return nla_get_u8(attr);
        case 32:
            return nla_get_u32(attr);
        default:
            return nla_get_u64(attr);
    }
}

// One OZRAM_LATENCY_ATTR_* nest; empty when malformed.
std::optional<LatencyHistogram> histogram_from(nlattr* nest) {
    nlattr* attrs[OZRAM_HIST_ATTR_MAX + 1];
    if (nest == nullptr || nla_parse_nested(attrs, OZRAM_HIST_ATTR_MAX, nest, nullptr) != 0 ||
        !attrs[OZRAM_HIST_ATTR_COUNT] || !attrs[OZRAM_HIST_ATTR_SUM_NS] ||
        !attrs[OZRAM_HIST_ATTR_BUCKETS]) {
        return std::nullopt;
    }
    LatencyHistogram hist;
    hist.count = nla_get_u64(attrs[OZRAM_HIST_ATTR_COUNT]);
    hist.sum_ns = nla_get_u64(attrs[OZRAM_HIST_ATTR_SUM_NS]);
    const auto bytes = static_cast<std::size_t>(nla_len(attrs[OZRAM_HIST_ATTR_BUCKETS]));
    hist.buckets.resize(bytes / sizeof(std::uint64_t));
    std::memcpy(hist.buckets.data(), nla_data(attrs[OZRAM_HIST_ATTR_BUCKETS]),
                hist.buckets.size() * sizeof(std::uint64_t));
    if (hist.buckets.empty()) {
        return std::nullopt;
    }
    return hist;
}

LatencyRecord latency_from(nlattr* nest) {
    LatencyRecord latency;
    nlattr* ops[OZRAM_LATENCY_ATTR_MAX + 1];
    if (nest == nullptr || nla_parse_nested(ops, OZRAM_LATENCY_ATTR_MAX, nest, nullptr) != 0) {
        return latency;
    }
    latency[static_cast<std::size_t>(LatencyOp::write)] =
        histogram_from(ops[OZRAM_LATENCY_ATTR_WRITE]);
    latency[static_cast<std::size_t>(LatencyOp::read)] =
        histogram_from(ops[OZRAM_LATENCY_ATTR_READ]);
    latency[static_cast<std::size_t>(LatencyOp::ring)] =
        histogram_from(ops[OZRAM_LATENCY_ATTR_RING]);
    return latency;
}

StatsRecord record_from(nlattr** top, nlattr** stats, nlattr** ring) {
    StatsRecord record;
    if (top[OZRAM_ATTR_DEV_ID]) {
        record.dev_id = nla_get_u32(top[OZRAM_ATTR_DEV_ID]);
    }
    if (top[OZRAM_ATTR_DEV_NAME]) {
        record.dev_name = nla_get_string(top[OZRAM_ATTR_DEV_NAME]);
    }
    if (top[OZRAM_ATTR_NUM_DEVICES]) {
        record.num_devices = nla_get_u32(top[OZRAM_ATTR_NUM_DEVICES]);
    }
    record.latency = latency_from(top[OZRAM_ATTR_LATENCY]);
    const auto fields = stat_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const StatField& field = fields[i];
        switch (field.source) {
            case Source::top:
                record.values[i] = attribute_value(top[field.attr], field.width_bits);
                break;
            case Source::nested_stats:
                record.values[i] =
                    stats ? attribute_value(stats[field.attr], field.width_bits) : std::nullopt;
                break;
            case Source::nested_ring:
                record.values[i] =
                    ring ? attribute_value(ring[field.attr], field.width_bits) : std::nullopt;
                break;
        }
    }
    return record;
}

int on_message(nl_msg* message, void* arg) {
    auto* reception = static_cast<Reception*>(arg);
    nlattr* top[OZRAM_ATTR_MAX + 1];
    nlattr* stats[OZRAM_STAT_ATTR_MAX + 1];
    nlattr* ring[OZRAM_RING_ATTR_MAX + 1];
    // No policy: attributes newer than this program are skipped, and the
    // sizes are checked by nla_get_* reading what the kernel put.
    if (genlmsg_parse(nlmsg_hdr(message), 0, top, OZRAM_ATTR_MAX, nullptr) < 0) {
        reception->parse_failed = true;
        return NL_STOP;
    }
    const bool have_stats =
        top[OZRAM_ATTR_STATS] &&
        nla_parse_nested(stats, OZRAM_STAT_ATTR_MAX, top[OZRAM_ATTR_STATS], nullptr) == 0;
    const bool have_ring =
        top[OZRAM_ATTR_RING] &&
        nla_parse_nested(ring, OZRAM_RING_ATTR_MAX, top[OZRAM_ATTR_RING], nullptr) == 0;
    reception->replies->push_back(
        record_from(top, have_stats ? stats : nullptr, have_ring ? ring : nullptr));
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
    family_ = genl_ctrl_resolve(socket_.get(), OZRAM_GENL_NAME);
    if (family_ < 0) {
        if (family_ == -NLE_OBJ_NOTFOUND) {
            // The family lives in the host's network namespace only: in
            // another one (a container, "ip netns exec") it is not found
            // although the module is loaded.
            std::error_code ignored;
            if (std::filesystem::exists("/sys/module/ozram", ignored)) {
                throw ozram::Error(ENOENT,
                                   "the ozram module is loaded, but its generic netlink family "
                                   "is not in this network namespace: run ozramctl in the "
                                   "host's");
            }
            throw ozram::Error(ENOENT,
                               "ozram module not loaded (generic netlink family 'ozram' "
                               "not found)");
        }
        throw ozram::Error(
            EIO, std::string("cannot resolve the generic netlink family: ") + nl_geterror(family_));
    }
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
