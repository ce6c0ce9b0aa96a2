// SPDX-License-Identifier: GPL-2.0
/*
 * ozram generic netlink family: device list and statistics for any user,
 * statistics reset and compaction for CAP_NET_ADMIN.  The ABI is
 * shared/ozram_genl.h.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include "ozram_devices.h"
#include "ozram_latency.h"
#include "ozram_snapshot.h"
#include <ozram_genl.h>

static struct genl_family ozram_genl_family;

/* Only OZRAM_ATTR_DEV_ID is ever accepted from userspace. */
static const struct nla_policy ozram_genl_policy[OZRAM_ATTR_MAX + 1] = {
	[OZRAM_ATTR_DEV_ID] = NLA_POLICY_MAX(NLA_U32, OZRAM_MAX_DEVICES - 1),
};

static int put_u64(struct sk_buff *skb, int attr, u64 value)
{
	return nla_put_u64_64bit(skb, attr, value, OZRAM_ATTR_PAD);
}

/*
 * @n numbers, attributes @first to @first + @n - 1 of a nest @attr, in the
 * order of their list.
 */
static int ozram_genl_put_list(struct sk_buff *skb, int attr, int first,
			       int pad, const u64 *values, int n)
{
	struct nlattr *nest = nla_nest_start(skb, attr);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u64_64bit(skb, first + i, values[i], pad)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ozram_genl_put_stats(struct sk_buff *skb,
				const struct ozram_snapshot *s)
{
	BUILD_BUG_ON(OZRAM_STAT_ATTR_MAX - OZRAM_STAT_ATTR_ORIG_DATA + 1 !=
		     OZRAM_NR_STATS);
	BUILD_BUG_ON(OZRAM_RING_ATTR_MAX - OZRAM_RING_ATTR_SUBMITTED + 1 !=
		     OZRAM_RING_NR_STATS);
	if (nla_put_u8(skb, OZRAM_ATTR_AGENT_STATE,
		       s->ring.agent_attached ? OZRAM_AGENT_ATTACHED :
						OZRAM_AGENT_DETACHED) ||
	    nla_put_u32(skb, OZRAM_ATTR_AGENT_PID, s->ring.agent_pid))
		return -EMSGSIZE;
	return ozram_genl_put_list(skb, OZRAM_ATTR_STATS,
				   OZRAM_STAT_ATTR_ORIG_DATA,
				   OZRAM_STAT_ATTR_PAD, s->stats,
				   OZRAM_NR_STATS) ?:
	       ozram_genl_put_list(skb, OZRAM_ATTR_RING,
				   OZRAM_RING_ATTR_SUBMITTED,
				   OZRAM_RING_ATTR_PAD, s->ring.stats,
				   OZRAM_RING_NR_STATS);
}

/* Histograms of every operation, summed over the devices given. */
struct ozram_genl_latency {
	struct ozram_latency_hist ops[OZRAM_LAT_NR];
};

static void ozram_genl_add_latency(struct ozram_genl_latency *lat,
				   struct ozram *oz)
{
	int op;

	for (op = 0; op < OZRAM_LAT_NR; op++)
		ozram_latency_read(oz, op, &lat->ops[op]);
}

static int ozram_genl_put_hist(struct sk_buff *skb, int attr,
			       const struct ozram_latency_hist *hist)
{
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, OZRAM_HIST_ATTR_COUNT, hist->count,
			      OZRAM_HIST_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, OZRAM_HIST_ATTR_SUM_NS, hist->sum_ns,
			      OZRAM_HIST_ATTR_PAD) ||
	    nla_put(skb, OZRAM_HIST_ATTR_BUCKETS, sizeof(hist->buckets),
		    hist->buckets)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ozram_genl_put_latency(struct sk_buff *skb,
				  const struct ozram_genl_latency *lat)
{
	static const int attrs[OZRAM_LAT_NR] = {
		[OZRAM_LAT_WRITE] = OZRAM_LATENCY_ATTR_WRITE,
		[OZRAM_LAT_READ] = OZRAM_LATENCY_ATTR_READ,
		[OZRAM_LAT_RING] = OZRAM_LATENCY_ATTR_RING,
	};
	struct nlattr *nest = nla_nest_start(skb, OZRAM_ATTR_LATENCY);
	int op;

	if (!nest)
		return -EMSGSIZE;
	for (op = 0; op < OZRAM_LAT_NR; op++) {
		if (ozram_genl_put_hist(skb, attrs[op], &lat->ops[op])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ozram_genl_put_device(struct sk_buff *skb, struct ozram *oz,
				 const struct ozram_snapshot *s)
{
	if (nla_put_u32(skb, OZRAM_ATTR_DEV_ID, oz->id) ||
	    nla_put_string(skb, OZRAM_ATTR_DEV_NAME, oz->disk->disk_name) ||
	    put_u64(skb, OZRAM_ATTR_DISKSIZE, s->disksize) ||
	    nla_put_u8(skb, OZRAM_ATTR_INITSTATE, s->initstate))
		return -EMSGSIZE;
	return 0;
}

static int ozram_genl_get_devices_dumpit(struct sk_buff *skb,
					 struct netlink_callback *cb)
{
	int id = cb->args[0];
	struct ozram_snapshot s;
	struct ozram *oz;
	void *hdr;

	ozram_devices_lock();
	for (; (oz = ozram_next_device(&id)); id++) {
		ozram_snapshot(oz, &s);
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ozram_genl_family,
				  NLM_F_MULTI, OZRAM_CMD_GET_DEVICES);
		if (!hdr)
			break;
		if (ozram_genl_put_device(skb, oz, &s)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	ozram_devices_unlock();

	cb->args[0] = id;
	return skb->len;
}

static int ozram_genl_get_stats_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct ozram_snapshot total, s;
	struct ozram_genl_latency *lat;
	struct sk_buff *msg;
	struct ozram *oz;
	u32 num_devices = 0;
	int id, ret;
	void *hdr;

	/* Too large for the stack next to two snapshots. */
	lat = kzalloc(sizeof(*lat), GFP_KERNEL);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!lat || !msg) {
		kfree(lat);
		nlmsg_free(msg);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &ozram_genl_family, 0,
				OZRAM_CMD_GET_STATS);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out_free;
	}

	ozram_devices_lock();
	if (info->attrs[OZRAM_ATTR_DEV_ID]) {
		id = nla_get_u32(info->attrs[OZRAM_ATTR_DEV_ID]);
		oz = ozram_find_device(id);
		if (!oz) {
			ozram_devices_unlock();
			GENL_SET_ERR_MSG(info, "no such ozram device");
			ret = -ENODEV;
			goto out_free;
		}
		ozram_snapshot(oz, &s);
		ozram_genl_add_latency(lat, oz);
		ret = ozram_genl_put_device(msg, oz, &s);
		if (!ret)
			ret = ozram_genl_put_stats(msg, &s);
	} else {
		/* The agent and the ring, even with no device. */
		ozram_snapshot_total_start(&total);
		for (id = 0; (oz = ozram_next_device(&id)); id++) {
			ozram_snapshot(oz, &s);
			ozram_snapshot_add(&total, &s);
			ozram_genl_add_latency(lat, oz);
			num_devices++;
		}
		ret = nla_put_u32(msg, OZRAM_ATTR_NUM_DEVICES, num_devices);
		if (!ret)
			ret = put_u64(msg, OZRAM_ATTR_DISKSIZE, total.disksize);
		if (!ret)
			ret = ozram_genl_put_stats(msg, &total);
	}
	ozram_devices_unlock();
	if (!ret)
		ret = ozram_genl_put_latency(msg, lat);
	if (ret)
		goto out_free;

	kfree(lat);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free:
	kfree(lat);
	nlmsg_free(msg);
	return ret;
}

/*
 * Runs @fn on the device named by OZRAM_ATTR_DEV_ID, or on every device.
 * A device-wide failure is reported only for a named device.
 */
static int ozram_genl_for_devices(struct genl_info *info,
				  int (*fn)(struct ozram *oz))
{
	struct ozram *oz;
	int id, ret = 0;

	ozram_devices_lock();
	if (info->attrs[OZRAM_ATTR_DEV_ID]) {
		id = nla_get_u32(info->attrs[OZRAM_ATTR_DEV_ID]);
		oz = ozram_find_device(id);
		if (oz) {
			ret = fn(oz);
		} else {
			GENL_SET_ERR_MSG(info, "no such ozram device");
			ret = -ENODEV;
		}
	} else {
		for (id = 0; (oz = ozram_next_device(&id)); id++)
			fn(oz);
	}
	ozram_devices_unlock();
	return ret;
}

static int ozram_genl_reset_one(struct ozram *oz)
{
	ozram_stats_reset(oz);
	return 0;
}

static int ozram_genl_reset_stats_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	return ozram_genl_for_devices(info, ozram_genl_reset_one);
}

static int ozram_genl_compact_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	int ret = ozram_genl_for_devices(info, ozram_compact);

	if (ret == -EINVAL)
		GENL_SET_ERR_MSG(info, "ozram device is not initialised");
	return ret;
}

