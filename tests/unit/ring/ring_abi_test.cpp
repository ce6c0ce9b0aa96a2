// The ABI header: layout, the producer's layout function, and the checks
// that the kernel mirrors.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "ozram_ring.h"
#include "ring_view.hpp"

namespace {

ozram_ring_header good_header(std::uint32_t slots = 64, std::uint32_t entries = 64) {
    ozram_ring_header header;
    ozram_ring_init_header(&header, slots, entries, 3072);
    return header;
}

TEST(RingAbi, FieldsSitWhereTheDocumentSaysSoTheKernelAgrees) {
    EXPECT_EQ(offsetof(ozram_ring_header, magic), 0u);
    EXPECT_EQ(offsetof(ozram_ring_header, mapping_size), 48u);
    EXPECT_EQ(offsetof(ozram_ring_header, ctrl), 56u);
    EXPECT_EQ(offsetof(ozram_ring_header, staging), 120u);
    EXPECT_EQ(offsetof(ozram_ring_ctrl, sq_tail) % OZRAM_RING_CACHELINE, 0u);
    EXPECT_NE(offsetof(ozram_ring_ctrl, sq_head) / OZRAM_RING_CACHELINE,
              offsetof(ozram_ring_ctrl, sq_tail) / OZRAM_RING_CACHELINE);
    EXPECT_NE(offsetof(ozram_ring_ctrl, cq_head) / OZRAM_RING_CACHELINE,
              offsetof(ozram_ring_ctrl, cq_tail) / OZRAM_RING_CACHELINE);
    EXPECT_EQ(offsetof(ozram_ring_cqe, fill), 24u);
    EXPECT_NE(OZRAM_RING_IOC_COMPLETE, OZRAM_RING_IOC_DETACH);
}

TEST(RingAbi, InitHeaderLaysOutPageAlignedDisjointAreasWithStagingLast) {
    const ozram_ring_header header = good_header(100, 128);
    EXPECT_EQ(ozram_ring_check_header(&header, header.mapping_size), OZRAM_RING_OK);
    const ozram_ring_area* areas[] = {&header.ctrl, &header.sq, &header.cq, &header.output,
                                      &header.staging};
    for (const ozram_ring_area* area : areas) {
        EXPECT_EQ(area->offset % OZRAM_RING_PAGE_SIZE, 0u);
        EXPECT_LE(area->offset + area->size, header.mapping_size);
        EXPECT_LE(area->offset, header.staging.offset);
    }
    EXPECT_EQ(header.staging.size, 100u * OZRAM_RING_PAGE_SIZE);
    EXPECT_EQ(header.staging.offset + header.staging.size, header.mapping_size);
}

TEST(RingAbi, HeaderCheckRejectsEveryKindOfDamage) {
    struct Case {
        const char* what;
        void (*damage)(ozram_ring_header&);
        ozram_ring_verdict expected;
    };
    const Case cases[] = {
        {"magic", [](ozram_ring_header& h) { h.magic = 0; }, OZRAM_RING_BAD_MAGIC},
        {"major", [](ozram_ring_header& h) { h.abi_major = 2; }, OZRAM_RING_BAD_VERSION},
        {"short header", [](ozram_ring_header& h) { h.header_size = 8; }, OZRAM_RING_BAD_GEOMETRY},
        {"page size", [](ozram_ring_header& h) { h.page_size = 65536; }, OZRAM_RING_BAD_GEOMETRY},
        {"sqe size", [](ozram_ring_header& h) { h.sqe_size = 8; }, OZRAM_RING_BAD_GEOMETRY},
        {"cqe size", [](ozram_ring_header& h) { h.cqe_size = 64; }, OZRAM_RING_BAD_GEOMETRY},
        {"no slots", [](ozram_ring_header& h) { h.slots = 0; }, OZRAM_RING_BAD_GEOMETRY},
        {"entries not pow2", [](ozram_ring_header& h) { h.sq_entries = 96; },
         OZRAM_RING_BAD_GEOMETRY},
        {"fewer entries than slots", [](ozram_ring_header& h) { h.cq_entries = 32; },
         OZRAM_RING_BAD_GEOMETRY},
        {"threshold above page", [](ozram_ring_header& h) { h.huge_threshold = 4097; },
         OZRAM_RING_BAD_GEOMETRY},
        {"mapping larger than mapped", [](ozram_ring_header& h) { h.mapping_size *= 2; },
         OZRAM_RING_BAD_AREA},
        {"area misaligned", [](ozram_ring_header& h) { h.sq.offset += 8; }, OZRAM_RING_BAD_AREA},
        {"area short", [](ozram_ring_header& h) { h.output.size -= OZRAM_RING_PAGE_SIZE; },
         OZRAM_RING_BAD_AREA},
        {"area over the end",
         [](ozram_ring_header& h) { h.staging.offset += OZRAM_RING_PAGE_SIZE; },
         OZRAM_RING_BAD_AREA},
        {"offset wraps", [](ozram_ring_header& h) { h.cq.offset = ~0ULL & ~0xfffULL; },
         OZRAM_RING_BAD_AREA},
        {"areas overlap", [](ozram_ring_header& h) { h.cq.offset = h.sq.offset; },
         OZRAM_RING_BAD_AREA},
        {"header area", [](ozram_ring_header& h) { h.ctrl.offset = 0; }, OZRAM_RING_BAD_AREA},
    };
    for (const Case& test : cases) {
        ozram_ring_header header = good_header();
        const std::uint64_t mapped = header.mapping_size;
        test.damage(header);
        EXPECT_EQ(ozram_ring_check_header(&header, mapped), test.expected) << test.what;
    }
}

TEST(RingAbi, CheckHeaderThrowsAbiVersionErrorOnlyForTheMajorVersion) {
    ozram_ring_header header = good_header();
    header.abi_minor = 7;  // a compatible addition
    EXPECT_NO_THROW(ozram::ring::check_header(header, header.mapping_size));
    header.abi_major = 9;
    EXPECT_THROW(ozram::ring::check_header(header, header.mapping_size),
                 ozram::ring::AbiVersionError);
    header = good_header();
    header.magic = 1;
    try {
        ozram::ring::check_header(header, header.mapping_size);
        FAIL() << "a bad magic was accepted";
    } catch (const ozram::ring::AbiVersionError&) {
        FAIL() << "a bad magic is not a version mismatch";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), EBADMSG);
    }
}

