#include "ozram/sized_thread.hpp"

#include <string>

#include "ozram/error.hpp"

namespace ozram {

pthread_t start_sized_thread(std::size_t stack_size, void* (*start)(void*), void* argument,
                             const char* what) {
    pthread_t thread{};
    pthread_attr_t attributes;
    int error = ::pthread_attr_init(&attributes);
    if (error == 0) {
        error = ::pthread_attr_setstacksize(&attributes, stack_size);
        if (error == 0) {
            error = ::pthread_create(&thread, &attributes, start, argument);
        }
        ::pthread_attr_destroy(&attributes);
    }
    if (error != 0) {
        throw Error(error, std::string("cannot start ") + what);
    }
    return thread;
}

}  // namespace ozram