static const struct genl_small_ops ozram_genl_ops[] = {
	{
		.cmd = OZRAM_CMD_GET_DEVICES,
		.dumpit = ozram_genl_get_devices_dumpit,
	},
	{
		.cmd = OZRAM_CMD_GET_STATS,
		.doit = ozram_genl_get_stats_doit,
	},
	{
		.cmd = OZRAM_CMD_RESET_STATS,
		.doit = ozram_genl_reset_stats_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = OZRAM_CMD_COMPACT,
		.doit = ozram_genl_compact_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family ozram_genl_family __ro_after_init = {
	.name = OZRAM_GENL_NAME,
	.version = OZRAM_GENL_VERSION,
	.maxattr = OZRAM_ATTR_MAX,
	.policy = ozram_genl_policy,
	.module = THIS_MODULE,
	.small_ops = ozram_genl_ops,
	.n_small_ops = ARRAY_SIZE(ozram_genl_ops),
	/*
	 * The handlers serialise on ozram_index_mutex and each device's
	 * init_lock, which a long writeback or recompression can hold: under
	 * genetlink's global mutex, one request waiting there would stall
	 * every other family's requests too.
	 */
	.parallel_ops = true,
	/*
	 * resv_start_op 0: every command gets the strict checks of a new
	 * family, a zero genlmsghdr.reserved and no nlmsg_flags beyond
	 * request, ack, echo and dump, on top of the strict attribute
	 * policy above.
	 */
};

int ozram_genl_register(void)
{
	int ret = genl_register_family(&ozram_genl_family);

	if (ret)
		pr_err("cannot register the netlink family: %d\n", ret);
	return ret;
}

void ozram_genl_unregister(void)
{
	genl_unregister_family(&ozram_genl_family);
}
