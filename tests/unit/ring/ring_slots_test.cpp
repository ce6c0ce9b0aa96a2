// The kernel module's slot rules (kmod/ozram_ring_slots.c), the very file
// ozram.ko is built from, run in userspace: which slot is free, the
// generation a completion must carry, which completion may claim a slot,
// which slots a time-out takes back, and whether a result gives back the
// staged page.
#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <vector>

extern "C" {
#include "ozram_ring_slots.h"
}

namespace {

constexpr std::uint32_t HUGE_THRESHOLD = 3071;

int decode_lz4(void* /*ctx*/, const void* src, unsigned int len, void* dst) {
    const int n = LZ4_decompress_safe(static_cast<const char*>(src), static_cast<char*>(dst),
                                      static_cast<int>(len), OZRAM_RING_PAGE_SIZE);
    return n == static_cast<int>(OZRAM_RING_PAGE_SIZE) ? 0 : -1;
}

class Slots {
  public:
    explicit Slots(std::uint32_t nr)
        : free_stack_(nr), generations_(nr), states_(nr), algorithms_(nr), posted_(nr) {
        s_.free_stack = free_stack_.data();
        s_.generations = generations_.data();
        s_.states = states_.data();
        s_.algorithms = algorithms_.data();
        s_.posted = posted_.data();
        ozram_ring_slots_init(&s_, nr, HUGE_THRESHOLD);
    }
    ozram_ring_slots* operator->() { return &s_; }
    ozram_ring_slots* get() { return &s_; }

    // A new posting at tick `now`: its slot and generation.
    std::pair<std::uint32_t, std::uint32_t> post(unsigned long now = 0,
                                                 std::uint8_t algorithm = OZRAM_RING_ALG_LZ4) {
        std::uint32_t slot = 0;
        std::uint32_t generation = 0;
        EXPECT_TRUE(ozram_ring_slots_get(&s_, now, algorithm, &slot, &generation));
        return {slot, generation};
    }
    ozram_ring_slot_state state(std::uint32_t slot) const {
        return static_cast<ozram_ring_slot_state>(states_[slot]);
    }

  private:
    std::vector<std::uint32_t> free_stack_;
    std::vector<std::uint32_t> generations_;
    std::vector<std::uint8_t> states_;
    std::vector<std::uint8_t> algorithms_;
    std::vector<unsigned long> posted_;
    ozram_ring_slots s_{};
};

ozram_ring_cqe raw_answer(std::uint32_t slot, std::uint32_t generation) {
    ozram_ring_cqe cqe{};
    cqe.slot = slot;
    cqe.generation = generation;
    cqe.encoding = OZRAM_RING_ENC_RAW;
    cqe.length = OZRAM_RING_PAGE_SIZE;
    return cqe;
}

TEST(RingSlots, SlotZeroFirstThenEveryOtherOnce) {
    Slots s(4);
    EXPECT_EQ(s->nr_free, 4u);
    std::array<bool, 4> seen{};
    for (int i = 0; i < 4; ++i) {
        const auto [slot, generation] = s.post();
        if (i == 0) {
            EXPECT_EQ(slot, 0u) << "a quiet ring keeps using slot 0";
        }
        ASSERT_LT(slot, 4u);
        EXPECT_FALSE(seen[slot]);
        seen[slot] = true;
        EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_IN_FLIGHT);
        EXPECT_NE(generation, 0u);
    }
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    EXPECT_FALSE(ozram_ring_slots_get(s.get(), 0, OZRAM_RING_ALG_LZ4, &slot, &generation))
        << "no slot is free";
}

TEST(RingSlots, TheAnswerToThePostingClaimsItsSlotOnce) {
    Slots s(4);
    const auto [slot, generation] = s.post();
    const ozram_ring_cqe cqe = raw_answer(slot, generation);
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_KEPT);
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_STALE) << "a repeat";
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_KEPT);
}

