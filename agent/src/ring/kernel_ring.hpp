// The kernel's ring: /dev/ozram-ring, mapped as the ABI describes, poll() to
// wait for work and ioctl(OZRAM_RING_IOC_COMPLETE) to post completions.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ring_transport.hpp"
#include "ring_view.hpp"

namespace ozram::ring {

// The path opens, but what it names is no ring: a device that cannot be
// mapped, or a file shorter than a ring.  Waiting does not make it one.
class NotARingError : public Error {
  public:
    NotARingError(int errno_value, const std::string& message) : Error(errno_value, message) {}
};

class KernelRing final : public RingTransport {
  public:
    // Throws Error(errno) when the device cannot be opened or mapped,
    // NotARingError when the path names something else, AbiVersionError or
    // Error(EBADMSG) when its header is unusable.
    [[nodiscard]] static std::unique_ptr<KernelRing> attach(
        const std::string& path = OZRAM_RING_DEV_PATH);
    ~KernelRing() override;

    [[nodiscard]] const RingView& view() const override { return view_; }
    Wake wait_for_work(std::chrono::microseconds timeout) override;
    void notify_completions() override;
    void declare_algorithms(std::uint32_t mask) override;
    void detach() override;
    [[nodiscard]] std::string describe() const override { return path_; }

  private:
    KernelRing() = default;

    std::string path_;
    int fd_ = -1;
    void* writable_ = nullptr;
    std::size_t writable_size_ = 0;
    void* staging_ = nullptr;
    std::size_t staging_size_ = 0;
    RingView view_;
};

}  // namespace ozram::ring
