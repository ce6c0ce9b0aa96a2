// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: its parameters, its memory, module load and unload,
 * and its statistics.  One ring serves every device.  The files of the ring
 * are listed in ozram_ring_internal.h; the design and the locking rules are
 * in Documentation/kmod.md, "The offload ring"; the ABI is
 * shared/ozram_ring.h.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ozram_drv.h"
#include "ozram_ring_internal.h"

static unsigned int ring_slots = 1024;
module_param(ring_slots, uint, 0444);
MODULE_PARM_DESC(ring_slots,
		 "Staging slots of the offload ring (power of two, 1..32768)");

static unsigned int ring_timeout_ms = 1000;
/*
 * Whether the time-out worker exists, for ozram_ring_timeout_set(); under
 * the module's kernel_param_lock, as every write of a parameter is.
 */
static bool ozram_ring_timeout_live;

/*
 * A shorter ring_timeout_ms holds for the pages already in flight too: the
 * time-out worker, queued with the old time, runs within the new one, and
 * one due sooner is left alone.  (A longer one needs nothing: the worker
 * re-arms itself with it.)
 */
static int ozram_ring_timeout_set(const char *val,
				  const struct kernel_param *kp)
{
	struct delayed_work *work = &ozram_ring.timeout_work;
	int ret = param_set_uint(val, kp);

	if (!ret && ozram_ring_timeout_live && delayed_work_pending(work) &&
	    time_after(READ_ONCE(work->timer.expires),
		       jiffies + ozram_ring_timeout()))
		mod_delayed_work(ozram_ring.wq, work, ozram_ring_timeout());
	return ret;
}

static const struct kernel_param_ops ozram_ring_timeout_ops = {
	.set = ozram_ring_timeout_set,
	.get = param_get_uint,
};
module_param_cb(ring_timeout_ms, &ozram_ring_timeout_ops, &ring_timeout_ms,
		0644);
MODULE_PARM_DESC(ring_timeout_ms,
		 "Milliseconds without progress from the agent before the kernel compresses the pages it holds (min 10)");

/*
 * Read-only after load: with verify=0 the agent chooses what reads of the
 * pages it compressed return (with any algorithm, recompression included),
 * which must not be switched on behind a running device.
 */
static bool verify = true;
module_param(verify, bool, 0444);
MODULE_PARM_DESC(verify,
		 "Check every page the agent compressed, with every algorithm and for recompression too, against the staged copy: an LZ4 block by walking it against the page, any other by decoding and comparing (read-only; 0 stores the agent's compressed output of every algorithm unchecked, recompression results included, which replace objects already stored, the kernel's own too)");

struct ozram_ring_state ozram_ring;

unsigned long ozram_ring_timeout(void)
{
	return msecs_to_jiffies(max(READ_ONCE(ring_timeout_ms), 10U));
}

static void ozram_ring_timeout_live_set(bool live)
{
	kernel_param_lock(THIS_MODULE);
	ozram_ring_timeout_live = live;
	kernel_param_unlock(THIS_MODULE);
}

bool ozram_ring_verify(void)
{
	return verify;
}

void ozram_ring_lock_devices(void)
{
	mutex_lock(&ozram_ring.reap_mutex);
}

void ozram_ring_unlock_devices(void)
{
	mutex_unlock(&ozram_ring.reap_mutex);
}

void ozram_ring_snapshot(struct ozram_ring_snapshot *snap)
{
	struct ozram_ring_state *r = &ozram_ring;
	int i;

	for (i = 0; i < OZRAM_RING_NR_STATS; i++)
		snap->stats[i] = atomic64_read(&r->stats[i]);
	spin_lock(&r->lock);
	snap->agent_attached = r->attached;
	/* In the pid namespace of whoever reads it, as /proc would. */
	snap->agent_pid = pid_vnr(r->agent);
	snap->stats[OZRAM_RING_STAT_OCCUPANCY] = r->slots.nr - r->slots.nr_free;
	spin_unlock(&r->lock);
}

struct ozram_ring_mem *ozram_ring_mem_alloc(void)
{
	struct ozram_ring_mem *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	a->base = vmalloc_user(ozram_ring.geo.mapping_size);
	if (!a->base) {
		kfree(a);
		return NULL;
	}
	return a;
}

/*
 * A page that something still maps or pins outlives vfree(): it goes back
 * when its last reference does.
 */
void ozram_ring_mem_free(struct ozram_ring_mem *a)
{
	if (!a)
		return;
	vfree(a->base);
	kfree(a);
}

static void ozram_ring_free(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	ozram_ring_mem_free(rcu_dereference_protected(r->mem, true));
	kvfree(r->slots.free_stack);
	kvfree(r->slots.generations);
	kvfree(r->slots.states);
	kvfree(r->slots.algorithms);
	kvfree(r->slots.posted);
	kvfree(r->reqs);
	bitmap_free(r->to_store);
	bitmap_free(r->held);
	kfree(r->claims);
	kfree(r->copy_buf);
	kfree(r->decode_buf);
	if (r->wq)
		destroy_workqueue(r->wq);
}