TEST(RingSlots, AnAnswerToAnOlderPostingIsStale) {
    Slots s(1);
    const auto [slot, first] = s.post();
    ozram_ring_slots_put(s.get(), slot);
    const auto [again, second] = s.post();
    ASSERT_EQ(again, slot);
    EXPECT_NE(first, second);
    const ozram_ring_cqe old = raw_answer(slot, first);
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &old), OZRAM_RING_STALE);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_IN_FLIGHT) << "the new posting is still the agent's";
    for (const std::uint32_t wrong : {second + 1, second - 1, 0u, UINT32_MAX}) {
        const ozram_ring_cqe cqe = raw_answer(slot, wrong);
        EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_STALE) << wrong;
    }
    const ozram_ring_cqe current = raw_answer(slot, second);
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &current), OZRAM_RING_OK);
}

TEST(RingSlots, ASlotNeverPostedCannotBeClaimed) {
    Slots s(4);
    for (std::uint32_t slot = 0; slot < 4; ++slot) {
        const ozram_ring_cqe cqe = raw_answer(slot, 0);
        EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_STALE) << slot;
        EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_FREE);
    }
}

TEST(RingSlots, ASlotOutOfRangeChangesNothing) {
    Slots s(4);
    const auto [slot, generation] = s.post();
    for (const std::uint32_t bad : {4u, 5u, 1u << 16, UINT32_MAX}) {
        const ozram_ring_cqe cqe = raw_answer(bad, generation);
        EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_BAD_SLOT) << bad;
    }
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_IN_FLIGHT);
}

TEST(RingSlots, AMalformedAnswerStillTakesItsSlotOutOfFlight) {
    Slots s(4);
    const auto [slot, generation] = s.post();
    ozram_ring_cqe cqe = raw_answer(slot, generation);
    cqe.encoding = OZRAM_RING_ENC_LZ4;
    cqe.length = HUGE_THRESHOLD + 1;
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_KEPT) << "the producer compresses it itself";
    cqe.length = HUGE_THRESHOLD;
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_STALE) << "answered already";
}

TEST(RingSlots, AnLz4BlockAnswersOnlyLz4Pages) {
    Slots s(4);
    const std::uint8_t lz4_family[] = {OZRAM_RING_ALG_LZ4, OZRAM_RING_ALG_LZ4HC};
    for (const std::uint8_t algorithm : lz4_family) {
        const auto [slot, generation] = s.post(0, algorithm);
        ozram_ring_cqe cqe = raw_answer(slot, generation);
        cqe.encoding = OZRAM_RING_ENC_LZ4;
        cqe.length = 100;
        EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK) << int{algorithm};
        ozram_ring_slots_put(s.get(), slot);
    }
    const auto [slot, generation] = s.post(0, OZRAM_RING_ALG_ZSTD);
    ozram_ring_cqe cqe = raw_answer(slot, generation);
    cqe.encoding = OZRAM_RING_ENC_LZ4;
    cqe.length = 100;
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_BAD_ENCODING);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_KEPT) << "the producer compresses it itself";
    ozram_ring_slots_put(s.get(), slot);
    const auto [again, second] = s.post(0, OZRAM_RING_ALG_ZSTD);
    cqe = raw_answer(again, second);
    cqe.encoding = OZRAM_RING_ENC_COMPRESSED;
    cqe.length = 100;
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK);
}

TEST(RingSlots, AGiveBackIsAcceptedAndClaims) {
    Slots s(4);
    const auto [slot, generation] = s.post();
    ozram_ring_cqe cqe = raw_answer(slot, generation);
    cqe.status = -ENOMEM;
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_KEPT);
}

TEST(RingSlots, APostingIsCurrentUntilItsSlotIsFreed) {
    Slots s(2);
    const auto [slot, generation] = s.post();
    EXPECT_TRUE(ozram_ring_slots_current(s.get(), slot, generation));
    const ozram_ring_cqe cqe = raw_answer(slot, generation);
    ASSERT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK);
    EXPECT_TRUE(ozram_ring_slots_current(s.get(), slot, generation)) << "kept, being stored";
    ozram_ring_slots_put(s.get(), slot);
    EXPECT_FALSE(ozram_ring_slots_current(s.get(), slot, generation));
    EXPECT_EQ(s->nr_free, 2u);
    ozram_ring_slots_put(s.get(), slot);
    EXPECT_EQ(s->nr_free, 2u) << "freeing a free slot twice does not push it twice";
    EXPECT_FALSE(ozram_ring_slots_current(s.get(), 7, generation)) << "out of range";
}

