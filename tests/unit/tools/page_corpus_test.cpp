#include "page_corpus.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "ozram/error.hpp"
#include "ozram/page.hpp"

namespace ozram {
namespace {

class PageCorpusFile : public ::testing::Test {
  protected:
    // One file per test and process: ctest runs several test processes at once.
    const std::string path_ = ::testing::TempDir() + "ozram-page-corpus-" +
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
            const PageCorpus corpus(path, max_pages);
        } catch (const Error& e) {
            return e.code().value();
        }
        return 0;
    }
};

TEST_F(PageCorpusFile, PagesAreTheFileInOrder) {
    write(3 * PAGE_SIZE);
    const PageCorpus corpus(path_);
    ASSERT_EQ(corpus.page_count(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(corpus.pages()[i][0], i);
        EXPECT_EQ(corpus.pages()[i][PAGE_SIZE - 1], i);
    }
}

TEST_F(PageCorpusFile, MaxPagesTakesTheFirstPages) {
    write(5 * PAGE_SIZE);
    const PageCorpus corpus(path_, 2);
    ASSERT_EQ(corpus.page_count(), 2U);
    EXPECT_EQ(corpus.pages()[1][0], 1);
    EXPECT_EQ(PageCorpus(path_, 50).page_count(), 5U);
}

TEST_F(PageCorpusFile, BadFilesAreErrors) {
    EXPECT_EQ(error_of(path_ + ".missing"), ENOENT);
    write(0);
    EXPECT_EQ(error_of(path_), EINVAL);
    write(PAGE_SIZE + 1);
    EXPECT_EQ(error_of(path_), EINVAL);
    EXPECT_EQ(error_of("/"), EINVAL);  // not a regular file
}

}  // namespace
}  // namespace ozram
