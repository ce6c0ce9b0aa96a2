/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The offload ring shared by ozram.ko and ozramd
 *
 * The producer (the kernel module, or a userspace test producer) owns one
 * shared mapping: a header at offset 0 that gives the offset and size of
 * every other area, a control block of head/tail indices, a submission queue
 * (SQ) of page descriptors, a completion queue (CQ), an output area and a
 * staging area of page slots.  The agent compresses staging slot i into
 * output slot i and posts a completion naming i; the producer trusts nothing
 * but the checks in ozram_ring_check_cqe().  See Documentation/ring-abi.md.
 *
 * This header is valid C for the kernel and for userspace, and valid C++.
 */
#ifndef _UAPI_OZRAM_RING_H
#define _UAPI_OZRAM_RING_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define OZRAM_RING_MAGIC	0x4d525a4fU	/* "OZRM" in little endian */
/* Major: incompatible layout change.  Minor: compatible additions only. */
#define OZRAM_RING_ABI_MAJOR	1
#define OZRAM_RING_ABI_MINOR	5

#define OZRAM_RING_PAGE_SIZE	4096U
#define OZRAM_RING_CACHELINE	64U
#define OZRAM_RING_DEV_PATH	"/dev/ozram-ring"

/* Limits a producer must respect and an agent checks. */
#define OZRAM_RING_MAX_SLOTS	65536U
#define OZRAM_RING_MAX_ENTRIES	65536U

/* One area of the mapping: [offset, offset + size), offset page-aligned. */
struct ozram_ring_area {
	__u64 offset;
	__u64 size;
};

/*
 * At offset 0 of the mapping, written once by the producer before the agent
 * can attach and never changed afterwards.  The agent copies it and checks
 * the copy with ozram_ring_check_header().  Minor versions append fields:
 * header_size says how many bytes of it the producer filled in.
 */
struct ozram_ring_header {
	__u32 magic;
	__u16 abi_major;
	__u16 abi_minor;
	__u32 header_size;	/* sizeof(struct ozram_ring_header) of the producer */
	__u32 page_size;	/* OZRAM_RING_PAGE_SIZE */
	__u32 slots;		/* staging and output slots, 1..MAX_SLOTS */
	__u32 sq_entries;	/* power of two, >= slots */
	__u32 cq_entries;	/* power of two, >= slots */
	__u32 sqe_size;		/* sizeof(struct ozram_ring_sqe) */
	__u32 cqe_size;		/* sizeof(struct ozram_ring_cqe) */
	__u32 huge_threshold;	/* largest LZ4 length accepted, <= page_size */
	__u32 features;		/* OZRAM_RING_FEAT_*: what the producer does */
	__u32 reserved0;
	__u64 mapping_size;	/* bytes of the whole mapping */
	struct ozram_ring_area ctrl;	/* struct ozram_ring_ctrl */
	struct ozram_ring_area sq;	/* sq_entries x struct ozram_ring_sqe */
	struct ozram_ring_area cq;	/* cq_entries x struct ozram_ring_cqe */
	struct ozram_ring_area output;	/* slots x page_size, written by the agent */
	struct ozram_ring_area staging;	/* slots x page_size, read-only to the agent */
};

/*
 * header.features (ABI 1.3):
 * ALGORITHMS: the producer submits pages of other algorithms than LZ4 to an
 *   agent that named them with OZRAM_RING_IOC_SET_ALGORITHMS, says each
 *   page's algorithm in sqe.flags, and accepts OZRAM_RING_ENC_COMPRESSED.
 */
#define OZRAM_RING_FEAT_ALGORITHMS	0x1U
/*
 * header.features (ABI 1.5):
 * LEVELS: a page's submission may carry the compression level its device
 *   chose (algorithm_params), to an agent that asked for levels with
 *   OZRAM_RING_ALGS_LEVELS.  Other agents get no page with a level.
 */
#define OZRAM_RING_FEAT_LEVELS		0x2U

/* A 32-bit index alone on its cache line, so the two sides never share one. */
struct ozram_ring_index {
	__u32 value;
	__u32 pad[15];
};

