// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: /dev/ozram-ring, the agent's way in.  Opening it
 * attaches the agent (one at a time), mmap() gives it the ring, poll()
 * waits for pages, ioctl() rings the completion doorbell or detaches, and
 * the release of the file detaches too.
 *
 * Access ends with the agent's process, not with its file: when the
 * process that attached is gone but its file lives on (a fork, a file
 * passed on), the next open() revokes that file, and the next agent gets
 * memory that the old file's mappings and pins cannot reach.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ozram_compat.h"
#include "ozram_ring_internal.h"

/* Whether @file is the attached agent's, not one that was revoked. */
static bool ozram_ring_file_current(struct file *file)
{
	return (unsigned long)file->private_data ==
	       READ_ONCE(ozram_ring.attach_gen);
}

/* Whether a thread of the process that attached still runs. */
static bool ozram_ring_agent_alive(void)
{
	struct task_struct *task;
	bool alive;

	task = get_pid_task(ozram_ring.agent, PIDTYPE_TGID);
	if (!task)
		return false;
	alive = atomic_read(&task->signal->live) > 0;
	put_task_struct(task);
	return alive;
}

/* attach_mutex held, the file counted as the attached one. */
static int ozram_ring_attach(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	int ret;

	lockdep_assert_held(&r->attach_mutex);
	mutex_lock(&r->reap_mutex);
	ret = ozram_ring_queues_attach();
	if (!ret) {
		spin_lock(&r->lock);
		r->agent = get_pid(task_tgid(current));
		/* Until it says more, an agent compresses LZ4 pages only. */
		r->agent_algorithms = BIT(OZRAM_RING_ALG_LZ4);
		r->agent_levels = false;
		r->last_progress = jiffies;
		ozram_ring_admit_reset();
		WRITE_ONCE(r->attached, true);
		spin_unlock(&r->lock);
	}
	mutex_unlock(&r->reap_mutex);
	if (!ret)
		pr_info("agent %d attached to the offload ring\n",
			pid_nr(r->agent));
	return ret;
}

/*
 * The agent leaves (ioctl, release of its file, or revocation): no new
 * pages, and the ones it holds go to the store worker.  In the agent's
 * context, so what needs reclaim is deferred.  attach_mutex held.
 */
static void ozram_ring_detach(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct pid *agent;

	lockdep_assert_held(&r->attach_mutex);
	if (!r->attached)
		return;
	mutex_lock(&r->reap_mutex);
	spin_lock(&r->lock);
	WRITE_ONCE(r->attached, false);
	ozram_ring_admit_reset();
	agent = r->agent;
	r->agent = NULL;
	ozram_ring_queues_stop();
	spin_unlock(&r->lock);
	ozram_ring_reap(false);
	ozram_ring_take_back(true, OZRAM_RING_STAT_DRAINED);
	mutex_unlock(&r->reap_mutex);
	wake_up_interruptible(&r->wait);
	pr_info("agent %d detached from the offload ring\n", pid_nr(agent));
	put_pid(agent);
}

static int ozram_ring_open(struct inode *inode, struct file *file)
{
	struct ozram_ring_state *r = &ozram_ring;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/*
	 * A release in progress holds the mutex while it drains the last
	 * agent's pages (a restart after a crash): wait for it rather than
	 * fail.
	 */
	if (mutex_lock_interruptible(&r->attach_mutex))
		return -ERESTARTSYS;
	if (r->opened) {
		/* A live agent has the ring. */
		if (ozram_ring_agent_alive()) {
			ret = -EBUSY;
			goto out;
		}
		pr_info("agent %d is gone but its ring file is still open: revoking it\n",
			pid_nr(r->agent));
		ozram_ring_detach();
		r->opened = false;
	}
	WRITE_ONCE(r->attach_gen, r->attach_gen + 1);
	file->private_data = (void *)r->attach_gen;
	ret = ozram_ring_attach();
	if (!ret)
		r->opened = true;
out:
	mutex_unlock(&r->attach_mutex);
	return ret;
}

static int ozram_ring_release_file(struct inode *inode, struct file *file)
{
	struct ozram_ring_state *r = &ozram_ring;

	mutex_lock(&r->attach_mutex);
	/* A revoked file was detached when it was revoked. */
	if (ozram_ring_file_current(file)) {
		ozram_ring_detach();
		r->opened = false;
	}
	mutex_unlock(&r->attach_mutex);
	return 0;
}

