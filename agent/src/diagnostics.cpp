// The warning sink: stderr until someone installs another.
#include "ozram/diagnostics.hpp"

#include <atomic>
#include <cstdio>

namespace ozram {
namespace {

void print_to_stderr(std::string_view message) {
    std::fprintf(stderr, "ozram: %.*s\n", static_cast<int>(message.size()), message.data());
}

std::atomic<WarningSink> installed_sink{&print_to_stderr};

}  // namespace

void set_warning_sink(WarningSink sink) {
    installed_sink.store(sink != nullptr ? sink : &print_to_stderr, std::memory_order_release);
}

void warn(std::string_view message) {
    installed_sink.load(std::memory_order_acquire)(message);
}

}  // namespace ozram