class CqeCheck : public ::testing::Test {
  protected:
    static constexpr std::uint32_t SLOTS = 8;
    static constexpr std::uint32_t THRESHOLD = 3072;
    std::vector<std::uint32_t> generations = std::vector<std::uint32_t>(SLOTS, 5);

    ozram_ring_verdict check(const ozram_ring_cqe& cqe) const {
        return ozram_ring_check_cqe(&cqe, SLOTS, THRESHOLD, generations.data());
    }
    static ozram_ring_cqe lz4(std::uint32_t length) {
        return {3, 5, OZRAM_RING_STATUS_OK, OZRAM_RING_ENC_LZ4, length, 0, 0};
    }
};

TEST_F(CqeCheck, AcceptsWellFormedCompletionsOfEachEncoding) {
    EXPECT_EQ(check(lz4(1)), OZRAM_RING_OK);
    EXPECT_EQ(check(lz4(THRESHOLD)), OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_RAW, 0, 0, 0}), OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_RAW, OZRAM_RING_PAGE_SIZE, 0, 0}), OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_SAME_FILLED, 0, 0, 0xdeadbeef}), OZRAM_RING_OK);
    // An error status gives the page back; encoding and length do not matter.
    EXPECT_EQ(check({3, 5, -ENOMEM, 99, 99999, 0, 0}), OZRAM_RING_OK);
}

