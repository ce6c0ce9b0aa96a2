// The module's answers to GET_DEVICES and GET_STATS, read into a
// StatsRecord.  Every attribute is checked against its netlink type before
// it is read: libnl's nla_get_*() copy the width they are asked for,
// whatever the attribute holds.
#pragma once

#include <optional>
#include <string>

#include "stat_fields.hpp"

struct nlmsghdr;

namespace ozramctl {

// The record one answer carries; empty when the answer is malformed: an
// attribute of another size than its type's, a name without its NUL, a
// nest or a histogram that does not parse.  Attributes newer than this
// program are skipped.
std::optional<StatsRecord> record_from_reply(nlmsghdr* header);

// Why this program cannot read the family at `version` (the module's
// OZRAM_GENL_VERSION); empty when it can.  Attributes are only ever
// appended, so a newer family is read as far as this program knows it.
std::optional<std::string> family_version_problem(unsigned version);

}  // namespace ozramctl
