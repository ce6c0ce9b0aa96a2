// KernelRing against a regular file laid out like /dev/ozram-ring: the
// mapping, the read-only staging area and the doorbell calls are those the
// device will see (poll() on a file is always ready and ioctl() fails with
// ENOTTY, which the tests use to see that the doorbell is rung).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "completion_check.hpp"
#include "drain_loop.hpp"
#include "heap_ring.hpp"
#include "kernel_ring.hpp"
#include "ring_producer.hpp"

namespace {

using namespace std::chrono_literals;

class RingFile {
  public:
    explicit RingFile(std::uint32_t slots, std::uint16_t abi_major = OZRAM_RING_ABI_MAJOR) {
        char pattern[] = "/tmp/ozram-ring-file.XXXXXX";
        fd_ = ::mkstemp(pattern);
        path_ = pattern;
        ozram_ring_header header;
        ozram_ring_init_header(&header, slots, slots, 3072);
        header.abi_major = abi_major;
        size_ = header.mapping_size;
        EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(size_)), 0);
        base_ = static_cast<std::uint8_t*>(
            ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0));
        std::memcpy(base_, &header, sizeof(header));
        view_ = ozram::ring::RingView::locate(header, base_, base_ + header.staging.offset);
    }
    ~RingFile() {
        ::munmap(base_, size_);
        ::close(fd_);
        ::unlink(path_.c_str());
    }
    [[nodiscard]] const std::string& path() const { return path_; }
    [[nodiscard]] const ozram::ring::RingView& view() const { return view_; }
    void cut_to(std::size_t bytes) const {
        EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(bytes)), 0);
    }

  private:
    std::string path_;
    int fd_ = -1;
    std::size_t size_ = 0;
    std::uint8_t* base_ = nullptr;
    ozram::ring::RingView view_;
};

class ScalarPicker final : public ozram::daemon::CompressorPicker {
  public:
    ozram::PageCompressor& pick(std::size_t) override { return *compressor_; }

  private:
    std::unique_ptr<ozram::PageCompressor> compressor_ =
        ozram::make_cpu_compressor(ozram::Backend::Scalar);
};

TEST(KernelRing, AttachesToTheDeviceLayoutAndServesIt) {
    RingFile file(32);
    auto ring = ozram::ring::KernelRing::attach(file.path());
    EXPECT_EQ(ring->view().header.slots, 32u);
    EXPECT_EQ(ring->wait_for_work(1ms), ozram::ring::Wake::Ready);

    ScalarPicker picker;
    ozram::daemon::DrainLoop loop(*ring, picker);
    loop.set_batching(32, 0us);
    ozram::ring::RingProducer producer(file.view());
    ozram::ringload::CompletionCheck check;
    const auto pages = ozram::ring::test::mixed_pages(32);
    for (const auto& page : pages) {
        producer.stage(page.data(), 0, &page - pages.data());
    }
    producer.publish();
    // The completions are published before the doorbell, which a file
    // refuses: the ioctl was issued.
    try {
        (void)loop.step(0us);
        FAIL() << "the COMPLETE ioctl was not issued after the batch";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), ENOTTY);
    }
    int verified = 0;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
        verified += verdict == OZRAM_RING_OK && cqe.status == 0 &&
                    check.restores(cqe, file.view().output_slot(cqe.slot), pages[cookie].data());
    });
    EXPECT_EQ(verified, 32);
}

// The kernel reaps only when the doorbell rings, whatever ctrl.flags says.
TEST(KernelRing, RingsTheDoorbellWhateverTheFlags) {
    RingFile file(4);
    auto ring = ozram::ring::KernelRing::attach(file.path());
    for (const std::uint32_t flags : {0u, OZRAM_RING_F_NEED_WAKEUP}) {
        file.view().ctrl->flags.value = flags;
        try {
            ring->notify_completions();
            FAIL() << "the COMPLETE ioctl was not issued with flags " << flags;
        } catch (const ozram::Error& error) {
            EXPECT_EQ(error.code().value(), ENOTTY);  // a file, not the device
        }
    }
}

TEST(KernelRing, StagingIsMappedReadOnly) {
    RingFile file(4);
    auto ring = ozram::ring::KernelRing::attach(file.path());
    EXPECT_DEATH(ring->view().staging[0] = 1, "");
}

TEST(KernelRing, RefusesAnUnknownMajorVersion) {
    RingFile file(4, OZRAM_RING_ABI_MAJOR + 1);
    EXPECT_THROW((void)ozram::ring::KernelRing::attach(file.path()), ozram::ring::AbiVersionError);
}

TEST(KernelRing, MissingDeviceIsENOENT) {
    try {
        (void)ozram::ring::KernelRing::attach("/nonexistent/ozram-ring");
        FAIL() << "attached to nothing";
    } catch (const ozram::Error& error) {
        EXPECT_EQ(error.code().value(), ENOENT);
    }
}

// Waiting for a ring at such a path would wait forever, and mapping a file
// past its end would kill the agent with SIGBUS on the first read.
TEST(KernelRing, ADeviceThatIsNoRingIsNamedSo) {
    try {
        (void)ozram::ring::KernelRing::attach("/dev/null");
        FAIL() << "attached to /dev/null";
    } catch (const ozram::ring::NotARingError& error) {
        EXPECT_EQ(error.code().value(), ENODEV);
    }
}

TEST(KernelRing, AnEmptyFileIsNoRing) {
    RingFile file(4);
    file.cut_to(0);
    EXPECT_THROW((void)ozram::ring::KernelRing::attach(file.path()), ozram::ring::NotARingError);
}

TEST(KernelRing, AFileShorterThanItsHeaderSaysIsNoRing) {
    RingFile file(4);
    file.cut_to(file.view().header.mapping_size - 1);
    EXPECT_THROW((void)ozram::ring::KernelRing::attach(file.path()), ozram::ring::NotARingError);
}

}  // namespace