TEST_F(CqeCheck, RejectsEveryKindOfMalformedCompletion) {
    ozram_ring_cqe cqe = lz4(100);
    cqe.slot = SLOTS;
    EXPECT_EQ(check(cqe), OZRAM_RING_BAD_SLOT);
    cqe.slot = 0xffffffffu;
    EXPECT_EQ(check(cqe), OZRAM_RING_BAD_SLOT);

    cqe = lz4(100);
    cqe.generation = 4;
    EXPECT_EQ(check(cqe), OZRAM_RING_STALE);

    EXPECT_EQ(check(lz4(0)), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check(lz4(THRESHOLD + 1)), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check(lz4(OZRAM_RING_PAGE_SIZE + 1)), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_RAW, 100, 0, 0}), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_RAW, OZRAM_RING_PAGE_SIZE - 1, 0, 0}),
              OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_SAME_FILLED, 8, 0, 0}), OZRAM_RING_BAD_LENGTH);

    EXPECT_EQ(check({3, 5, 0, 0, 100, 0, 0}), OZRAM_RING_BAD_ENCODING);
    EXPECT_EQ(check({3, 5, 0, 5, 100, 0, 0}), OZRAM_RING_BAD_ENCODING);
    // ABI 1.3: a page in its submission's algorithm, with LZ4's lengths.
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_COMPRESSED, 100, 0, 0}), OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_COMPRESSED, 0, 0, 0}), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_COMPRESSED, 3073, 0, 0}), OZRAM_RING_BAD_LENGTH);

    EXPECT_EQ(check({3, 5, 1, OZRAM_RING_ENC_LZ4, 100, 0, 0}), OZRAM_RING_BAD_STATUS);
    EXPECT_EQ(check({3, 5, -4096, OZRAM_RING_ENC_LZ4, 100, 0, 0}), OZRAM_RING_BAD_STATUS);

    // Every bit outside the known mask, alone and next to a known one.
    for (std::uint32_t bit = 0; bit < 32; ++bit) {
        const std::uint32_t flag = 1u << bit;
        if ((flag & OZRAM_RING_CQE_F_KNOWN) != 0) {
            continue;
        }
        cqe = lz4(100);
        cqe.flags = flag;
        EXPECT_EQ(check(cqe), OZRAM_RING_BAD_FLAGS) << "bit " << bit;
        cqe.flags = flag | OZRAM_RING_CQE_F_GPU;
        EXPECT_EQ(check(cqe), OZRAM_RING_BAD_FLAGS) << "bit " << bit << " with GPU";
    }
}

TEST_F(CqeCheck, AcceptsTheGpuFlagOnEveryEncodingAndOnAnError) {
    EXPECT_EQ(OZRAM_RING_CQE_F_GPU, 1u);
    EXPECT_EQ(OZRAM_RING_CQE_F_KNOWN, OZRAM_RING_CQE_F_GPU);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_LZ4, 100, OZRAM_RING_CQE_F_GPU, 0}), OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_RAW, OZRAM_RING_PAGE_SIZE, OZRAM_RING_CQE_F_GPU, 0}),
              OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_SAME_FILLED, 0, OZRAM_RING_CQE_F_GPU, 7}),
              OZRAM_RING_OK);
    EXPECT_EQ(check({3, 5, -EIO, 0, 0, OZRAM_RING_CQE_F_GPU, 0}), OZRAM_RING_OK);
    // The flag does not excuse anything else.
    EXPECT_EQ(check({3, 5, 0, OZRAM_RING_ENC_LZ4, 0, OZRAM_RING_CQE_F_GPU, 0}),
              OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(check({3, 4, 0, OZRAM_RING_ENC_LZ4, 100, OZRAM_RING_CQE_F_GPU, 0}), OZRAM_RING_STALE);
}

TEST(RingAbi, AgentSetsCqeFlagsOnlyWhenTheProducerKnowsThem) {
    ozram_ring_header header;
    ozram_ring_init_header(&header, 8, 8, 3072);
    EXPECT_EQ(OZRAM_RING_ABI_MAJOR, 1);
    EXPECT_EQ(OZRAM_RING_ABI_MINOR, 5);
    EXPECT_EQ(header.abi_minor, 5);
    EXPECT_EQ(ozram_ring_producer_cqe_flags(&header), OZRAM_RING_CQE_F_GPU);
    header.abi_minor = 0;
    EXPECT_EQ(ozram_ring_producer_cqe_flags(&header), 0u);
    // A 1.0 producer is still one the agent attaches to.
    EXPECT_NO_THROW(ozram::ring::check_header(header, header.mapping_size));
    // A later minor version knows at least what 1.1 knows.
    header.abi_minor = 7;
    EXPECT_EQ(ozram_ring_producer_cqe_flags(&header) & OZRAM_RING_CQE_F_GPU, OZRAM_RING_CQE_F_GPU);
}

