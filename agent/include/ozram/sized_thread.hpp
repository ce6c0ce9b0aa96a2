// Threads started with a stack of a chosen size.  ozramd locks all its
// memory (mlockall), and a locked thread's whole stack is faulted in when
// the thread starts: a default stack (RLIMIT_STACK, 8 MiB as a rule) would
// cost that much memory per thread for good.
#pragma once

#include <pthread.h>

#include <cstddef>

namespace ozram {

// The stack of a thread that runs the codecs: liblz4 keeps its 16 KiB
// state there; the other codecs keep theirs on the heap.
inline constexpr std::size_t CODEC_THREAD_STACK_SIZE = 1024 * 1024;

// Starts `start(argument)` on a thread with a stack of `stack_size` bytes
// and returns it, to be joined with pthread_join().  Throws ozram::Error,
// naming `what`, when the thread cannot start.
pthread_t start_sized_thread(std::size_t stack_size, void* (*start)(void*), void* argument,
                             const char* what);

// start_sized_thread() of `object->Method()`.
template <auto Method, class T>
pthread_t start_sized_thread(std::size_t stack_size, T* object, const char* what) {
    return start_sized_thread(
        stack_size,
        [](void* owner) -> void* {
            (static_cast<T*>(owner)->*Method)();
            return nullptr;
        },
        object, what);
}

}  // namespace ozram