TEST(RingSlots, TakeBackAgeWaitsLongerForAnAgentThatProgresses) {
    EXPECT_EQ(ozram_ring_take_back_age(1000, 0, 100), 100u) << "no progress for long";
    EXPECT_EQ(ozram_ring_take_back_age(1000, 950, 100), 100u * OZRAM_RING_HARD_TIMEOUTS);
    EXPECT_EQ(ozram_ring_take_back_age(1000, 900, 100), 100u) << "exactly a time-out ago";
    // Ticks wrap: progress 10 ticks before the wrap, now 10 after.
    EXPECT_EQ(ozram_ring_take_back_age(10, ULONG_MAX - 9, 100), 100u * OZRAM_RING_HARD_TIMEOUTS);
}

// Progress is an answer that claimed its slot: what claims says of a
// verdict must be what the claim did to the slot, for every kind of answer.
TEST(RingSlots, OnlyAnAnswerThatClaimsItsSlotIsProgress) {
    using Answer = ozram_ring_cqe (*)(std::uint32_t slot, std::uint32_t generation);
    const Answer answers[] = {
        [](std::uint32_t slot, std::uint32_t generation) { return raw_answer(slot, generation); },
        [](std::uint32_t slot, std::uint32_t generation) {
            return raw_answer(slot, generation + 1);
        },
        [](std::uint32_t slot, std::uint32_t generation) {
            return raw_answer(slot, generation - 1);
        },
        [](std::uint32_t, std::uint32_t generation) { return raw_answer(4, generation); },
        [](std::uint32_t, std::uint32_t generation) { return raw_answer(UINT32_MAX, generation); },
        [](std::uint32_t slot, std::uint32_t generation) {
            ozram_ring_cqe cqe = raw_answer(slot, generation);
            cqe.encoding = OZRAM_RING_ENC_LZ4;
            cqe.length = HUGE_THRESHOLD + 1;
            return cqe;
        },
        [](std::uint32_t slot, std::uint32_t generation) {
            ozram_ring_cqe cqe = raw_answer(slot, generation);
            cqe.encoding = 77;
            return cqe;
        },
        [](std::uint32_t slot, std::uint32_t generation) {
            ozram_ring_cqe cqe = raw_answer(slot, generation);
            cqe.status = -ENOMEM;
            return cqe;
        },
        [](std::uint32_t slot, std::uint32_t generation) {
            ozram_ring_cqe cqe = raw_answer(slot, generation);
            cqe.flags = 0x80;
            return cqe;
        },
    };
    Slots s(4);
    int claims = 0;
    for (const Answer answer : answers) {
        const auto [slot, generation] = s.post();
        const ozram_ring_cqe cqe = answer(slot, generation);
        const ozram_ring_verdict verdict = ozram_ring_slots_claim(s.get(), &cqe);
        const bool claimed = s.state(slot) == OZRAM_RING_SLOT_KEPT;
        EXPECT_EQ(ozram_ring_verdict_claims(verdict), claimed)
            << "verdict " << verdict << ", slot " << cqe.slot << ", generation " << cqe.generation;
        claims += claimed;
        ozram_ring_slots_put(s.get(), slot);
    }
    EXPECT_EQ(claims, 5) << "the right generation in range claims, whatever else is wrong";
}

