#include "proc_maps.hpp"

#include <gtest/gtest.h>

namespace ozram::pagedump {
namespace {

TEST(ProcMaps, HeapStackAndAnonymousAreTaken) {
    const auto heap =
        parse_anonymous_region("5581e5a5c000-5581e5a7d000 rw-p 00000000 00:00 0          [heap]");
    ASSERT_TRUE(heap);
    EXPECT_EQ(heap->start, 0x5581e5a5c000U);
    EXPECT_EQ(heap->end, 0x5581e5a7d000U);
    EXPECT_EQ(heap->kind, RegionKind::Heap);

    const auto stack =
        parse_anonymous_region("7ffd1c3e2000-7ffd1c403000 rw-p 00000000 00:00 0     [stack]");
    ASSERT_TRUE(stack);
    EXPECT_EQ(stack->kind, RegionKind::Stack);

    const auto anon = parse_anonymous_region("7f2d6c000000-7f2d6c021000 rw-p 00000000 00:00 0 ");
    ASSERT_TRUE(anon);
    EXPECT_EQ(anon->kind, RegionKind::Anonymous);

    const auto named = parse_anonymous_region("7f00-8f00 rw-p 00000000 00:00 0   [anon:arena]");
    ASSERT_TRUE(named);
    EXPECT_EQ(named->kind, RegionKind::Anonymous);
}

TEST(ProcMaps, FilesSharedMemoryAndSpecialAreasAreLeftOut) {
    EXPECT_FALSE(parse_anonymous_region(
        "7f2d70000000-7f2d70022000 r--p 00000000 fe:00 1316        /usr/lib/libc.so.6"));
    EXPECT_FALSE(
        parse_anonymous_region("7f2d70000000-7f2d70022000 rw-p 00001000 fe:00 1316 "
                               "  /usr/lib/x86_64-linux-gnu/my lib.so"));
    EXPECT_FALSE(
        parse_anonymous_region("7f00-8f00 rw-s 00000000 00:01 2048   /dev/zero (deleted)"));
    EXPECT_FALSE(parse_anonymous_region("7f00-8f00 rw-s 00000000 00:00 0 "));
    EXPECT_FALSE(parse_anonymous_region("7fff5000-7fff7000 r-xp 00000000 00:00 0   [vdso]"));
    EXPECT_FALSE(parse_anonymous_region("7fff3000-7fff5000 r--p 00000000 00:00 0   [vvar]"));
    // Guard pages: private anonymous but unreadable.
    EXPECT_FALSE(parse_anonymous_region("7f00-8f00 ---p 00000000 00:00 0 "));
}

TEST(ProcMaps, MalformedLinesAreRejected) {
    EXPECT_FALSE(parse_anonymous_region(""));
    EXPECT_FALSE(parse_anonymous_region("not a maps line"));
    EXPECT_FALSE(parse_anonymous_region("zz00-8f00 rw-p 00000000 00:00 0 "));
    EXPECT_FALSE(parse_anonymous_region("8f00-7f00 rw-p 00000000 00:00 0 "));
    EXPECT_FALSE(parse_anonymous_region("7f00-8f00 rw-p 00000000 00:00"));
}

TEST(ProcMaps, OwnProcessHasAHeapOrAnonymousMemory) {
    const auto regions = read_anonymous_regions(getpid());
    EXPECT_FALSE(regions.empty());
    for (const auto& region : regions) {
        EXPECT_LT(region.start, region.end);
    }
}

TEST(ProcMaps, MissingProcessThrows) {
    EXPECT_THROW((void)read_anonymous_regions(0x3fffffff), std::system_error);
}

}  // namespace
}  // namespace ozram::pagedump
