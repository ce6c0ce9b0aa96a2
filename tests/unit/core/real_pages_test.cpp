// Real pages: the anonymous memory of this test process, read through
// /proc/self/mem after filling some ordinary data structures.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ozram/backend.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

constexpr std::size_t WANTED_PAGES = 2000;
constexpr std::size_t REQUIRED_PAGES = 300;
constexpr std::size_t PAGES_PER_REGION = 400;

// Heap data of the kinds a real program keeps: a tree of strings, linked
// lists of small records, vectors of doubles.
struct LiveData {
    std::map<int, std::string> names;
    std::list<std::pair<long, const void*>> records;
    std::vector<std::vector<double>> series;

    LiveData() {
        for (int i = 0; i < 5000; ++i) {
            names[i * 7] = "entry-" + std::to_string(i) + "-" + std::string(i % 40, 'a' + i % 26);
            records.emplace_back(i * 31L, &names[i * 7]);
        }
        for (int s = 0; s < 64; ++s) {
            series.emplace_back();
            for (int i = 0; i < 1024; ++i) {
                series.back().push_back(s * 0.5 + i * 0.001);
            }
        }
    }
};

struct Region {
    std::uintptr_t begin;
    std::uintptr_t end;
};

// This process's private writable anonymous mappings (heap, stack and unnamed
// mappings), the heap first.
std::vector<Region> anonymous_regions() {
    std::vector<Region> heap;
    std::vector<Region> others;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, perms, offset, device, inode, path;
        fields >> range >> perms >> offset >> device >> inode;
        std::getline(fields >> std::ws, path);
        const bool anonymous = path.empty() || path == "[heap]" || path == "[stack]";
        if (!anonymous || perms.rfind("rw-p", 0) != 0) {
            continue;
        }
        const std::size_t dash = range.find('-');
        const Region region{std::stoull(range.substr(0, dash), nullptr, 16),
                            std::stoull(range.substr(dash + 1), nullptr, 16)};
        (path == "[heap]" ? heap : others).push_back(region);
    }
    heap.insert(heap.end(), others.begin(), others.end());
    return heap;
}

// Copies up to `limit` pages of those mappings, at most `per_region` from
// each, so that one large empty mapping cannot make up the whole sample.
std::vector<Page> read_own_anonymous_pages(std::size_t limit, std::size_t per_region) {
    std::vector<Page> pages;
    const int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        return pages;
    }
    for (const Region& region : anonymous_regions()) {
        std::size_t taken = 0;
        for (std::uintptr_t at = region.begin;
             at < region.end && taken < per_region && pages.size() < limit; at += PAGE_SIZE) {
            Page page;
            if (pread(mem, page.data(), PAGE_SIZE, static_cast<off_t>(at)) ==
                static_cast<ssize_t>(PAGE_SIZE)) {
                pages.push_back(page);
                ++taken;
            }
        }
    }
    close(mem);
    return pages;
}

TEST(RealPages, OwnAnonymousMemoryRoundTrips) {
    const auto live = std::make_unique<LiveData>();
    const std::vector<Page> pages = read_own_anonymous_pages(WANTED_PAGES, PAGES_PER_REGION);
    ASSERT_GE(pages.size(), REQUIRED_PAGES) << "could not read enough of /proc/self/mem";
    for (const Backend backend : {Backend::Scalar, Backend::Cpu}) {
        SCOPED_TRACE(std::string(to_string(backend)));
        const auto counts = test::expect_round_trip(*make_cpu_compressor(backend), pages);
        EXPECT_EQ(counts.lz4 + counts.raw + counts.same_filled, pages.size());
        // Heap pages full of strings and records compress.
        EXPECT_GT(counts.lz4, 0u);
        std::cout << to_string(backend) << ": " << pages.size() << " real pages: " << counts.lz4
                  << " LZ4, " << counts.raw << " raw, " << counts.same_filled << " same-filled\n";
    }
    EXPECT_FALSE(live->names.empty());
}

}  // namespace
}  // namespace ozram