/*
 * Free-running indices: entry k of a queue lives at k & (entries - 1), the
 * queue holds tail - head entries (u32 arithmetic, wraps at 2^32).
 * Producer of a queue: write the entries, then store-release the tail.
 * Consumer: load-acquire the tail, read the entries, then store-release the
 * head.  The kernel uses smp_load_acquire()/smp_store_release(), userspace
 * std::atomic_ref with acquire/release.
 */
struct ozram_ring_ctrl {
	struct ozram_ring_index sq_head;	/* written by the agent */
	struct ozram_ring_index sq_tail;	/* written by the producer */
	struct ozram_ring_index cq_head;	/* written by the producer */
	struct ozram_ring_index cq_tail;	/* written by the agent */
	struct ozram_ring_index flags;		/* OZRAM_RING_F_*, by the producer */
};

/*
 * ctrl.flags, written by the producer:
 * NEED_WAKEUP: always set.  Agents of ABI 1.0 and 1.1 call
 *   OZRAM_RING_IOC_COMPLETE only while it is; from 1.2 an agent calls it
 *   after every publish of cq_tail and ignores the bit.
 * STOPPING: the producer is going away; the agent finishes what it has
 *   consumed, posts it and detaches.  New SQ entries will not come.
 */
#define OZRAM_RING_F_NEED_WAKEUP	0x1U
#define OZRAM_RING_F_STOPPING		0x2U

/* A page to compress: staging slot `slot`, valid while its generation is. */
struct ozram_ring_sqe {
	__u32 slot;		/* < header.slots */
	__u32 generation;	/* bumped by the producer at every reuse of slot */
	__u32 device_id;	/* which /dev/ozramN: for statistics only */
	__u32 flags;		/* the page's algorithm (1.3) and level (1.5) */
};

/*
 * The algorithm of a page, in sqe.flags & OZRAM_RING_SQE_ALGORITHM (ABI
 * 1.3), each as the kernel's crypto API names it and decodes it.  LZ4 is 0,
 * so that every page of an older producer is one.
 */
enum ozram_ring_algorithm {
	OZRAM_RING_ALG_LZ4 = 0,		/* "lz4": an LZ4 block */
	OZRAM_RING_ALG_LZ4HC = 1,	/* "lz4hc": an LZ4 block */
	OZRAM_RING_ALG_LZO = 2,		/* "lzo": LZO1X */
	OZRAM_RING_ALG_LZO_RLE = 3,	/* "lzo-rle": LZO1X, with or without RLE */
	OZRAM_RING_ALG_ZSTD = 4,	/* "zstd": a zstd frame */
	OZRAM_RING_ALG_NR
};

#define OZRAM_RING_SQE_ALGORITHM	0xffU

/*
 * The compression level of a page, in the bits above the algorithm (ABI
 * 1.5, to an agent that asked for OZRAM_RING_ALGS_LEVELS): a signed 24-bit
 * number, as the kernel's library of the algorithm takes it (LZ4's
 * acceleration, LZ4HC's and zstd's level); 0 is the library's default,
 * which is also what every other producer's page asks for.  Levels beyond
 * the range are sent as its ends: each library clamps them further.
 */
#define OZRAM_RING_SQE_LEVEL_SHIFT	8
#define OZRAM_RING_LEVEL_MIN		(-(1 << 23))
#define OZRAM_RING_LEVEL_MAX		((1 << 23) - 1)

/* Completion status: OZRAM_RING_STATUS_OK or a negative errno (-4095..-1). */
#define OZRAM_RING_STATUS_OK		0
#define OZRAM_RING_STATUS_MAX_ERRNO	4095

