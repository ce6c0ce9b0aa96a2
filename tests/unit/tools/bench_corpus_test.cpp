#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "corpus.hpp"
#include "ozram/error.hpp"
#include "ozram/page.hpp"

namespace ozram::bench {
namespace {

class BenchCorpus : public ::testing::Test {
  protected:
    // One file per test and process: ctest runs several test processes at once.
    const std::string path_ = ::testing::TempDir() + "ozram-bench-corpus-" +
                              ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                              "-" + std::to_string(getpid()) + ".bin";
    void TearDown() override { std::remove(path_.c_str()); }

    void write(std::size_t bytes) {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        for (std::size_t i = 0; i < bytes; ++i) {
            out.put(static_cast<char>(i / PAGE_SIZE));
        }
    }

    static int error_of(const std::string& path, std::size_t max_pages = 0) {
        try {
            const Corpus corpus(path, max_pages);
        } catch (const Error& e) {
            return e.code().value();
        }
        return 0;
    }
};

TEST_F(BenchCorpus, PagesAreTheFileInOrder) {
    write(3 * PAGE_SIZE);
    const Corpus corpus(path_);
    ASSERT_EQ(corpus.page_count(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(corpus.pages()[i][0], i);
        EXPECT_EQ(corpus.pages()[i][PAGE_SIZE - 1], i);
    }
}

TEST_F(BenchCorpus, MaxPagesTakesTheFirstPages) {
    write(5 * PAGE_SIZE);
    const Corpus corpus(path_, 2);
    ASSERT_EQ(corpus.page_count(), 2U);
    EXPECT_EQ(corpus.pages()[1][0], 1);
    EXPECT_EQ(Corpus(path_, 50).page_count(), 5U);
}

TEST_F(BenchCorpus, BadFilesAreErrors) {
    EXPECT_EQ(error_of(path_ + ".missing"), ENOENT);
    write(0);
    EXPECT_EQ(error_of(path_), EINVAL);
    write(PAGE_SIZE + 1);
    EXPECT_EQ(error_of(path_), EINVAL);
    EXPECT_EQ(error_of("/"), EINVAL);  // not a regular file
}

}  // namespace
}  // namespace ozram::bench