TEST(RingSlots, SqHeadIsProgressOnlyWhenItMovesOnTowardsTheTail) {
    EXPECT_TRUE(ozram_ring_sq_head_advanced(10, 11, 20));
    EXPECT_TRUE(ozram_ring_sq_head_advanced(10, 20, 20)) << "every page taken";
    EXPECT_FALSE(ozram_ring_sq_head_advanced(10, 10, 20)) << "unmoved";
    EXPECT_FALSE(ozram_ring_sq_head_advanced(10, 9, 20)) << "moved back";
    EXPECT_FALSE(ozram_ring_sq_head_advanced(10, 21, 20)) << "past the tail";
    EXPECT_FALSE(ozram_ring_sq_head_advanced(10, 10 + (1u << 31), 20)) << "far past it";
    EXPECT_FALSE(ozram_ring_sq_head_advanced(20, 21, 20)) << "nothing posted to take";
    // Indices wrap.
    EXPECT_TRUE(ozram_ring_sq_head_advanced(UINT32_MAX - 1, 1, 5));
    EXPECT_FALSE(ozram_ring_sq_head_advanced(UINT32_MAX - 1, 6, 5));
    EXPECT_FALSE(ozram_ring_sq_head_advanced(UINT32_MAX - 1, UINT32_MAX - 2, 5));
}

TEST(RingSlots, TakeBackTakesOnlyOldSlotsInFlight) {
    Slots s(4);
    const auto [old_slot, old_gen] = s.post(100);
    const auto [young_slot, young_gen] = s.post(190);
    const auto [answered, answered_gen] = s.post(0);
    const ozram_ring_cqe cqe = raw_answer(answered, answered_gen);
    ASSERT_EQ(ozram_ring_slots_claim(s.get(), &cqe), OZRAM_RING_OK);

    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), old_slot, 200, 100), OZRAM_RING_TAKEN_BACK);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), young_slot, 200, 100), OZRAM_RING_LEFT_IN_FLIGHT);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), answered, 200, 100), OZRAM_RING_NOT_IN_FLIGHT);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), 3, 200, 100), OZRAM_RING_NOT_IN_FLIGHT)
        << "a free slot";
    EXPECT_EQ(s.state(old_slot), OZRAM_RING_SLOT_KEPT);
    EXPECT_EQ(s.state(young_slot), OZRAM_RING_SLOT_IN_FLIGHT);

    const ozram_ring_cqe late = raw_answer(old_slot, old_gen);
    EXPECT_EQ(ozram_ring_slots_claim(s.get(), &late), OZRAM_RING_STALE) << "taken back already";
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), young_slot, 200, 0), OZRAM_RING_TAKEN_BACK)
        << "an age of 0 takes back any slot in flight";
    (void)young_gen;
}

TEST(RingSlots, TakeBackAcrossTheTickWrap) {
    Slots s(1);
    const auto [slot, generation] = s.post(ULONG_MAX - 49);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), slot, 40, 100), OZRAM_RING_LEFT_IN_FLIGHT);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), slot, 50, 100), OZRAM_RING_TAKEN_BACK);
    (void)generation;
}

// The caller reads the clock before it takes the ring's lock, and a writer
// may stage a page in between: a posting stamped after the scan's clock is
// young, not a wrapped-around age, but for an age of 0, which takes back all.
TEST(RingSlots, APostingStampedAfterTheScanIsYoung) {
    Slots s(1);
    const auto [slot, generation] = s.post(1001);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), slot, 1000, 100), OZRAM_RING_LEFT_IN_FLIGHT);
    EXPECT_EQ(s.state(slot), OZRAM_RING_SLOT_IN_FLIGHT);
    EXPECT_EQ(ozram_ring_slots_take_back(s.get(), slot, 1000, 0), OZRAM_RING_TAKEN_BACK);
    (void)generation;
}