/* How the agent stored the page in output slot `slot`. */
enum ozram_ring_encoding {
	OZRAM_RING_ENC_LZ4 = 1,		/* LZ4 block, 1..huge_threshold bytes */
	/*
	 * The page does not compress: the producer stores its staged copy.
	 * No bytes (length 0) from ABI 1.4; an older agent's page_size bytes
	 * are accepted and never read.
	 */
	OZRAM_RING_ENC_RAW = 2,
	OZRAM_RING_ENC_SAME_FILLED = 3,	/* `fill` repeated, 0 bytes */
	/*
	 * ABI 1.3, with OZRAM_RING_FEAT_ALGORITHMS: the page in the algorithm
	 * of its submission, 1..huge_threshold bytes.  For an LZ4 page the
	 * same as OZRAM_RING_ENC_LZ4, which other algorithms may not use.
	 */
	OZRAM_RING_ENC_COMPRESSED = 4,
};

struct ozram_ring_cqe {
	__u32 slot;		/* copied from the SQ entry */
	__u32 generation;	/* copied from the SQ entry */
	__s32 status;		/* 0, or -errno: the producer compresses itself */
	__u32 encoding;		/* enum ozram_ring_encoding when status == 0 */
	__u32 length;		/* bytes in output slot `slot` */
	__u32 flags;		/* OZRAM_RING_CQE_F_*, zero in 1.0 */
	__u64 fill;		/* OZRAM_RING_ENC_SAME_FILLED: the repeated word */
};

/*
 * cqe.flags (ABI 1.1):
 * GPU: a GPU compressed the page; the producer counts it as such.
 * An agent sets a flag only if the producer's header.abi_minor is at least
 * the minor version that defined it: a 1.0 producer rejects every flag.
 */
#define OZRAM_RING_CQE_F_GPU		0x1U
#define OZRAM_RING_CQE_F_KNOWN		OZRAM_RING_CQE_F_GPU

/* The sizes both sides compile against (the kernel adds BUILD_BUG_ON()s). */
#ifdef __cplusplus
static_assert(sizeof(struct ozram_ring_header) == 136, "header");
static_assert(sizeof(struct ozram_ring_index) == 64, "index");
static_assert(sizeof(struct ozram_ring_ctrl) == 320, "ctrl");
static_assert(sizeof(struct ozram_ring_sqe) == 16, "sqe");
static_assert(sizeof(struct ozram_ring_cqe) == 32, "cqe");
#endif

/*
 * Doorbells on the file descriptor of OZRAM_RING_DEV_PATH:
 * - poll(): EPOLLIN while the SQ is not empty, EPOLLHUP once the agent
 *   detached or when the producer is gone.
 * - ioctl(OZRAM_RING_IOC_COMPLETE): completions were posted up to cq_tail.
 * - ioctl(OZRAM_RING_IOC_DETACH): the agent leaves; the producer takes back
 *   every slot in flight at once instead of waiting for its timeout.
 * - ioctl(OZRAM_RING_IOC_SET_ALGORITHMS, __u32 *mask) (ABI 1.3, with
 *   OZRAM_RING_FEAT_ALGORITHMS): the algorithms the agent compresses, bit
 *   1 << OZRAM_RING_ALG_* each; LZ4 always.  Unknown bits: EINVAL.  Until
 *   it is called, and from each attach, an agent gets LZ4 pages only.
 *   From ABI 1.5, with OZRAM_RING_FEAT_LEVELS, OZRAM_RING_ALGS_LEVELS in
 *   the mask says that the agent compresses at each page's level.
 * - mmap(): offset 0 maps [0, staging.offset) read-write; offset
 *   staging.offset maps the staging area, read-only.
 * read() and write() are not doorbells: they fail with EINVAL.
 */
#define OZRAM_RING_IOC_MAGIC	0xB7
#define OZRAM_RING_IOC_COMPLETE	_IO(OZRAM_RING_IOC_MAGIC, 1)
#define OZRAM_RING_IOC_DETACH	_IO(OZRAM_RING_IOC_MAGIC, 2)
#define OZRAM_RING_IOC_SET_ALGORITHMS _IOW(OZRAM_RING_IOC_MAGIC, 3, __u32)
#define OZRAM_RING_ALGS_LEVELS	0x80000000U

