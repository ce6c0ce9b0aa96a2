// Runs a text through Prometheus's own parser and linter: "promtool check
// metrics" (Debian's prometheus package), whose path CMake found.  The tests
// of every Prometheus output use it, so that the format is judged by the
// program that scrapes it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#ifndef OZRAM_PROMTOOL
#error "OZRAM_PROMTOOL: the path of promtool (CMake's find_program)"
#endif

namespace ozram::testing {

struct PromtoolResult {
    int status = -1;     // the exit status, -1 if it did not run
    std::string output;  // what it printed: empty when it found nothing wrong
};

inline PromtoolResult promtool_check(const std::string& text) {
    char dir_template[] = "/tmp/ozram-promtool.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (dir == nullptr) {
        return {};
    }
    const std::string input = std::string(dir) + "/metrics.prom";
    const std::string output = std::string(dir) + "/promtool.out";
    std::ofstream(input) << text;
    const std::string command =
        std::string(OZRAM_PROMTOOL) + " check metrics <" + input + " >" + output + " 2>&1";
    const int raw = std::system(command.c_str());
    PromtoolResult result;
    result.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream in(output);
    result.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::remove(input.c_str());
    std::remove(output.c_str());
    rmdir(dir);
    return result;
}

}  // namespace ozram::testing
