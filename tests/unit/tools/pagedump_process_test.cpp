// Dumps a child process whose memory the test wrote itself.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "process_dumper.hpp"

namespace ozram::pagedump {
namespace {

constexpr std::size_t PATTERN_PAGES = 64;
constexpr std::size_t ZERO_PAGES = 16;
constexpr const char* CHILD_NAME = "dump\x1b]0;x\x07\x7f";

// Page i of what the child writes: an index and a byte pattern, so that every
// page differs from every other and from anything else in the process.
std::vector<std::uint8_t> pattern_page(std::size_t i) {
    std::vector<std::uint8_t> page(PAGE_SIZE);
    for (std::size_t j = 0; j < page.size(); ++j) {
        page[j] = static_cast<std::uint8_t>((i * 131 + j * 7 + (j >> 8)) ^ 0x5A);
    }
    std::memcpy(page.data(), "OZRAM-DUMP-TEST", 15);
    std::memcpy(page.data() + 16, &i, sizeof(i));
    return page;
}

// A child holding PATTERN_PAGES pattern pages and ZERO_PAGES touched zero
// pages in an anonymous mapping; it waits until the test closes its pipe.
class ChildProcess {
  public:
    ChildProcess() {
        int ready[2];
        int release[2];
        if (pipe(ready) != 0 || pipe(release) != 0) {
            throw std::system_error(errno, std::generic_category(), "pipe");
        }
        pid_ = fork();
        if (pid_ == 0) {
            close(ready[0]);
            close(release[1]);
            run_child(ready[1], release[0]);
        }
        close(ready[1]);
        close(release[0]);
        release_fd_ = release[1];
        char byte = 0;
        if (read(ready[0], &byte, 1) != 1) {
            throw std::runtime_error("the child did not start");
        }
        close(ready[0]);
    }
    ~ChildProcess() {
        close(release_fd_);
        waitpid(pid_, nullptr, 0);
    }
    [[nodiscard]] pid_t pid() const { return pid_; }

  private:
    [[noreturn]] static void run_child(int ready_fd, int release_fd) {
        // A name a hostile process could choose: a terminal's escape.
        prctl(PR_SET_NAME, CHILD_NAME);
        const auto bytes = (PATTERN_PAGES + ZERO_PAGES) * PAGE_SIZE;
        auto* memory = static_cast<std::uint8_t*>(
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (memory == MAP_FAILED) {
            _exit(1);
        }
        for (std::size_t i = 0; i < PATTERN_PAGES; ++i) {
            const auto page = pattern_page(i);
            std::memcpy(memory + i * PAGE_SIZE, page.data(), page.size());
        }
        // Written, then zeroed: present in RAM and all zero.
        auto* zeros = memory + PATTERN_PAGES * PAGE_SIZE;
        std::memset(zeros, 1, ZERO_PAGES * PAGE_SIZE);
        std::memset(zeros, 0, ZERO_PAGES * PAGE_SIZE);
        const char byte = 1;
        if (write(ready_fd, &byte, 1) != 1) {
            _exit(1);
        }
        char ignored;
        while (read(release_fd, &ignored, 1) > 0) {
        }
        _exit(0);
    }

    pid_t pid_ = -1;
    int release_fd_ = -1;
};

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool contains_page(const std::vector<std::uint8_t>& file, const std::vector<std::uint8_t>& page) {
    for (std::size_t offset = 0; offset + PAGE_SIZE <= file.size(); offset += PAGE_SIZE) {
        if (std::memcmp(file.data() + offset, page.data(), PAGE_SIZE) == 0) {
            return true;
        }
    }
    return false;
}

std::size_t count_zero_pages(const std::vector<std::uint8_t>& file) {
    std::size_t zero = 0;
    for (std::size_t offset = 0; offset < file.size(); offset += PAGE_SIZE) {
        const auto* page = file.data() + offset;
        zero += std::all_of(page, page + PAGE_SIZE, [](std::uint8_t b) { return b == 0; });
    }
    return zero;
}

class PagedumpProcess : public ::testing::Test {
  protected:
    // ctest runs each test in its own process, several at once: one file per
    // test and process, or they overwrite each other's corpus.
    const std::string path_ = ::testing::TempDir() + "ozram-pagedump-" +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                              "-" + std::to_string(getpid()) + ".bin";
    void TearDown() override { std::remove(path_.c_str()); }