static __poll_t ozram_ring_poll(struct file *file, poll_table *wait)
{
	struct ozram_ring_state *r = &ozram_ring;

	poll_wait(file, &r->wait, wait);
	/*
	 * Pairs with wq_has_sleeper() in ozram_ring_stage(): the wait queue
	 * entry is visible before sq_tail is read.
	 */
	smp_mb();
	if (!ozram_ring_file_current(file) || !READ_ONCE(r->attached))
		return EPOLLHUP;
	return ozram_ring_has_work() ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The algorithms the agent compresses; LZ4 is one whatever it says. */
static long ozram_ring_set_algorithms(struct file *file, u32 __user *arg)
{
	struct ozram_ring_state *r = &ozram_ring;
	long ret = 0;
	u32 mask;

	if (get_user(mask, arg))
		return -EFAULT;
	if (mask & ~(BIT(OZRAM_RING_ALG_NR) - 1) & ~OZRAM_RING_ALGS_LEVELS)
		return -EINVAL;
	mutex_lock(&r->attach_mutex);
	if (ozram_ring_file_current(file) && r->attached) {
		spin_lock(&r->lock);
		r->agent_algorithms = (mask & (BIT(OZRAM_RING_ALG_NR) - 1)) |
				      BIT(OZRAM_RING_ALG_LZ4);
		r->agent_levels = mask & OZRAM_RING_ALGS_LEVELS;
		spin_unlock(&r->lock);
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&r->attach_mutex);
	return ret;
}

static long ozram_ring_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct ozram_ring_state *r = &ozram_ring;
	long ret = 0;

	switch (cmd) {
	case OZRAM_RING_IOC_COMPLETE:
		mutex_lock(&r->reap_mutex);
		if (!ozram_ring_file_current(file))
			ret = -ENODEV;
		else if (r->attached)
			ozram_ring_reap(false);
		mutex_unlock(&r->reap_mutex);
		return ret;
	case OZRAM_RING_IOC_DETACH:
		mutex_lock(&r->attach_mutex);
		if (ozram_ring_file_current(file))
			ozram_ring_detach();
		else
			ret = -ENODEV;
		mutex_unlock(&r->attach_mutex);
		return ret;
	case OZRAM_RING_IOC_SET_ALGORITHMS:
		return ozram_ring_set_algorithms(file, (u32 __user *)arg);
	default:
		return -ENOTTY;
	}
}

/*
 * The only read-only page in a writable mapping of the ring is the header:
 * a write to it is refused instead of making the page writable.
 */
static vm_fault_t ozram_ring_vm_page_mkwrite(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

/* The protections are set once, at mmap(): mprotect() changes none. */
static int ozram_ring_vm_mprotect(struct vm_area_struct *vma,
				  unsigned long start, unsigned long end,
				  unsigned long newflags)
{
	return newflags == vma->vm_flags ? 0 : -EACCES;
}

static const struct vm_operations_struct ozram_ring_vm_ops = {
	.page_mkwrite = ozram_ring_vm_page_mkwrite,
	.mprotect = ozram_ring_vm_mprotect,
};

/* Inserts the pages of [offset, offset + len) of @a, the header read-only. */
static int ozram_ring_insert_pages(struct vm_area_struct *vma,
				   struct ozram_ring_mem *a, u64 offset,
				   u64 len)
{
	pgprot_t prot = vma->vm_page_prot;
	u64 off;
	int ret;

	for (off = 0; off < len; off += PAGE_SIZE) {
		struct page *page = vmalloc_to_page(a->base + offset + off);

		if (offset + off == 0)
			vma->vm_page_prot =
				vm_get_page_prot(vma->vm_flags & ~VM_WRITE);
		ret = vm_insert_page(vma, vma->vm_start + off, page);
		vma->vm_page_prot = prot;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Offset 0: [0, staging.offset) read-write but for the header page (a
 * shorter, read-only mapping of the header alone is fine).  Offset
 * staging.offset: the staging area, read-only for good.  Shared mappings
 * only, never copied into a child.
 */
static int ozram_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ozram_ring_state *r = &ozram_ring;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	unsigned long clear = 0;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (offset == 0) {
		if (len > r->geo.staging.offset)
			return -EINVAL;
	} else if (offset == r->geo.staging.offset) {
		if (len > r->geo.staging.size)
			return -EINVAL;
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		clear = VM_MAYWRITE;
	} else {
		return -EINVAL;
	}
	/* Held so that no revocation and no new area come in between. */
	mutex_lock(&r->attach_mutex);
	if (!ozram_ring_file_current(file)) {
		ret = -ENODEV;
		goto out;
	}
	ozram_compat_vm_flags_mod(vma,
				  VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
				  clear);
	vma->vm_ops = &ozram_ring_vm_ops;
	ret = ozram_ring_insert_pages(vma, ozram_ring_mem(), offset, len);
out:
	mutex_unlock(&r->attach_mutex);
	return ret;
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
