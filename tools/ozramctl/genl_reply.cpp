#include "genl_reply.hpp"

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "ozram_genl.h"

namespace ozramctl {
namespace {

// The policy of attribute `type`, as libnl's nla_parse() checks it: at
// least, and (for a number) at most, the size of its type.
constexpr nla_policy exactly(std::uint16_t type, std::uint16_t bytes) {
    nla_policy policy{};
    policy.type = type;
    policy.minlen = bytes;
    policy.maxlen = bytes;
    return policy;
}
constexpr nla_policy U8 = exactly(NLA_U8, 1);
constexpr nla_policy U32 = exactly(NLA_U32, 4);
constexpr nla_policy U64 = exactly(NLA_U64, 8);

nla_policy of_type(std::uint16_t type) {
    nla_policy policy{};
    policy.type = type;
    return policy;
}

constexpr nla_policy of_width(int width_bits) {
    switch (width_bits) {
        case 8:
            return U8;
        case 32:
            return U32;
        default:
            return U64;
    }
}

// The policy of the attributes of `source`: each field's width, as
// stat_fields() gives it and attribute_value() reads it.
template <std::size_t MAX>
std::array<nla_policy, MAX + 1> fields_policy(Source source) {
    std::array<nla_policy, MAX + 1> policy{};
    for (const StatField& field : stat_fields()) {
        if (field.source == source) {
            policy.at(static_cast<std::size_t>(field.attr)) = of_width(field.width_bits);
        }
    }
    return policy;
}

std::array<nla_policy, OZRAM_ATTR_MAX + 1> top_policy() {
    auto policy = fields_policy<OZRAM_ATTR_MAX>(Source::top);
    policy[OZRAM_ATTR_DEV_ID] = U32;
    policy[OZRAM_ATTR_DEV_NAME] = of_type(NLA_STRING);
    policy[OZRAM_ATTR_NUM_DEVICES] = U32;
    policy[OZRAM_ATTR_RING] = of_type(NLA_NESTED);
    policy[OZRAM_ATTR_LATENCY] = of_type(NLA_NESTED);
    policy[OZRAM_ATTR_STATS] = of_type(NLA_NESTED);
    return policy;
}

std::array<nla_policy, OZRAM_LATENCY_ATTR_MAX + 1> latency_policy() {
    std::array<nla_policy, OZRAM_LATENCY_ATTR_MAX + 1> policy{};
    policy[OZRAM_LATENCY_ATTR_WRITE] = of_type(NLA_NESTED);
    policy[OZRAM_LATENCY_ATTR_READ] = of_type(NLA_NESTED);
    policy[OZRAM_LATENCY_ATTR_RING] = of_type(NLA_NESTED);
    return policy;
}

std::array<nla_policy, OZRAM_HIST_ATTR_MAX + 1> histogram_policy() {
    std::array<nla_policy, OZRAM_HIST_ATTR_MAX + 1> policy{};
    policy[OZRAM_HIST_ATTR_COUNT] = U64;
    policy[OZRAM_HIST_ATTR_SUM_NS] = U64;
    // At least one bucket; how many, the length says.
    policy[OZRAM_HIST_ATTR_BUCKETS].minlen = sizeof(std::uint64_t);
    return policy;
}

// A value of `width_bits` (8, 32, 64) from an attribute that its policy
// checked to be of that size.
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

// One histogram nest, which must have its count, sum and buckets.
std::optional<LatencyHistogram> histogram_from(nlattr* nest) {
    static auto policy = histogram_policy();
    nlattr* attrs[OZRAM_HIST_ATTR_MAX + 1];
    if (nla_parse_nested(attrs, OZRAM_HIST_ATTR_MAX, nest, policy.data()) != 0 ||
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
    return hist;
}

// The latency nest into `latency`; false when it is malformed.
bool read_latency(nlattr* nest, LatencyRecord& latency) {
    static auto policy = latency_policy();
    nlattr* ops[OZRAM_LATENCY_ATTR_MAX + 1];
    if (nla_parse_nested(ops, OZRAM_LATENCY_ATTR_MAX, nest, policy.data()) != 0) {
        return false;
    }
    const std::array<std::pair<LatencyOp, int>, 3> nests{{
        {LatencyOp::write, OZRAM_LATENCY_ATTR_WRITE},
        {LatencyOp::read, OZRAM_LATENCY_ATTR_READ},
        {LatencyOp::ring, OZRAM_LATENCY_ATTR_RING},
    }};
    for (const auto& [op, attr] : nests) {
        if (ops[attr] == nullptr) {
            continue;
        }
        auto hist = histogram_from(ops[attr]);
        if (!hist) {
            return false;
        }
        latency[static_cast<std::size_t>(op)] = std::move(hist);
    }
    return true;
}

}  // namespace

std::optional<StatsRecord> record_from_reply(nlmsghdr* header) {
    static auto top_rules = top_policy();
    static auto stat_rules = fields_policy<OZRAM_STAT_ATTR_MAX>(Source::nested_stats);
    static auto ring_rules = fields_policy<OZRAM_RING_ATTR_MAX>(Source::nested_ring);
    nlattr* top[OZRAM_ATTR_MAX + 1];
    nlattr* stats[OZRAM_STAT_ATTR_MAX + 1] = {};
    nlattr* ring[OZRAM_RING_ATTR_MAX + 1] = {};
    if (genlmsg_parse(header, 0, top, OZRAM_ATTR_MAX, top_rules.data()) < 0) {
        return std::nullopt;
    }
    if (top[OZRAM_ATTR_STATS] && nla_parse_nested(stats, OZRAM_STAT_ATTR_MAX, top[OZRAM_ATTR_STATS],
                                                  stat_rules.data()) != 0) {
        return std::nullopt;
    }
    if (top[OZRAM_ATTR_RING] &&
        nla_parse_nested(ring, OZRAM_RING_ATTR_MAX, top[OZRAM_ATTR_RING], ring_rules.data()) != 0) {
        return std::nullopt;
    }
    StatsRecord record;
    if (top[OZRAM_ATTR_LATENCY] && !read_latency(top[OZRAM_ATTR_LATENCY], record.latency)) {
        return std::nullopt;
    }
    if (top[OZRAM_ATTR_DEV_ID]) {
        record.dev_id = nla_get_u32(top[OZRAM_ATTR_DEV_ID]);
    }
    if (top[OZRAM_ATTR_DEV_NAME]) {
        record.dev_name = nla_get_string(top[OZRAM_ATTR_DEV_NAME]);
    }
    if (top[OZRAM_ATTR_NUM_DEVICES]) {
        record.num_devices = nla_get_u32(top[OZRAM_ATTR_NUM_DEVICES]);
    }
    const auto fields = stat_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const StatField& field = fields[i];
        nlattr* const* attrs = field.source == Source::top            ? top
                               : field.source == Source::nested_stats ? stats
                                                                      : ring;
        record.values[i] = attribute_value(attrs[field.attr], field.width_bits);
    }
    return record;
}

std::optional<std::string> family_version_problem(unsigned version) {
    if (version >= OZRAM_GENL_VERSION) {
        return std::nullopt;
    }
    return "the loaded ozram module speaks version " + std::to_string(version) +
           " of the netlink family, and this ozramctl reads version " +
           std::to_string(OZRAM_GENL_VERSION) + " or later: load the module of ozramctl's release";
}

}  // namespace ozramctl