    ProcessDump dump(pid_t pid, const DumpLimits& limits) {
        PageWriter writer(path_);
        auto result = dump_process(pid, limits, writer);
        writer.close();
        EXPECT_EQ(writer.pages_written(), result.pages_written());
        return result;
    }
};

TEST_F(PagedumpProcess, EveryPageTheChildWroteIsInTheCorpus) {
    const ChildProcess child;
    const auto result = dump(child.pid(), {});
    const auto file = read_file(path_);

    EXPECT_EQ(file.size() % PAGE_SIZE, 0U);
    EXPECT_EQ(file.size() / PAGE_SIZE, result.pages_written());
    EXPECT_EQ(result.pid, child.pid());
    EXPECT_FALSE(result.truncated);
    EXPECT_GE(result.pages_by_kind[static_cast<std::size_t>(RegionKind::Anonymous)], PATTERN_PAGES);
    for (std::size_t i = 0; i < PATTERN_PAGES; ++i) {
        EXPECT_TRUE(contains_page(file, pattern_page(i))) << "pattern page " << i;
    }
    EXPECT_EQ(count_zero_pages(file), 0U);
    EXPECT_GE(result.zero_pages_left_out, ZERO_PAGES);
}

// The name goes to a terminal: none of the child's control bytes do.
TEST_F(PagedumpProcess, TheCommandIsPrintable) {
    const ChildProcess child;
    EXPECT_EQ(dump(child.pid(), {}).command, "dump?]0;x??");
}

TEST_F(PagedumpProcess, ZeroPagesOnlyWhenAsked) {
    const ChildProcess child;
    const auto result = dump(child.pid(), DumpLimits{.include_zero = true});
    EXPECT_EQ(result.zero_pages_left_out, 0U);
    EXPECT_GE(count_zero_pages(read_file(path_)), ZERO_PAGES);
}

TEST_F(PagedumpProcess, StopsAtMaxPages) {
    const ChildProcess child;
    const auto result = dump(child.pid(), DumpLimits{.max_pages = 5});
    EXPECT_TRUE(result.truncated);
    EXPECT_EQ(result.pages_written(), 5U);
    EXPECT_EQ(read_file(path_).size(), 5 * PAGE_SIZE);
}

TEST_F(PagedumpProcess, AProcessThatIsGoneIsNoSuchProcess) {
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(0);
    }
    ASSERT_GT(pid, 0);
    waitpid(pid, nullptr, 0);
    PageWriter writer(path_);
    try {
        (void)dump_process(pid, {}, writer);
        FAIL() << "dumping a reaped process succeeded";
    } catch (const DumpError& e) {
        EXPECT_EQ(e.failure(), DumpFailure::NoSuchProcess);
        EXPECT_EQ(e.code().value(), ESRCH);
    }
}

TEST_F(PagedumpProcess, AnInvalidPidIsNoSuchProcess) {
    PageWriter writer(path_);
    EXPECT_THROW((void)dump_process(0, {}, writer), DumpError);
    EXPECT_THROW((void)dump_process(-1, {}, writer), DumpError);
}

TEST_F(PagedumpProcess, TheCorpusIsReadableByItsOwnerOnly) {
    const ChildProcess child;
    (void)dump(child.pid(), DumpLimits{.max_pages = 5});
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << "another process's memory";
}

// A dump that fails before close() leaves the file that was there as it was,
// and nothing of its own.
TEST_F(PagedumpProcess, AnUnfinishedDumpLeavesNothingAndTheOldFileAsItWas) {
    { std::ofstream(path_) << "an earlier corpus"; }
    const auto name = std::filesystem::path(path_).filename().string();
    const auto directory = std::filesystem::path(path_).parent_path();
    const auto others = [&] {
        return std::ranges::count_if(
            std::filesystem::directory_iterator(directory), [&](const auto& entry) {
                return entry.path().filename().string().starts_with("." + name + ".");
            });
    };
    {
        PageWriter writer(path_);
        const std::vector<std::uint8_t> page = pattern_page(0);
        writer.write_page(std::span<const std::uint8_t, PAGE_SIZE>(page.data(), PAGE_SIZE));
        EXPECT_EQ(others(), 1) << "the pages go to a file of their own";
    }
    const auto old = read_file(path_);
    EXPECT_EQ(std::string(old.begin(), old.end()), "an earlier corpus");
    EXPECT_EQ(others(), 0);
}

TEST_F(PagedumpProcess, AnOutputThatIsNoRegularFileIsRefused) {
    try {
        PageWriter writer("/dev/null");
        FAIL() << "a writer over /dev/null";
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EEXIST);
    }
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

}  // namespace
}  // namespace ozram::pagedump
