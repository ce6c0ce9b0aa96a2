// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel compression for ozram, through the crypto API's compression
 * algorithms, as zram's zcomp does it.  Every algorithm in use has one
 * stream per CPU, created and destroyed by a multi-instance CPU hotplug
 * state: an algorithm's context and a bounce buffer are too large to
 * allocate per request, and a per-CPU stream needs no lock beyond
 * disabling preemption.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <ozram_ring.h>

#include "ozram_comp.h"

/* Worst case output of any algorithm on one page. */
#define OZRAM_COMP_BUFFER_ORDER	1

struct ozram_comp {
	struct ozram_comp_stream __percpu *streams;
	struct hlist_node node;
	struct ozram_comp_level level;
	char name[OZRAM_COMP_NAME_MAX];
};

/* What zram offers, in its order; each listed if the kernel has it. */
static const char * const ozram_comp_known[] = {
	"lzo", "lzo-rle", "lz4", "lz4hc", "842", "zstd", "deflate",
};

/* The names of enum ozram_ring_algorithm, what an agent may do. */
static const char * const ozram_comp_ring_names[OZRAM_RING_ALG_NR] = {
	[OZRAM_RING_ALG_LZ4] = "lz4",
	[OZRAM_RING_ALG_LZ4HC] = "lz4hc",
	[OZRAM_RING_ALG_LZO] = "lzo",
	[OZRAM_RING_ALG_LZO_RLE] = "lzo-rle",
	[OZRAM_RING_ALG_ZSTD] = "zstd",
};

static enum cpuhp_state ozram_comp_hp_state;

static void ozram_comp_stream_free(struct ozram_comp_stream *strm)
{
	if (!IS_ERR_OR_NULL(strm->tfm))
		crypto_free_comp(strm->tfm);
	ozram_comp_level_free(strm->level_ws);
	free_pages((unsigned long)strm->buffer, OZRAM_COMP_BUFFER_ORDER);
	strm->tfm = NULL;
	strm->level_ws = NULL;
	strm->buffer = NULL;
}

static int ozram_comp_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct ozram_comp *comp = hlist_entry(node, struct ozram_comp, node);
	struct ozram_comp_stream *strm = per_cpu_ptr(comp->streams, cpu);

	strm->tfm = crypto_alloc_comp(comp->name, 0, 0);
	strm->buffer = (void *)__get_free_pages(GFP_KERNEL,
						OZRAM_COMP_BUFFER_ORDER);
	strm->level = &comp->level;
	if (comp->level.kind != OZRAM_LEVEL_NONE)
		strm->level_ws = ozram_comp_level_alloc(&comp->level);
	if (IS_ERR_OR_NULL(strm->tfm) || !strm->buffer ||
	    (comp->level.kind != OZRAM_LEVEL_NONE && !strm->level_ws)) {
		ozram_comp_stream_free(strm);
		pr_err("cannot allocate a %s stream for CPU %u\n", comp->name,
		       cpu);
		return -ENOMEM;
	}
	return 0;
}

static int ozram_comp_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct ozram_comp *comp = hlist_entry(node, struct ozram_comp, node);

	ozram_comp_stream_free(per_cpu_ptr(comp->streams, cpu));
	return 0;
}

int ozram_comp_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN,
				      "block/ozram:prepare",
				      ozram_comp_cpu_prepare,
				      ozram_comp_cpu_dead);
	if (ret < 0)
		return ret;
	ozram_comp_hp_state = ret;
	return 0;
}

void ozram_comp_exit(void)
{
	cpuhp_remove_multi_state(ozram_comp_hp_state);
}

bool ozram_comp_copy_name(char *dst, const char *name)
{
	size_t len = strcspn(name, "\n");

	if (!len || len >= OZRAM_COMP_NAME_MAX || name[len + (name[len] == '\n')])
		return false;
	memcpy(dst, name, len);
	dst[len] = '\0';
	return true;
}

bool ozram_comp_available(const char *name)
{
	char clean[OZRAM_COMP_NAME_MAX];

	/* The crypto API does not ignore a trailing newline. */
	return ozram_comp_copy_name(clean, name) && crypto_has_comp(clean, 0, 0);
}

