// Real pages: the anonymous memory of this test process, read through
// /proc/self/mem after filling some ordinary data structures.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
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

// Copies up to `limit` pages of this process's private writable anonymous
// mappings (heap, stack and unnamed mappings).
std::vector<Page> read_own_anonymous_pages(std::size_t limit) {
    std::vector<Page> pages;
    std::ifstream maps("/proc/self/maps");
    const int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        return pages;
    }
    std::string line;
    while (pages.size() < limit && std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, perms, offset, device, inode, path;
        fields >> range >> perms >> offset >> device >> inode;
        std::getline(fields >> std::ws, path);
        const bool anonymous = path.empty() || path == "[heap]" || path == "[stack]";
        if (!anonymous || perms.rfind("rw-p", 0) != 0) {
            continue;
        }
        const std::size_t dash = range.find('-');
        const std::uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
        const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
        for (std::uintptr_t at = begin; at < end && pages.size() < limit; at += PAGE_SIZE) {
            Page page;
            if (pread(mem, page.data(), PAGE_SIZE, static_cast<off_t>(at)) ==
                static_cast<ssize_t>(PAGE_SIZE)) {
                pages.push_back(page);
            }
        }
    }
    close(mem);
    return pages;
}

TEST(RealPages, OwnAnonymousMemoryRoundTrips) {
    const auto live = std::make_unique<LiveData>();
    const std::vector<Page> pages = read_own_anonymous_pages(WANTED_PAGES);
    ASSERT_GE(pages.size(), REQUIRED_PAGES) << "could not read enough of /proc/self/mem";
    for (const Backend backend : {Backend::Scalar, Backend::Simd}) {
        SCOPED_TRACE(std::string(to_string(backend)));
        const auto counts = test::expect_round_trip(*make_cpu_compressor(backend), pages);
        EXPECT_EQ(counts.lz4 + counts.raw + counts.same_filled, pages.size());
        // Heap pages full of strings and records compress.
        EXPECT_GT(counts.lz4, 0u);
    }
    EXPECT_FALSE(live->names.empty());
}

}  // namespace
}  // namespace ozram
