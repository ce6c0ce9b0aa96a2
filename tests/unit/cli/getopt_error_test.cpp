// getopt_long()'s refusals named by the option the user typed, also a
// short one in the middle of a cluster.
#include "cli/getopt_error.hpp"

#include <getopt.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

// The message for the first refusal of `words` (after the program name).
std::string refusal(std::vector<std::string> words) {
    static const option LONG_OPTIONS[] = {{"json", no_argument, nullptr, 256},
                                          {"shm", required_argument, nullptr, 257},
                                          {nullptr, 0, nullptr, 0}};
    words.insert(words.begin(), "/usr/bin/program");
    std::vector<char*> argv;
    for (std::string& word : words) {
        argv.push_back(word.data());
    }
    argv.push_back(nullptr);
    optind = 0;
    opterr = 0;
    int choice = 0;
    for (int word = optind; (choice = getopt_long(static_cast<int>(words.size()), argv.data(),
                                                  ":hb:", LONG_OPTIONS, nullptr)) != -1;
         word = optind) {
        if (choice == ':' || choice == '?') {
            return ozram::cli::getopt_error(argv.data(), word, choice).what();
        }
    }
    return "accepted";
}

TEST(GetoptError, NamesAShortOptionInACluster) {
    EXPECT_EQ(refusal({"-xy"}), "unknown option '-x'");
    EXPECT_EQ(refusal({"--shm", "a", "-hx"}), "unknown option '-x'");
    EXPECT_EQ(refusal({"--json", "-hx"}), "unknown option '-x'");
    EXPECT_EQ(refusal({"-x"}), "unknown option '-x'");
}

TEST(GetoptError, NamesALongOptionWithoutItsValue) {
    EXPECT_EQ(refusal({"--bogus"}), "unknown option '--bogus'");
    EXPECT_EQ(refusal({"operand", "--bogus=1"}), "unknown option '--bogus'");
    EXPECT_EQ(refusal({"--json=1"}), "option '--json' takes no argument");
}

TEST(GetoptError, NamesTheOptionThatNeedsAValue) {
    EXPECT_EQ(refusal({"--shm"}), "option '--shm' needs an argument");
    EXPECT_EQ(refusal({"-h", "-b"}), "option '-b' needs an argument");
}

}  // namespace