class ResultCheck : public ::testing::Test {
  protected:
    ResultCheck()
        : page_(OZRAM_RING_PAGE_SIZE), out_(OZRAM_RING_PAGE_SIZE), scratch_(OZRAM_RING_PAGE_SIZE) {
        for (std::size_t i = 0; i < page_.size(); ++i) {
            page_[i] = static_cast<std::uint8_t>((i / 7) % 31);
        }
    }
    ozram_ring_cqe lz4_of(const std::vector<std::uint8_t>& page) {
        const int n = LZ4_compress_default(
            reinterpret_cast<const char*>(page.data()), reinterpret_cast<char*>(out_.data()),
            static_cast<int>(page.size()), static_cast<int>(out_.size()));
        EXPECT_GT(n, 0);
        ozram_ring_cqe cqe{};
        cqe.encoding = OZRAM_RING_ENC_LZ4;
        cqe.length = static_cast<std::uint32_t>(n);
        return cqe;
    }
    bool matches(const ozram_ring_cqe& cqe, bool verify = true,
                 std::uint8_t algorithm = OZRAM_RING_ALG_LZ4) {
        return ozram_ring_result_matches(&cqe, algorithm, out_.data(), page_.data(),
                                         scratch_.data(), verify, counting_decode, this);
    }
    // The decoder the producer hands over for other formats than LZ4: it
    // decodes LZ4 too, so that a test can tell whether it was called.
    static int counting_decode(void* ctx, const void* src, unsigned int len, void* dst) {
        ++static_cast<ResultCheck*>(ctx)->decodes_;
        return decode_lz4(nullptr, src, len, dst);
    }

    int decodes_ = 0;

    std::vector<std::uint8_t> page_;
    std::vector<std::uint8_t> out_;
    std::vector<std::uint8_t> scratch_;
};

TEST_F(ResultCheck, Lz4MustDecodeToTheStagedPage) {
    const ozram_ring_cqe cqe = lz4_of(page_);
    EXPECT_TRUE(matches(cqe));
    std::vector<std::uint8_t> other = page_;
    other[4000] ^= 1;
    const ozram_ring_cqe wrong = lz4_of(other);
    EXPECT_FALSE(matches(wrong)) << "decodes to another page";
    EXPECT_TRUE(matches(wrong, false)) << "verify=0 takes LZ4 as it is";
    ozram_ring_cqe short_block = lz4_of(page_);
    short_block.length -= 1;
    EXPECT_FALSE(matches(short_block)) << "a cut block does not decode to a page";
}

TEST_F(ResultCheck, AnLz4BlockIsWalkedNotDecoded) {
    // An LZ4 page answered with ENC_LZ4, and an LZ4HC page answered with
    // ENC_COMPRESSED: the module's LZ4 walk checks both, with no decode.
    ozram_ring_cqe cqe = lz4_of(page_);
    EXPECT_TRUE(matches(cqe, true, OZRAM_RING_ALG_LZ4));
    cqe.encoding = OZRAM_RING_ENC_COMPRESSED;
    EXPECT_TRUE(matches(cqe, true, OZRAM_RING_ALG_LZ4HC));
    EXPECT_TRUE(matches(cqe, true, OZRAM_RING_ALG_LZ4));
    page_[17] ^= 0x10;
    EXPECT_FALSE(matches(cqe, true, OZRAM_RING_ALG_LZ4HC));
    EXPECT_EQ(decodes_, 0);
    // Another format's block goes to the decoder the producer gave.
    page_[17] ^= 0x10;
    EXPECT_TRUE(matches(cqe, true, OZRAM_RING_ALG_ZSTD));
    EXPECT_EQ(decodes_, 1);
}