TEST(RingAbi, RawCompletionsCarryAPageOnlyForProducersBefore14) {
    ozram_ring_header header;
    ozram_ring_init_header(&header, 8, 8, 3072);
    EXPECT_EQ(ozram_ring_producer_raw_length(&header), 0u);
    header.abi_minor = 3;
    EXPECT_EQ(ozram_ring_producer_raw_length(&header), OZRAM_RING_PAGE_SIZE);
    header.abi_minor = 0;
    EXPECT_EQ(ozram_ring_producer_raw_length(&header), OZRAM_RING_PAGE_SIZE);
}

TEST(SqeCheck, RejectsSlotsOutOfRangeAndUnknownFlags) {
    const ozram_ring_sqe good{7, 1, 0, 0};
    EXPECT_EQ(ozram_ring_check_sqe(&good, 8, 0), OZRAM_RING_OK);
    const ozram_ring_sqe far{8, 1, 0, 0};
    EXPECT_EQ(ozram_ring_check_sqe(&far, 8, 0), OZRAM_RING_BAD_SLOT);
    // ABI 1.3: the low byte names the page's algorithm.
    const ozram_ring_sqe zstd{0, 1, 0, OZRAM_RING_ALG_ZSTD};
    EXPECT_EQ(ozram_ring_check_sqe(&zstd, 8, 0), OZRAM_RING_OK);
    EXPECT_EQ(ozram_ring_sqe_algorithm(&zstd), OZRAM_RING_ALG_ZSTD);
    const ozram_ring_sqe unknown{0, 1, 0, OZRAM_RING_ALG_NR};
    EXPECT_EQ(ozram_ring_check_sqe(&unknown, 8, 1), OZRAM_RING_BAD_FLAGS);
    const ozram_ring_sqe flagged{0, 1, 0, 0x100};
    EXPECT_EQ(ozram_ring_check_sqe(&flagged, 8, 0), OZRAM_RING_BAD_FLAGS);
    // ABI 1.5: the bits above it are the page's level, to an agent that
    // asked for levels only.
    EXPECT_EQ(ozram_ring_check_sqe(&flagged, 8, 1), OZRAM_RING_OK);
}

TEST(SqeLevel, RoundTripsSignedLevelsAndClampsToTheField) {
    for (const int level :
         {0, 1, 3, 9, 19, 22, 65537, -1, -5, -131072, OZRAM_RING_LEVEL_MIN, OZRAM_RING_LEVEL_MAX}) {
        const ozram_ring_sqe sqe{0, 1, 0, ozram_ring_sqe_flags(OZRAM_RING_ALG_ZSTD, level)};
        EXPECT_EQ(ozram_ring_sqe_algorithm(&sqe), OZRAM_RING_ALG_ZSTD) << level;
        EXPECT_EQ(ozram_ring_sqe_level(&sqe), level);
    }
    const ozram_ring_sqe high{0, 1, 0, ozram_ring_sqe_flags(OZRAM_RING_ALG_LZ4, INT32_MAX)};
    EXPECT_EQ(ozram_ring_sqe_level(&high), OZRAM_RING_LEVEL_MAX);
    EXPECT_EQ(ozram_ring_sqe_algorithm(&high), OZRAM_RING_ALG_LZ4);
    const ozram_ring_sqe low{0, 1, 0, ozram_ring_sqe_flags(OZRAM_RING_ALG_LZ4HC, INT32_MIN)};
    EXPECT_EQ(ozram_ring_sqe_level(&low), OZRAM_RING_LEVEL_MIN);
    EXPECT_EQ(ozram_ring_sqe_algorithm(&low), OZRAM_RING_ALG_LZ4HC);
    // A producer without levels sends 0: the library's default.
    const ozram_ring_sqe plain{0, 1, 0, OZRAM_RING_ALG_ZSTD};
    EXPECT_EQ(ozram_ring_sqe_level(&plain), 0);
}

}  // namespace