/* What ozram_ring_check_header() and ozram_ring_check_cqe() find. */
enum ozram_ring_verdict {
	OZRAM_RING_OK = 0,
	OZRAM_RING_BAD_MAGIC,
	OZRAM_RING_BAD_VERSION,		/* major version unknown to this side */
	OZRAM_RING_BAD_GEOMETRY,	/* sizes, counts or entry sizes */
	OZRAM_RING_BAD_AREA,		/* an area misaligned, short or outside */
	OZRAM_RING_BAD_SLOT,
	OZRAM_RING_STALE,		/* generation no longer current */
	OZRAM_RING_BAD_STATUS,
	OZRAM_RING_BAD_ENCODING,
	OZRAM_RING_BAD_LENGTH,
	OZRAM_RING_BAD_FLAGS,
};

static inline int ozram_ring_is_pow2(__u32 n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline __u64 ozram_ring_align_page(__u64 n)
{
	return (n + OZRAM_RING_PAGE_SIZE - 1) & ~(__u64)(OZRAM_RING_PAGE_SIZE - 1);
}

/*
 * Fills in a header for a new ring: the layout every producer uses.  The
 * caller has checked the geometry; areas follow each other page-aligned,
 * staging last so that it can be mapped read-only on its own.
 */
static inline void ozram_ring_init_header(struct ozram_ring_header *h,
					  __u32 slots, __u32 entries,
					  __u32 huge_threshold)
{
	__u64 at = OZRAM_RING_PAGE_SIZE;
	struct ozram_ring_area *areas[5];
	__u64 sizes[5];
	int i;

	h->magic = OZRAM_RING_MAGIC;
	h->abi_major = OZRAM_RING_ABI_MAJOR;
	h->abi_minor = OZRAM_RING_ABI_MINOR;
	h->header_size = sizeof(*h);
	h->page_size = OZRAM_RING_PAGE_SIZE;
	h->slots = slots;
	h->sq_entries = entries;
	h->cq_entries = entries;
	h->sqe_size = sizeof(struct ozram_ring_sqe);
	h->cqe_size = sizeof(struct ozram_ring_cqe);
	h->huge_threshold = huge_threshold;
	h->features = 0;
	h->reserved0 = 0;

	areas[0] = &h->ctrl;
	sizes[0] = sizeof(struct ozram_ring_ctrl);
	areas[1] = &h->sq;
	sizes[1] = (__u64)entries * sizeof(struct ozram_ring_sqe);
	areas[2] = &h->cq;
	sizes[2] = (__u64)entries * sizeof(struct ozram_ring_cqe);
	areas[3] = &h->output;
	sizes[3] = (__u64)slots * OZRAM_RING_PAGE_SIZE;
	areas[4] = &h->staging;
	sizes[4] = (__u64)slots * OZRAM_RING_PAGE_SIZE;
	for (i = 0; i < 5; i++) {
		areas[i]->offset = at;
		areas[i]->size = ozram_ring_align_page(sizes[i]);
		at += areas[i]->size;
	}
	h->mapping_size = at;
}

/* Whether `area` is page-aligned, at least `need` bytes, inside `limit`. */
static inline int ozram_ring_area_ok(const struct ozram_ring_area *area,
				     __u64 need, __u64 limit)
{
	if (area->offset < OZRAM_RING_PAGE_SIZE ||
	    area->offset % OZRAM_RING_PAGE_SIZE != 0)
		return 0;
	if (area->size < need || area->size > limit)
		return 0;
	return area->offset <= limit - area->size;
}

static inline int ozram_ring_areas_overlap(const struct ozram_ring_area *a,
					   const struct ozram_ring_area *b)
{
	return a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

/*
 * Checks a private copy of a header against the size of the mapping that
 * holds it.  Everything an agent (or a producer reading back its own
 * header) relies on is checked here, so that nothing is guessed later.
 */
static inline enum ozram_ring_verdict
ozram_ring_check_header(const struct ozram_ring_header *h, __u64 mapped)
{
	const struct ozram_ring_area *areas[5];
	__u64 need[5];
	int i, j;

	if (h->magic != OZRAM_RING_MAGIC)
		return OZRAM_RING_BAD_MAGIC;
	if (h->abi_major != OZRAM_RING_ABI_MAJOR)
		return OZRAM_RING_BAD_VERSION;
	if (h->header_size < sizeof(*h) ||
	    h->header_size > OZRAM_RING_PAGE_SIZE ||
	    h->page_size != OZRAM_RING_PAGE_SIZE ||
	    h->sqe_size != sizeof(struct ozram_ring_sqe) ||
	    h->cqe_size != sizeof(struct ozram_ring_cqe))
		return OZRAM_RING_BAD_GEOMETRY;
	if (h->slots == 0 || h->slots > OZRAM_RING_MAX_SLOTS ||
	    !ozram_ring_is_pow2(h->sq_entries) ||
	    !ozram_ring_is_pow2(h->cq_entries) ||
	    h->sq_entries > OZRAM_RING_MAX_ENTRIES ||
	    h->cq_entries > OZRAM_RING_MAX_ENTRIES ||
	    h->sq_entries < h->slots || h->cq_entries < h->slots ||
	    h->huge_threshold == 0 || h->huge_threshold > h->page_size)
		return OZRAM_RING_BAD_GEOMETRY;
	if (h->mapping_size > mapped || h->mapping_size < OZRAM_RING_PAGE_SIZE)
		return OZRAM_RING_BAD_AREA;

	areas[0] = &h->ctrl;
	need[0] = sizeof(struct ozram_ring_ctrl);
	areas[1] = &h->sq;
	need[1] = (__u64)h->sq_entries * sizeof(struct ozram_ring_sqe);
	areas[2] = &h->cq;
	need[2] = (__u64)h->cq_entries * sizeof(struct ozram_ring_cqe);
	areas[3] = &h->output;
	need[3] = (__u64)h->slots * OZRAM_RING_PAGE_SIZE;
	areas[4] = &h->staging;
	need[4] = (__u64)h->slots * OZRAM_RING_PAGE_SIZE;
	for (i = 0; i < 5; i++) {
		if (!ozram_ring_area_ok(areas[i], need[i], h->mapping_size))
			return OZRAM_RING_BAD_AREA;
		for (j = 0; j < i; j++)
			if (ozram_ring_areas_overlap(areas[i], areas[j]))
				return OZRAM_RING_BAD_AREA;
	}
	/* Staging last: [0, staging.offset) holds all the writable areas. */
	for (i = 0; i < 4; i++)
		if (areas[i]->offset > h->staging.offset)
			return OZRAM_RING_BAD_AREA;
	return OZRAM_RING_OK;
}

/*
 * The cqe.flags that a producer with header `h` understands: what an agent
 * may set.  Minor versions only add flags, so this grows with abi_minor.
 */
static inline __u32
ozram_ring_producer_cqe_flags(const struct ozram_ring_header *h)
{
	return h->abi_minor >= 1 ? OZRAM_RING_CQE_F_GPU : 0;
}

/*
 * The length of an OZRAM_RING_ENC_RAW completion for a producer with header
 * `h`: 0 from ABI 1.4, which stores its staged copy and reads no bytes;
 * older producers want the page copied into the output slot.
 */
static inline __u32
ozram_ring_producer_raw_length(const struct ozram_ring_header *h)
{
	return h->abi_minor >= 4 ? 0 : OZRAM_RING_PAGE_SIZE;
}

/*
 * The producer's check of one completion.  `cqe` must be a private copy
 * (read each field of the shared entry once); `generations` holds the
 * current generation of each of the `slots` slots.  OZRAM_RING_OK with a
 * negative status means the agent gave the page back: compress it locally.
 * The output bytes themselves are still untrusted: copy them out of the
 * mapping, then decompress the copy to check it.
 */
static inline enum ozram_ring_verdict
ozram_ring_check_cqe(const struct ozram_ring_cqe *cqe, __u32 slots,
		     __u32 huge_threshold, const __u32 *generations)
{
	if (cqe->slot >= slots)
		return OZRAM_RING_BAD_SLOT;
	if (cqe->generation != generations[cqe->slot])
		return OZRAM_RING_STALE;
	if (cqe->flags & ~OZRAM_RING_CQE_F_KNOWN)
		return OZRAM_RING_BAD_FLAGS;
	if (cqe->status != OZRAM_RING_STATUS_OK) {
		if (cqe->status > 0 ||
		    cqe->status < -(__s32)OZRAM_RING_STATUS_MAX_ERRNO)
			return OZRAM_RING_BAD_STATUS;
		return OZRAM_RING_OK;
	}
	switch (cqe->encoding) {
	case OZRAM_RING_ENC_LZ4:
	case OZRAM_RING_ENC_COMPRESSED:
		if (cqe->length == 0 || cqe->length > huge_threshold ||
		    cqe->length > OZRAM_RING_PAGE_SIZE)
			return OZRAM_RING_BAD_LENGTH;
		return OZRAM_RING_OK;
	case OZRAM_RING_ENC_RAW:
		if (cqe->length != 0 && cqe->length != OZRAM_RING_PAGE_SIZE)
			return OZRAM_RING_BAD_LENGTH;
		return OZRAM_RING_OK;
	case OZRAM_RING_ENC_SAME_FILLED:
		if (cqe->length != 0)
			return OZRAM_RING_BAD_LENGTH;
		return OZRAM_RING_OK;
	default:
		return OZRAM_RING_BAD_ENCODING;
	}
}

/*
 * The agent's check of one submission (a private copy of it); @levels: the
 * agent asked for levels (OZRAM_RING_ALGS_LEVELS), and a level is no
 * unknown bit.
 */
static inline enum ozram_ring_verdict
ozram_ring_check_sqe(const struct ozram_ring_sqe *sqe, __u32 slots,
		     int levels)
{
	if (sqe->slot >= slots)
		return OZRAM_RING_BAD_SLOT;
	if ((!levels && (sqe->flags & ~OZRAM_RING_SQE_ALGORITHM)) ||
	    (sqe->flags & OZRAM_RING_SQE_ALGORITHM) >= OZRAM_RING_ALG_NR)
		return OZRAM_RING_BAD_FLAGS;
	return OZRAM_RING_OK;
}

/* The flags of a submission of a page of @algorithm at @level. */
static inline __u32 ozram_ring_sqe_flags(__u32 algorithm, __s32 level)
{
	if (level < OZRAM_RING_LEVEL_MIN)
		level = OZRAM_RING_LEVEL_MIN;
	if (level > OZRAM_RING_LEVEL_MAX)
		level = OZRAM_RING_LEVEL_MAX;
	return algorithm | ((__u32)level << OZRAM_RING_SQE_LEVEL_SHIFT);
}

/* The level of a checked submission, 0 for the library's default. */
static inline __s32 ozram_ring_sqe_level(const struct ozram_ring_sqe *sqe)
{
	__u32 bits = sqe->flags >> OZRAM_RING_SQE_LEVEL_SHIFT;

	/* Sign-extends the 24-bit field without shifting a negative number. */
	return (__s32)(bits ^ 0x800000U) - 0x800000;
}

/* The algorithm of a checked submission. */
static inline enum ozram_ring_algorithm
ozram_ring_sqe_algorithm(const struct ozram_ring_sqe *sqe)
{
	return (enum ozram_ring_algorithm)(sqe->flags &
					   OZRAM_RING_SQE_ALGORITHM);
}

/*
 * Whether a completion's encoding may answer a page of @algorithm: an LZ4
 * block answers LZ4 and LZ4HC pages only.
 */
static inline int ozram_ring_encoding_fits(__u32 encoding, __u32 algorithm)
{
	if (encoding == OZRAM_RING_ENC_LZ4)
		return algorithm == OZRAM_RING_ALG_LZ4 ||
		       algorithm == OZRAM_RING_ALG_LZ4HC;
	return 1;
}

#endif /* _UAPI_OZRAM_RING_H */
