#include "kernel_ring.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace ozram::ring {
namespace {

[[noreturn]] void fail(const std::string& what) {
    const int code = errno;
    throw Error(code, what);
}

void* map_or_throw(int fd, std::size_t size, int protection, std::uint64_t offset,
                   const std::string& path) {
    void* address = ::mmap(nullptr, size, protection, MAP_SHARED, fd, static_cast<off_t>(offset));
    if (address == MAP_FAILED) {
        fail("cannot map " + path);
    }
    return address;
}

// The size of a regular file, which stands in for the device in tests and
// must hold what is mapped (a read past its end faults); none for the
// device.  Anything else is no ring.
std::optional<std::uint64_t> regular_file_size(int fd, const std::string& path) {
    struct stat status {};
    if (::fstat(fd, &status) < 0) {
        fail("cannot stat " + path);
    }
    if (S_ISCHR(status.st_mode)) {
        return std::nullopt;
    }
    if (!S_ISREG(status.st_mode)) {
        throw NotARingError(ENODEV, path + " is not an ozram ring device");
    }
    return static_cast<std::uint64_t>(status.st_size);
}

void check_holds(std::optional<std::uint64_t> file_size, std::uint64_t needed,
                 const std::string& path) {
    if (file_size && *file_size < needed) {
        throw NotARingError(
            EBADMSG, path + " is shorter than a ring (" + std::to_string(*file_size) + " bytes)");
    }
}

}  // namespace

std::unique_ptr<KernelRing> KernelRing::attach(const std::string& path) {
    std::unique_ptr<KernelRing> ring(new KernelRing());
    ring->path_ = path;
    ring->fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (ring->fd_ < 0) {
        fail("cannot open " + path);
    }
    const std::optional<std::uint64_t> file_size = regular_file_size(ring->fd_, path);
    check_holds(file_size, OZRAM_RING_PAGE_SIZE, path);
    ozram_ring_header header;
    // The ring maps for any process that could open it, so a device that
    // refuses is some other device (/dev/null says ENODEV).
    void* first = ::mmap(nullptr, OZRAM_RING_PAGE_SIZE, PROT_READ, MAP_SHARED, ring->fd_, 0);
    if (first == MAP_FAILED) {
        throw NotARingError(errno, path + " is not an ozram ring device: cannot map it");
    }
    std::memcpy(&header, first, sizeof(header));
    ::munmap(first, OZRAM_RING_PAGE_SIZE);
    // The device is as large as its header says; mmap() below fails otherwise.
    check_header(header, header.mapping_size);
    check_holds(file_size, header.mapping_size, path);

    ring->writable_size_ = header.staging.offset;
    ring->writable_ =
        map_or_throw(ring->fd_, ring->writable_size_, PROT_READ | PROT_WRITE, 0, path);
    ring->staging_size_ = header.staging.size;
    ring->staging_ =
        map_or_throw(ring->fd_, ring->staging_size_, PROT_READ, header.staging.offset, path);
    ring->view_ = RingView::locate(header, static_cast<std::uint8_t*>(ring->writable_),
                                   static_cast<std::uint8_t*>(ring->staging_));
    return ring;
}

KernelRing::~KernelRing() {
    detach();
}

Wake KernelRing::wait_for_work(std::chrono::microseconds timeout) {
    pollfd entry{fd_, POLLIN, 0};
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const timespec limit{static_cast<time_t>(seconds.count()),
                         static_cast<long>((timeout - seconds).count() * 1000)};
    const int ready = ::ppoll(&entry, 1, &limit, nullptr);
    if (ready < 0) {
        if (errno == EINTR) {
            return Wake::TimedOut;
        }
        fail("poll " + path_);
    }
    if (ready == 0) {
        return Wake::TimedOut;
    }
    if ((entry.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
        return Wake::ProducerGone;
    }
    return Wake::Ready;
}

// The kernel reaps only when asked: every publish rings (ring ABI 1.2).
void KernelRing::notify_completions() {
    if (::ioctl(fd_, OZRAM_RING_IOC_COMPLETE) < 0) {
        fail("OZRAM_RING_IOC_COMPLETE on " + path_);
    }
}

void KernelRing::declare_algorithms(std::uint32_t mask) {
    if ((view_.header.features & OZRAM_RING_FEAT_ALGORITHMS) == 0) {
        return;
    }
    if (::ioctl(fd_, OZRAM_RING_IOC_SET_ALGORITHMS, &mask) < 0) {
        fail("OZRAM_RING_IOC_SET_ALGORITHMS on " + path_);
    }
}

void KernelRing::detach() {
    if (fd_ < 0) {
        return;
    }
    ::ioctl(fd_, OZRAM_RING_IOC_DETACH);  // best effort: close() detaches too
    if (staging_ != nullptr) {
        ::munmap(staging_, staging_size_);
    }
    if (writable_ != nullptr) {
        ::munmap(writable_, writable_size_);
    }
    staging_ = writable_ = nullptr;
    ::close(fd_);
    fd_ = -1;
}

}  // namespace ozram::ring