TEST_F(ResultCheck, AnLz4MatchOfOffsetZeroIsRefused) {
    // 20 literals, then a match of offset 0 over zeros: the decoders write
    // zeros for it, so a decode and compare would take it; the format
    // forbids the offset, and the walk refuses it.
    std::fill(page_.begin(), page_.end(), 0);
    for (std::uint8_t i = 0; i < 20; ++i) {
        page_[i] = static_cast<std::uint8_t>(i + 1);
    }
    std::vector<std::uint8_t> block = {0xff, 5};  // 20 literals, a match of 19 + more
    block.insert(block.end(), page_.begin(), page_.begin() + 20);
    block.insert(block.end(), {0, 0});  // offset 0
    std::uint32_t rest = OZRAM_RING_PAGE_SIZE - 20 - 5 - 19;
    for (; rest >= 255; rest -= 255) {
        block.push_back(255);
    }
    block.push_back(static_cast<std::uint8_t>(rest));
    block.insert(block.end(), {0x50, 0, 0, 0, 0, 0});  // the last 5 bytes, literals
    std::copy(block.begin(), block.end(), out_.begin());
    ozram_ring_cqe cqe{};
    cqe.encoding = OZRAM_RING_ENC_LZ4;
    cqe.length = static_cast<std::uint32_t>(block.size());
    ASSERT_EQ(decode_lz4(nullptr, out_.data(), cqe.length, scratch_.data()), 0);
    ASSERT_EQ(std::memcmp(scratch_.data(), page_.data(), page_.size()), 0)
        << "liblz4 rebuilds the page";
    EXPECT_FALSE(matches(cqe));
    EXPECT_TRUE(matches(cqe, false)) << "verify=0 takes LZ4 as it is";
}

// Where the producer may check a result in its owner's copy: only where
// the check needs no buffer and no lock.
TEST(RingResults, CheckedInPlaceOnlyWithoutABufferOrALock) {
    ozram_ring_cqe cqe{};
    cqe.encoding = OZRAM_RING_ENC_LZ4;
    EXPECT_TRUE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_LZ4, true));
    cqe.encoding = OZRAM_RING_ENC_COMPRESSED;
    EXPECT_TRUE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_LZ4HC, true));  // a block
    EXPECT_FALSE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_ZSTD, true));  // decoded
    EXPECT_TRUE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_ZSTD, false));  // not checked
    for (const std::uint32_t encoding :
         {std::uint32_t{OZRAM_RING_ENC_RAW}, std::uint32_t{OZRAM_RING_ENC_SAME_FILLED}, 0xeeu}) {
        cqe.encoding = encoding;  // no bytes to copy, or none to trust
        EXPECT_FALSE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_LZ4, true));
        EXPECT_FALSE(ozram_ring_checks_in_place(&cqe, OZRAM_RING_ALG_LZ4, false));
    }
}

TEST_F(ResultCheck, RawKeepsTheStagedCopyWhateverTheOutputHolds) {
    // The producer stores its staged copy for RAW, so the output slot's
    // bytes (none from ABI 1.4, a page from older agents) are never read.
    ozram_ring_cqe cqe{};
    cqe.encoding = OZRAM_RING_ENC_RAW;
    std::fill(out_.begin(), out_.end(), 0xa5);
    EXPECT_TRUE(matches(cqe));
    cqe.length = OZRAM_RING_PAGE_SIZE;
    EXPECT_TRUE(matches(cqe));
    EXPECT_TRUE(matches(cqe, false));
}

TEST_F(ResultCheck, SameFilledMustBeTheWordRepeated) {
    const std::uint64_t word = 0x0123456789abcdefULL;
    for (std::size_t at = 0; at < page_.size(); at += sizeof(word)) {
        std::memcpy(page_.data() + at, &word, sizeof(word));
    }
    ozram_ring_cqe cqe{};
    cqe.encoding = OZRAM_RING_ENC_SAME_FILLED;
    cqe.fill = word;
    EXPECT_TRUE(matches(cqe));
    EXPECT_TRUE(matches(cqe, false));
    cqe.fill = word ^ 1;
    EXPECT_FALSE(matches(cqe));
    EXPECT_FALSE(matches(cqe, false)) << "the word is checked even with verify=0";
    if (sizeof(unsigned long) < sizeof(std::uint64_t)) {
        cqe.fill = 1ULL << 40;
        EXPECT_FALSE(matches(cqe, false)) << "a word a slot cannot hold";
    }
}

TEST_F(ResultCheck, UnknownEncodingNeverMatches) {
    ozram_ring_cqe cqe{};
    cqe.encoding = 77;
    EXPECT_FALSE(matches(cqe));
    EXPECT_FALSE(matches(cqe, false));
}

}  // namespace
