// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel LZ4 for ozram.
 *
 * Compression needs a 16 KiB hash table and a bounce buffer, so each CPU
 * owns one stream, created and destroyed by a CPU hotplug state the way
 * zram's zcomp does it.  Decompression needs no state at all.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ozram_comp.h"

/* Worst case LZ4 output for one page: enough for an incompressible page. */
#define OZRAM_COMP_BUFFER_SIZE LZ4_COMPRESSBOUND(PAGE_SIZE)

static struct ozram_comp_stream __percpu *ozram_streams;
static enum cpuhp_state ozram_comp_hp_state;

static void ozram_comp_stream_free(struct ozram_comp_stream *strm)
{
	vfree(strm->workspace);
	kfree(strm->buffer);
	strm->workspace = NULL;
	strm->buffer = NULL;
}

static int ozram_comp_cpu_prepare(unsigned int cpu)
{
	struct ozram_comp_stream *strm = per_cpu_ptr(ozram_streams, cpu);

	strm->workspace = vzalloc(LZ4_MEM_COMPRESS);
	strm->buffer = kzalloc(OZRAM_COMP_BUFFER_SIZE, GFP_KERNEL);
	if (!strm->workspace || !strm->buffer) {
		ozram_comp_stream_free(strm);
		pr_err("cannot allocate the compression stream of CPU %u\n",
		       cpu);
		return -ENOMEM;
	}
	return 0;
}

static int ozram_comp_cpu_dead(unsigned int cpu)
{
	ozram_comp_stream_free(per_cpu_ptr(ozram_streams, cpu));
	return 0;
}

int ozram_comp_init(void)
{
	int cpu, ret;

	ozram_streams = alloc_percpu(struct ozram_comp_stream);
	if (!ozram_streams)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(ozram_streams, cpu)->lock);

	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "block/ozram:prepare",
				ozram_comp_cpu_prepare, ozram_comp_cpu_dead);
	if (ret < 0) {
		free_percpu(ozram_streams);
		ozram_streams = NULL;
		return ret;
	}
	ozram_comp_hp_state = ret;
	return 0;
}

void ozram_comp_exit(void)
{
	cpuhp_remove_state(ozram_comp_hp_state);
	free_percpu(ozram_streams);
	ozram_streams = NULL;
}

struct ozram_comp_stream *ozram_comp_stream_get(void)
{
	local_lock(&ozram_streams->lock);
	return this_cpu_ptr(ozram_streams);
}

void ozram_comp_stream_put(void)
{
	local_unlock(&ozram_streams->lock);
}

/*
 * Compresses one page into strm->buffer.  The buffer holds the worst case,
 * so LZ4 cannot run out of room; a result of 0 means LZ4 itself failed.
 */
int ozram_comp_compress(struct ozram_comp_stream *strm, const void *src,
			unsigned int *dst_len)
{
	int len;

	len = LZ4_compress_default(src, strm->buffer, PAGE_SIZE,
				   OZRAM_COMP_BUFFER_SIZE, strm->workspace);
	if (len <= 0)
		return -EINVAL;
	*dst_len = len;
	return 0;
}

/*
 * Decompresses one stored object into a page.  The object must expand to
 * exactly one page: anything else means the stored data is corrupt.
 */
int ozram_comp_decompress(const void *src, unsigned int src_len, void *dst)
{
	int len = LZ4_decompress_safe(src, dst, src_len, PAGE_SIZE);

	return len == PAGE_SIZE ? 0 : -EIO;
}
