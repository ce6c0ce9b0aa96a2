// Owners of CUDA resources: device and host buffers, streams and events.
// Destructors release quietly (after a sticky error the calls fail, and there
// is nothing better to do than to let go of the handles).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "gpu/cuda_call.hpp"

namespace ozram::gpu {

template <class T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        void* p = nullptr;
        cuda_check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
        data_.reset(static_cast<T*>(p));
    }
    [[nodiscard]] T* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return count_; }

  private:
    struct Free {
        void operator()(T* p) const { cudaFree(p); }
    };
    std::unique_ptr<T, Free> data_;
    std::size_t count_ = 0;
};

// Host memory for transfers: page-locked (so copies are true DMA and run
// asynchronously) or ordinary heap memory (synchronous copies).
template <class T>
class HostBuffer {
  public:
    HostBuffer() = default;
    HostBuffer(std::size_t count, bool pinned) : count_(count) {
        void* p = nullptr;
        if (pinned) {
            cuda_check(cudaMallocHost(&p, count * sizeof(T)), "cudaMallocHost");
        } else {
            p = ::operator new[](count * sizeof(T), std::align_val_t{64});
        }
        data_ = std::unique_ptr<T, Free>(static_cast<T*>(p), Free{pinned});
    }
    [[nodiscard]] T* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return count_; }

  private:
    struct Free {
        bool pinned = false;
        void operator()(T* p) const {
            if (pinned) {
                cudaFreeHost(p);
            } else {
                ::operator delete[](p, std::align_val_t{64});
            }
        }
    };
    std::unique_ptr<T, Free> data_;
    std::size_t count_ = 0;
};

class Stream {
  public:
    Stream() {
        cudaStream_t s = nullptr;
        cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
        stream_.reset(s);
    }
    [[nodiscard]] cudaStream_t get() const { return stream_.get(); }

  private:
    struct Destroy {
        void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
    };
    std::unique_ptr<CUstream_st, Destroy> stream_;
};

// A timing event: recorded on a stream, then waited on or measured.
class Event {
  public:
    Event() {
        cudaEvent_t e = nullptr;
        cuda_check(cudaEventCreate(&e), "cudaEventCreate");
        event_.reset(e);
    }
    [[nodiscard]] cudaEvent_t get() const { return event_.get(); }

  private:
    struct Destroy {
        void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
    };
    std::unique_ptr<CUevent_st, Destroy> event_;
};

}  // namespace ozram::gpu
