// The module's LZ4 check (kmod/ozram_lz4_verify.c), the very file ozram.ko
// is built from, run in userspace: each of the format's rules and of the
// decoder's limits, one block at a time.  Every verdict is compared with
// the decode and compare of liblz4 and of the kernel's own decoder as well
// as with the verdict the test expects.
#include <gtest/gtest.h>
#include <lz4hc.h>

#include <numeric>
#include <random>
#include <vector>

#include "lz4_blocks.hpp"

namespace ozram::testing {
namespace {

// The module's verdict and each reference decoder's, all expected to be
// `expected`.
void expect_verdict(const Bytes& block, const Bytes& page, bool expected) {
    for (const Decoder& decoder : reference_decoders()) {
        EXPECT_EQ(decoder_gives(decoder, block, page), expected) << decoder.name;
    }
    EXPECT_EQ(module_accepts(block, page), expected) << "ozram_lz4_verify";
}

Bytes iota_page(std::size_t size = PAGE) {
    Bytes page(size);
    std::iota(page.begin(), page.end(), std::uint8_t{0});
    return page;
}

std::span<const std::uint8_t> part(const Bytes& page, std::size_t from, std::size_t n) {
    return std::span(page).subspan(from, n);
}

TEST(Lz4Verify, Liblz4BlocksOfEveryKindOfPage) {
    std::mt19937_64 rng(1);
    for (int kind = 0; kind < PAGE_KINDS; ++kind) {
        for (int n = 0; n < 8; ++n) {
            const Bytes page = make_page(static_cast<PageKind>(kind), rng);
            SCOPED_TRACE(::testing::Message() << "kind " << kind << " page " << n);
            expect_verdict(lz4_compress(page), page, true);

            Bytes hc(static_cast<std::size_t>(LZ4_compressBound(PAGE)));
            const int len = LZ4_compress_HC(reinterpret_cast<const char*>(page.data()),
                                            reinterpret_cast<char*>(hc.data()), PAGE,
                                            static_cast<int>(hc.size()), LZ4HC_CLEVEL_MAX);
            ASSERT_GT(len, 0);
            hc.resize(static_cast<std::size_t>(len));
            expect_verdict(hc, page, true);
        }
    }
}

TEST(Lz4Verify, AnyOneByteChangedIsRefused) {
    std::mt19937_64 rng(2);
    for (auto kind : {PageKind::Text, PageKind::Periodic, PageKind::Zero, PageKind::Records}) {
        const Bytes page = make_page(kind, rng);
        const Bytes block = lz4_compress(page);
        for (std::size_t at = 0; at < PAGE; ++at) {
            Bytes other = page;
            other[at] ^= static_cast<std::uint8_t>(1 + rng() % 255);
            ASSERT_FALSE(module_accepts(block, other)) << "byte " << at;
            ASSERT_FALSE(liblz4_gives(block, other)) << "byte " << at;
        }
    }
}

TEST(Lz4Verify, EmptyAndTinyBlocks) {
    const Bytes page = iota_page();
    expect_verdict({}, page, false);
    expect_verdict({0x00}, page, false);
    expect_verdict({0xf0}, page, false);
    // One literal is a whole page of one byte.
    expect_verdict({0x10, 0x00}, {0x00}, true);
    expect_verdict({0x10, 0x01}, {0x00}, false);
}

TEST(Lz4Verify, AllLiteralsAndNothingElse) {
    const Bytes page = iota_page();
    const Bytes block = BlockWriter().last(page).bytes();
    expect_verdict(block, page, true);

    Bytes longer = block;
    longer.push_back(0);
    expect_verdict(longer, page, false);
    const Bytes shorter(block.begin(), block.end() - 1);
    expect_verdict(shorter, page, false);
    // One literal too many or too few for the page.
    const Bytes more = BlockWriter().last(iota_page(PAGE + 1)).bytes();
    expect_verdict(more, page, false);
    const Bytes fewer = BlockWriter().last(part(page, 0, PAGE - 1)).bytes();
    expect_verdict(fewer, page, false);
}

// A page of 100 literals then a match of the same 100 bytes, repeated.
Bytes repeated_hundred() {
    Bytes page(PAGE);
    for (std::size_t i = 0; i < PAGE; ++i) {
        page[i] = static_cast<std::uint8_t>(i % 100 * 7);
    }
    return page;
}

TEST(Lz4Verify, OffsetsAtAndBeforeThePageStart) {
    const Bytes page = repeated_hundred();
    auto block_with_offset = [&](std::uint32_t offset) {
        return BlockWriter()
            .sequence(part(page, 0, 100), offset, PAGE - 100 - 8)
            .last(part(page, PAGE - 8, 8))
            .bytes();
    };
    expect_verdict(block_with_offset(100), page, true);
    expect_verdict(block_with_offset(101), page, false);  // one byte before the page
    expect_verdict(block_with_offset(65535), page, false);
    // An offset of 200 reaches before the page; 50 copies the wrong bytes.
    expect_verdict(block_with_offset(200), page, false);
    expect_verdict(block_with_offset(50), page, false);
}

TEST(Lz4Verify, OffsetZeroIsRefusedThoughTheDecoderCopiesZeros) {
    // Literals, then a match of offset 0 over a run of zeros: the decoders
    // write zeros for it, so liblz4 rebuilds the page; the format forbids
    // the offset, and the module refuses it.
    Bytes page(PAGE, 0);
    for (std::size_t i = 0; i < 20; ++i) {
        page[i] = static_cast<std::uint8_t>(i + 1);
    }
    const Bytes block = BlockWriter()
                            .sequence(part(page, 0, 20), 0, PAGE - 20 - 5)
                            .last(part(page, PAGE - 5, 5))
                            .bytes();
    EXPECT_TRUE(liblz4_gives(block, page));
    EXPECT_TRUE(has_zero_offset(block));
    EXPECT_FALSE(module_accepts(block, page));
    // Shortcut-sized: a short match of offset 0 far from the end.
    const Bytes short_block = BlockWriter()
                                  .sequence(part(page, 0, 20), 0, 4)
                                  .sequence({}, 1, PAGE - 24 - 5)
                                  .last(part(page, PAGE - 5, 5))
                                  .bytes();
    EXPECT_TRUE(liblz4_gives(short_block, page));
    EXPECT_FALSE(module_accepts(short_block, page));
}

TEST(Lz4Verify, OverlappingMatchesOfEveryShortOffset) {
    for (std::uint32_t period = 1; period <= 40; ++period) {
        Bytes page(PAGE);
        for (std::size_t i = 0; i < PAGE; ++i) {
            page[i] = static_cast<std::uint8_t>(i % period * 31 + 1);
        }
        SCOPED_TRACE(period);
        const Bytes block = BlockWriter()
                                .sequence(part(page, 0, period), period, PAGE - period - 5)
                                .last(part(page, PAGE - 5, 5))
                                .bytes();
        expect_verdict(block, page, true);
        // The same block against a page whose period breaks once, late.
        Bytes broken = page;
        broken[PAGE - 300] ^= 0x40;
        expect_verdict(block, broken, false);
    }
}

TEST(Lz4Verify, TheLastFiveBytesAreLiterals) {
    const Bytes page = repeated_hundred();
    // The general path (15 literals or more): the last match must end 5
    // bytes before the end of the page.
    for (std::uint32_t left = 0; left <= 8; ++left) {
        BlockWriter writer;
        writer.sequence(part(page, 0, 100), 100, PAGE - 100 - left);
        if (left) {
            writer.last(part(page, PAGE - left, left));
        } else {
            writer.raw(std::vector<std::uint8_t>{0x00});
        }
        SCOPED_TRACE(left);
        expect_verdict(writer.bytes(), page, left >= 5);
    }
}

TEST(Lz4Verify, TheDecodersShortcutSkipsTheEndTests) {
    // A sequence of at most 14 literals and a match of at most 18 bytes,
    // starting 32 or more bytes before the end with more than 16 bytes of
    // input after its token, is copied without the end tests: its match may
    // end in the last 5 bytes, or at the very end before a token of no
    // literals.  The decoders accept such a block; so does the module.
    const Bytes page = repeated_hundred();
    const std::uint32_t start = PAGE - 32;
    auto shortcut_block = [&](std::uint32_t literals, std::uint32_t match) {
        BlockWriter writer;
        writer.sequence(part(page, 0, 100), 100, start - 100);
        writer.sequence(part(page, start, literals), 100, match);
        const std::uint32_t end = start + literals + match;
        // 17 literals of padding would not fit, so the input is made long
        // enough by the final run: the token's 16 bytes of input after it.
        writer.last(part(page, end, PAGE - end));
        return writer.bytes();
    };
    expect_verdict(shortcut_block(14, 18), page, true);  // the match ends at 4096
    expect_verdict(shortcut_block(12, 18), page, true);  // ... 2 bytes before
    expect_verdict(shortcut_block(14, 13), page, true);  // ... 5 bytes before
    // The same shape with 15 literals takes the general path: refused.
    BlockWriter general;
    general.sequence(part(page, 0, 100), 100, start - 100 - 1);
    general.sequence(part(page, start - 1, 15), 100, 18);
    general.raw(std::vector<std::uint8_t>{0x00});
    expect_verdict(general.bytes(), page, false);
}

TEST(Lz4Verify, TheShortcutNeedsThirtyTwoBytesOfOutput) {
    // A match ending 4 bytes before the end: accepted when its sequence
    // starts 32 bytes before the end, refused from 31.
    const Bytes page = repeated_hundred();
    auto block_from = [&](std::uint32_t start, std::uint32_t literals) {
        const std::uint32_t match = PAGE - 4 - start - literals;
        return BlockWriter()
            .sequence(part(page, 0, 100), 100, start - 100)
            .sequence(part(page, start, literals), 100, match)
            .last(part(page, PAGE - 4, 4))
            .bytes();
    };
    expect_verdict(block_from(PAGE - 32, 14), page, true);
    expect_verdict(block_from(PAGE - 31, 13), page, false);
}

TEST(Lz4Verify, MatchesOfEveryCountOfLengthBytes) {
    // A match of 4 to 600 bytes (no length byte, one, a 255 and a rest,
    // several) after three literals, far from both ends, where the check's
    // fast loop meets it, then near the end of the page.  Each block is
    // checked against the page, against the page with one byte changed
    // inside the match, and with one byte changed in the literals before
    // it: the fast loop tests its literal compares only when it ends, and
    // a match with more than one length byte leaves it first.
    const Bytes page = repeated_hundred();
    for (const std::uint32_t length : {4u, 18u, 19u, 20u, 33u, 273u, 274u, 275u, 529u, 600u}) {
        for (const std::uint32_t start : {200u, static_cast<std::uint32_t>(PAGE - 40 - length)}) {
            const std::uint32_t end = start + 3 + length;
            const Bytes block = BlockWriter()
                                    .sequence(part(page, 0, 100), 100, start - 100)
                                    .sequence(part(page, start, 3), 100, length)
                                    .sequence(part(page, end, 2), 100, PAGE - 5 - end - 2)
                                    .last(part(page, PAGE - 5, 5))
                                    .bytes();
            SCOPED_TRACE(::testing::Message() << "length " << length << " from " << start);
            expect_verdict(block, page, true);
            for (const std::uint32_t at : {start + 1, start + 3 + length / 2, end - 1}) {
                Bytes other = page;
                other[at] ^= 0x5a;
                SCOPED_TRACE(at);
                expect_verdict(block, other, false);
            }
        }
    }
}

TEST(Lz4Verify, ALengthByteWithTooLittleOfTheBlockLeft) {
    // 14 literals and a long match whose one length byte is followed by 0
    // to 4 bytes of the block: the decoder wants 5 after it, so both
    // refuse, though the sequence starts far from both ends.  With 5 or
    // more, a valid end of the block follows and both accept.
    const Bytes page = repeated_hundred();
    const std::uint32_t start = 200;
    const std::uint8_t token = 0xef;  // 14 literals, a match length byte
    const std::uint8_t offset[] = {100, 0};
    const std::uint8_t length_byte = 10;
    // Everything up to and including the length byte.
    const auto up_to_the_length_byte = [&] {
        BlockWriter writer;
        writer.sequence(part(page, 0, 100), 100, start - 100)
            .raw(std::span(&token, 1))
            .raw(part(page, start, 14))
            .raw(offset)
            .raw(std::span(&length_byte, 1));
        return writer;
    };
    for (std::uint32_t after = 0; after <= 4; ++after) {
        BlockWriter writer = up_to_the_length_byte();
        writer.raw(std::vector<std::uint8_t>(after, 0));
        SCOPED_TRACE(after);
        expect_verdict(writer.bytes(), page, false);
    }
    const std::uint32_t end = start + 14 + 15 + 4 + length_byte;
    BlockWriter whole = up_to_the_length_byte();
    whole.sequence({}, 100, PAGE - 5 - end).last(part(page, PAGE - 5, 5));
    expect_verdict(whole.bytes(), page, true);
}

TEST(Lz4Verify, LengthsThatRunPastTheBlockOrThePage) {
    const Bytes page = iota_page();
    // A literal length of 255s up to the end of the block.
    Bytes runs(600, 255);
    runs[0] = 0xf0;
    expect_verdict(runs, page, false);
    // A match length of 255s up to the end of the block.
    Bytes match_runs(600, 255);
    const std::uint8_t first_sequence[] = {0x1f, page[0], 1, 0};
    std::copy(std::begin(first_sequence), std::end(first_sequence), match_runs.begin());
    expect_verdict(match_runs, page, false);
    // A match length whose bytes add up past any page, then a valid end.
    Bytes overflow = BlockWriter().raw(first_sequence).bytes();
    overflow.resize(overflow.size() + 70000, 255);
    const Bytes end =
        BlockWriter().raw(std::vector<std::uint8_t>{0}).last(part(page, PAGE - 5, 5)).bytes();
    overflow.insert(overflow.end(), end.begin(), end.end());
    expect_verdict(overflow, page, false);
    // A literal length one past the page.
    const Bytes past = BlockWriter().last(iota_page(PAGE + 1)).bytes();
    expect_verdict(past, page, false);
}

TEST(Lz4Verify, EveryCutOfABlockIsRefused) {
    std::mt19937_64 rng(3);
    const Bytes page = make_page(PageKind::Records, rng);
    const Bytes block = lz4_compress(page);
    for (std::size_t n = 0; n < block.size(); ++n) {
        const Bytes cut(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(n));
        ASSERT_FALSE(module_accepts(cut, page)) << n;
        for (const Decoder& decoder : reference_decoders()) {
            ASSERT_FALSE(decoder_gives(decoder, cut, page)) << decoder.name << ", " << n;
        }
    }
}

// The kernel's decoders stand beside liblz4's in every verdict above; a
// build without them says so here rather than passing in silence.
TEST(Lz4Verify, TheKernelsOwnDecodersAreReferences) {
    if (kernel_decoders().empty()) {
        GTEST_SKIP() << "no Linux source tree was found at build time: the verdicts are held "
                        "against liblz4's decoder alone";
    }
    std::mt19937_64 rng(5);
    const Bytes page = make_page(PageKind::Text, rng);
    const Bytes block = lz4_compress(page);
    for (const Decoder& decoder : kernel_decoders()) {
        EXPECT_EQ(decoder_decode(decoder, block, PAGE), page) << decoder.name;
    }
}

TEST(Lz4Verify, SmallOutputs) {
    // Pages of 1 to 64 bytes: the decoder's end tests all fall near the
    // start of the output.
    std::mt19937_64 rng(4);
    for (std::size_t size = 1; size <= 64; ++size) {
        const Bytes page = make_page(PageKind::Periodic, rng, size);
        SCOPED_TRACE(size);
        expect_verdict(BlockWriter().last(page).bytes(), page, true);
        expect_verdict(lz4_compress(page), page, true);
    }
}

}  // namespace
}  // namespace ozram::testing