ssize_t ozram_comp_list(char *buf, ssize_t at, const char *selected)
{
	bool listed = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ozram_comp_known); i++) {
		const char *name = ozram_comp_known[i];

		if (!strcmp(name, selected)) {
			at += sysfs_emit_at(buf, at, "[%s] ", name);
			listed = true;
		} else if (crypto_has_comp(name, 0, 0)) {
			at += sysfs_emit_at(buf, at, "%s ", name);
		}
	}
	if (!listed)
		at += sysfs_emit_at(buf, at, "[%s] ", selected);
	/* zram's format, its trailing space included. */
	return at + sysfs_emit_at(buf, at, "\n");
}

int ozram_comp_ring_algorithm(const char *name)
{
	int alg;

	for (alg = 0; alg < OZRAM_RING_ALG_NR; alg++) {
		if (!strcmp(name, ozram_comp_ring_names[alg]))
			return alg;
	}
	return -1;
}

struct ozram_comp *ozram_comp_create(const char *name, s32 level)
{
	struct ozram_comp *comp;
	int cpu, ret;

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp)
		return ERR_PTR(-ENOMEM);
	if (!ozram_comp_copy_name(comp->name, name) ||
	    ozram_comp_level_init(&comp->level, comp->name, level)) {
		kfree(comp);
		return ERR_PTR(-EINVAL);
	}
	comp->streams = alloc_percpu(struct ozram_comp_stream);
	if (!comp->streams) {
		kfree(comp);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(comp->streams, cpu)->lock);
	ret = cpuhp_state_add_instance(ozram_comp_hp_state, &comp->node);
	if (ret < 0) {
		free_percpu(comp->streams);
		kfree(comp);
		return ERR_PTR(ret);
	}
	return comp;
}

void ozram_comp_destroy(struct ozram_comp *comp)
{
	if (IS_ERR_OR_NULL(comp))
		return;
	cpuhp_state_remove_instance(ozram_comp_hp_state, &comp->node);
	free_percpu(comp->streams);
	kfree(comp);
}

const char *ozram_comp_name(const struct ozram_comp *comp)
{
	return comp->name;
}

s32 ozram_comp_ring_level(const struct ozram_comp *comp)
{
	return ozram_comp_level_ring(&comp->level);
}

struct ozram_comp_stream *ozram_comp_stream_get(struct ozram_comp *comp)
{
	local_lock(&comp->streams->lock);
	return this_cpu_ptr(comp->streams);
}

void ozram_comp_stream_put(struct ozram_comp *comp)
{
	local_unlock(&comp->streams->lock);
}

int ozram_comp_compress(struct ozram_comp_stream *strm, struct page *page,
			unsigned int *dst_len)
{
	unsigned int len = PAGE_SIZE << OZRAM_COMP_BUFFER_ORDER;
	void *src = kmap_local_page(page);
	int ret;

	if (strm->level_ws)
		ret = ozram_comp_level_compress(strm->level, strm->level_ws,
						src, strm->buffer, len, &len);
	else
		ret = crypto_comp_compress(strm->tfm, src, PAGE_SIZE,
					   strm->buffer, &len);
	kunmap_local(src);
	if (ret)
		return ret;
	*dst_len = len;
	return 0;
}

int ozram_comp_compress_copy(struct ozram_comp *comp, struct page *page,
			     void *dst, unsigned int max,
			     unsigned int *dst_len)
{
	struct ozram_comp_stream *strm = ozram_comp_stream_get(comp);
	int ret;

	ret = ozram_comp_compress(strm, page, dst_len);
	if (!ret && *dst_len < max)
		memcpy(dst, strm->buffer, *dst_len);
	ozram_comp_stream_put(comp);
	return ret;
}

int ozram_comp_decompress(struct ozram_comp_stream *strm, const void *src,
			  unsigned int src_len, void *dst)
{
	unsigned int len = PAGE_SIZE;
	int ret;

	ret = crypto_comp_decompress(strm->tfm, src, src_len, dst, &len);
	return !ret && len == PAGE_SIZE ? 0 : -EIO;
}

int ozram_comp_decode(struct ozram_comp *comp, const void *src,
		      unsigned int src_len, void *dst)
{
	struct ozram_comp_stream *strm;
	int ret;

	if (!comp)
		return -EIO;
	strm = ozram_comp_stream_get(comp);
	ret = ozram_comp_decompress(strm, src, src_len, dst);
	ozram_comp_stream_put(comp);
	return ret;
}
