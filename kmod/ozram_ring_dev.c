// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: /dev/ozram-ring, the agent's way in.  Opening it
 * attaches the agent (one at a time), mmap() gives it the ring, poll()
 * waits for pages, ioctl() rings the completion doorbell or detaches, and
 * the release of the file detaches too.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "ozram_ring_internal.h"

static void ozram_ring_attach(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	lockdep_assert_held(&r->attach_mutex);
	mutex_lock(&r->reap_mutex);
	spin_lock(&r->lock);
	ozram_ring_queues_attach();
	r->agent_pid = task_tgid_vnr(current);
	r->last_progress = jiffies;
	r->attached = true;
	spin_unlock(&r->lock);
	mutex_unlock(&r->reap_mutex);
	pr_info("agent %d attached to the offload ring\n", r->agent_pid);
}

/*
 * The agent leaves (ioctl or release of its file): no new pages, and the
 * ones it holds go to the store worker.  In the agent's context, so what
 * needs reclaim is deferred.  attach_mutex held.
 */
static void ozram_ring_detach(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	pid_t pid;

	lockdep_assert_held(&r->attach_mutex);
	if (!r->attached)
		return;
	mutex_lock(&r->reap_mutex);
	spin_lock(&r->lock);
	r->attached = false;
	pid = r->agent_pid;
	r->agent_pid = 0;
	ozram_ring_queues_stop();
	spin_unlock(&r->lock);
	ozram_ring_reap(false);
	ozram_ring_take_back(true, OZRAM_RING_STAT_DRAINED);
	mutex_unlock(&r->reap_mutex);
	wake_up_interruptible(&r->wait);
	pr_info("agent %d detached from the offload ring\n", pid);
}

static int ozram_ring_open(struct inode *inode, struct file *file)
{
	struct ozram_ring_state *r = &ozram_ring;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/*
	 * A release in progress holds the mutex while it drains the last
	 * agent's pages (a restart after a crash): wait for it rather than
	 * fail.  A live agent holds the file: EBUSY.
	 */
	if (mutex_lock_interruptible(&r->attach_mutex))
		return -ERESTARTSYS;
	if (r->opened) {
		ret = -EBUSY;
	} else {
		r->opened = true;
		ozram_ring_attach();
	}
	mutex_unlock(&r->attach_mutex);
	return ret;
}

static int ozram_ring_release_file(struct inode *inode, struct file *file)
{
	struct ozram_ring_state *r = &ozram_ring;

	mutex_lock(&r->attach_mutex);
	ozram_ring_detach();
	r->opened = false;
	mutex_unlock(&r->attach_mutex);
	return 0;
}

static __poll_t ozram_ring_poll(struct file *file, poll_table *wait)
{
	struct ozram_ring_state *r = &ozram_ring;

	poll_wait(file, &r->wait, wait);
	if (!READ_ONCE(r->attached))
		return EPOLLHUP;
	return ozram_ring_has_work() ? EPOLLIN | EPOLLRDNORM : 0;
}

static long ozram_ring_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct ozram_ring_state *r = &ozram_ring;

	switch (cmd) {
	case OZRAM_RING_IOC_COMPLETE:
		mutex_lock(&r->reap_mutex);
		if (r->attached)
			ozram_ring_reap(false);
		mutex_unlock(&r->reap_mutex);
		return 0;
	case OZRAM_RING_IOC_DETACH:
		mutex_lock(&r->attach_mutex);
		ozram_ring_detach();
		mutex_unlock(&r->attach_mutex);
		return 0;
	default:
		return -ENOTTY;
	}
}

/* vm_flags is written through helpers from 6.3 on (see Kbuild). */
static void ozram_vma_forbid_write(struct vm_area_struct *vma)
{
#ifdef OZRAM_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

/*
 * Offset 0: [0, staging.offset) read-write (a shorter read-only mapping of
 * the header alone is fine).  Offset staging.offset: the staging area,
 * read-only for good.  Nothing else.
 */
static int ozram_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ozram_ring_state *r = &ozram_ring;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;

	if (offset == 0) {
		if (len > r->geo.staging.offset)
			return -EINVAL;
	} else if (offset == r->geo.staging.offset) {
		if (len > r->geo.staging.size)
			return -EINVAL;
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		ozram_vma_forbid_write(vma);
	} else {
		return -EINVAL;
	}
	/* Also marks the mapping VM_DONTEXPAND | VM_DONTDUMP. */
	return remap_vmalloc_range(vma, r->mem, vma->vm_pgoff);
}

static const struct file_operations ozram_ring_fops = {
	.owner = THIS_MODULE,
	.open = ozram_ring_open,
	.release = ozram_ring_release_file,
	.poll = ozram_ring_poll,
	.unlocked_ioctl = ozram_ring_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ozram_ring_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice ozram_ring_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ozram-ring",
	.fops = &ozram_ring_fops,
	.mode = 0600,
};

int ozram_ring_dev_register(void)
{
	int ret = misc_register(&ozram_ring_misc);

	if (ret)
		pr_err("cannot register /dev/ozram-ring: %d\n", ret);
	return ret;
}

void ozram_ring_dev_unregister(void)
{
	misc_deregister(&ozram_ring_misc);
}