static int ozram_ring_alloc(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	u32 n = r->geo.slots;

	r->slots.free_stack = kvcalloc(n, sizeof(u32), GFP_KERNEL);
	r->slots.generations = kvcalloc(n, sizeof(u32), GFP_KERNEL);
	r->slots.states = kvcalloc(n, sizeof(u8), GFP_KERNEL);
	r->slots.algorithms = kvcalloc(n, sizeof(u8), GFP_KERNEL);
	r->slots.posted = kvcalloc(n, sizeof(unsigned long), GFP_KERNEL);
	r->reqs = kvcalloc(n, sizeof(*r->reqs), GFP_KERNEL);
	r->to_store = bitmap_zalloc(n, GFP_KERNEL);
	r->held = bitmap_zalloc(n, GFP_KERNEL);
	r->claims = kmalloc_array(OZRAM_RING_REAP_BATCH, sizeof(*r->claims),
				  GFP_KERNEL);
	r->copy_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	r->decode_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	r->wq = alloc_workqueue("ozram_ring", WQ_MEM_RECLAIM, 1);
	if (!r->slots.free_stack || !r->slots.generations ||
	    !r->slots.states || !r->slots.algorithms || !r->slots.posted ||
	    !r->reqs || !r->claims ||
	    !r->to_store || !r->held || !r->copy_buf || !r->decode_buf ||
	    !r->wq) {
		ozram_ring_free();
		return -ENOMEM;
	}
	return 0;
}

int ozram_ring_init(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *mem;
	int ret;

	BUILD_BUG_ON(sizeof(struct ozram_ring_header) != 136);
	BUILD_BUG_ON(sizeof(struct ozram_ring_ctrl) != 320);
	BUILD_BUG_ON(sizeof(struct ozram_ring_sqe) != 16);
	BUILD_BUG_ON(sizeof(struct ozram_ring_cqe) != 32);
	BUILD_BUG_ON(PAGE_SIZE != OZRAM_RING_PAGE_SIZE);

	if (!verify)
		pr_warn("verify=0: pages the agent compresses, with every algorithm, are stored without being decoded, and so are its recompression results, which replace objects already stored, the kernel's own too; a faulty agent can make reads fail or return wrong data\n");
	if (!ring_slots || ring_slots > OZRAM_RING_MAX_SLOTS / 2 ||
	    !is_power_of_2(ring_slots)) {
		pr_err("ring_slots %u: must be a power of two, 1..%u\n",
		       ring_slots, OZRAM_RING_MAX_SLOTS / 2);
		return -EINVAL;
	}

	memset(r, 0, sizeof(*r));
	spin_lock_init(&r->lock);
	mutex_init(&r->reap_mutex);
	mutex_init(&r->attach_mutex);
	init_waitqueue_head(&r->wait);
	INIT_DELAYED_WORK(&r->timeout_work, ozram_ring_timeout_fn);
	INIT_WORK(&r->store_work, ozram_ring_store_fn);
	INIT_DELAYED_WORK(&r->held_work, ozram_ring_held_fn);

	/* Twice as many entries as slots: a taken-back slot may be queued twice. */
	ozram_ring_init_header(&r->geo, ring_slots, 2 * ring_slots,
			       ozram_huge_class_size - 1);
	r->geo.features = OZRAM_RING_FEAT_ALGORITHMS | OZRAM_RING_FEAT_LEVELS;
	ret = ozram_ring_alloc();
	if (ret)
		return ret;
	mem = ozram_ring_mem_alloc();
	if (!mem) {
		ozram_ring_free();
		return -ENOMEM;
	}
	ozram_ring_queues_init(mem);
	RCU_INIT_POINTER(r->mem, mem);
	ozram_ring_slots_init(&r->slots, r->geo.slots,
			      r->geo.huge_threshold);
	ozram_ring_timeout_live_set(true);
	return 0;
}

/*
 * The last step of module init: once the device exists an agent can open
 * it and take a reference on the module, so nothing may fail after this.
 */
int ozram_ring_register(void)
{
	int ret = ozram_ring_dev_register();

	if (!ret)
		ozram_ring.registered = true;
	return ret;
}

/* After every device is gone: nothing can be staged any more. */
void ozram_ring_exit(void)
{
	if (ozram_ring.registered)
		ozram_ring_dev_unregister();
	ozram_ring_timeout_live_set(false);
	cancel_delayed_work_sync(&ozram_ring.timeout_work);
	/*
	 * held_work may queue store_work, so it goes first; store_work
	 * queues it only for a held page, and none is left with the devices.
	 */
	cancel_delayed_work_sync(&ozram_ring.held_work);
	cancel_work_sync(&ozram_ring.store_work);
	ozram_ring_free();
}
