#include "shm_ring.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/date_time/posix_time/posix_time_types.hpp>
#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/sync/scoped_lock.hpp>
#include <cerrno>
#include <cstring>
#include <new>

namespace bip = boost::interprocess;

namespace ozram::ring {
namespace {

using Lock = bip::scoped_lock<bip::interprocess_mutex>;

const std::uint64_t SIDE_AREA_SIZE = ozram_ring_align_page(sizeof(ShmSideArea));

[[noreturn]] void rethrow(const bip::interprocess_exception& error, const std::string& what) {
    const int code = error.get_native_error() != 0 ? error.get_native_error() : EIO;
    throw Error(code, what);
}

boost::posix_time::ptime deadline_after(std::chrono::microseconds timeout) {
    return boost::posix_time::microsec_clock::universal_time() +
           boost::posix_time::microseconds(timeout.count());
}

bool process_alive(std::uint32_t pid) {
    return pid != 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

std::uint32_t next_pow2(std::uint32_t n) {
    std::uint32_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

}  // namespace

std::string shm_object_name(const std::string& name) {
    return !name.empty() && name.front() == '/' ? name.substr(1) : name;
}

std::unique_ptr<ShmRingOwner> ShmRingOwner::create(const std::string& name,
                                                   const Geometry& geometry) {
    const std::uint32_t slots = geometry.slots;
    if (slots == 0 || slots > OZRAM_RING_MAX_SLOTS) {
        throw Error(EINVAL, "slots must be 1.." + std::to_string(OZRAM_RING_MAX_SLOTS));
    }
    const std::uint32_t entries = geometry.entries != 0 ? geometry.entries : next_pow2(slots);
    ozram_ring_header header;
    ozram_ring_init_header(&header, slots, entries, geometry.huge_threshold);
    check_header(header, header.mapping_size);  // rejects a bad entries or threshold

    std::unique_ptr<ShmRingOwner> owner(new ShmRingOwner());
    owner->name_ = shm_object_name(name);
    try {
        bip::shared_memory_object::remove(owner->name_.c_str());
        bip::shared_memory_object shm(bip::create_only, owner->name_.c_str(), bip::read_write);
        shm.truncate(static_cast<bip::offset_t>(header.mapping_size + SIDE_AREA_SIZE));
        owner->region_ = bip::mapped_region(shm, bip::read_write);
    } catch (const bip::interprocess_exception& error) {
        rethrow(error, "cannot create shared memory '" + owner->name_ + "'");
    }
    auto* base = static_cast<std::uint8_t*>(owner->region_.get_address());
    owner->side_ = new (base + header.mapping_size) ShmSideArea();
    owner->view_ = RingView::locate(header, base, base + header.staging.offset);
    auto* ctrl = owner->view_.ctrl;
    for (ozram_ring_index* index :
         {&ctrl->sq_head, &ctrl->sq_tail, &ctrl->cq_head, &ctrl->cq_tail}) {
        index->value = geometry.first_index;
    }
    // The magic goes in last, so an agent never trusts a half-written header.
    const std::uint32_t magic = header.magic;
    header.magic = 0;
    std::memcpy(base, &header, sizeof(header));
    std::atomic_ref<std::uint32_t>(reinterpret_cast<ozram_ring_header*>(base)->magic)
        .store(magic, std::memory_order_release);
    return owner;
}

ShmRingOwner::~ShmRingOwner() {
    bip::shared_memory_object::remove(name_.c_str());
}

ozram_ring_header& ShmRingOwner::shared_header() {
    return *static_cast<ozram_ring_header*>(region_.get_address());
}

void ShmRingOwner::notify_work() {
    Lock lock(side_->mutex);
    side_->work.notify_all();
}

void ShmRingOwner::wait_for_completions(std::chrono::microseconds timeout) {
    Lock lock(side_->mutex);
    const auto ready = [this] {
        return load_acquire(view_.ctrl->cq_tail) != load_acquire(view_.ctrl->cq_head) ||
               side_->agent_pid == 0;
    };
    side_->done.timed_wait(lock, deadline_after(timeout), ready);
}

std::uint32_t ShmRingOwner::agent_pid() {
    Lock lock(side_->mutex);
    return side_->agent_pid;
}

std::unique_ptr<ShmRing> ShmRing::attach(const std::string& name) {
    std::unique_ptr<ShmRing> ring(new ShmRing());
    ring->name_ = shm_object_name(name);
    try {
        bip::shared_memory_object shm(bip::open_only, ring->name_.c_str(), bip::read_write);
        bip::offset_t size = 0;
        if (!shm.get_size(size) || size < static_cast<bip::offset_t>(OZRAM_RING_PAGE_SIZE)) {
            throw Error(EAGAIN, "shared memory '" + ring->name_ + "' is not initialised yet");
        }
        ozram_ring_header header;
        {
            bip::mapped_region first(shm, bip::read_only, 0, OZRAM_RING_PAGE_SIZE);
            auto* shared = static_cast<ozram_ring_header*>(first.get_address());
            const std::uint32_t magic =
                std::atomic_ref<std::uint32_t>(shared->magic).load(std::memory_order_acquire);
            if (magic == 0) {
                throw Error(EAGAIN, "shared memory '" + ring->name_ + "' is not initialised yet");
            }
            std::memcpy(&header, shared, sizeof(header));
        }
        const auto mapped = static_cast<std::uint64_t>(size);
        check_header(header, mapped);
        if (header.mapping_size % OZRAM_RING_PAGE_SIZE != 0 ||
            mapped < header.mapping_size + SIDE_AREA_SIZE) {
            throw Error(EBADMSG,
                        "shared memory '" + ring->name_ + "' has no room for its doorbells");
        }
        ring->writable_ = bip::mapped_region(shm, bip::read_write, 0, header.staging.offset);
        ring->staging_ = bip::mapped_region(shm, bip::read_only,
                                            static_cast<bip::offset_t>(header.staging.offset),
                                            header.staging.size);
        ring->side_region_ = bip::mapped_region(
            shm, bip::read_write, static_cast<bip::offset_t>(header.mapping_size), SIDE_AREA_SIZE);
        ring->side_ = static_cast<ShmSideArea*>(ring->side_region_.get_address());
        ring->view_ =
            RingView::locate(header, static_cast<std::uint8_t*>(ring->writable_.get_address()),
                             static_cast<std::uint8_t*>(ring->staging_.get_address()));
    } catch (const bip::interprocess_exception& error) {
        if (error.get_error_code() == bip::not_found_error) {
            throw Error(ENOENT, "no shared memory ring named '" + ring->name_ + "'");
        }
        rethrow(error, "cannot attach to shared memory '" + ring->name_ + "'");
    }
    Lock lock(ring->side_->mutex);
    if (process_alive(ring->side_->agent_pid)) {
        throw Error(EBUSY, "another agent (pid " + std::to_string(ring->side_->agent_pid) +
                               ") is attached to '" + ring->name_ + "'");
    }
    ring->side_->agent_pid = static_cast<std::uint32_t>(::getpid());
    ++ring->side_->attach_count;
    ring->attached_ = true;
    return ring;
}

ShmRing::~ShmRing() {
    detach();
}

Wake ShmRing::wait_for_work(std::chrono::microseconds timeout) {
    Lock lock(side_->mutex);
    const auto ready = [this] {
        return load_acquire(view_.ctrl->sq_tail) != load_acquire(view_.ctrl->sq_head) ||
               view_.stopping();
    };
    return side_->work.timed_wait(lock, deadline_after(timeout), ready) ? Wake::Ready
                                                                        : Wake::TimedOut;
}

void ShmRing::notify_completions() {
    Lock lock(side_->mutex);
    side_->done.notify_all();
}

void ShmRing::detach() {
    if (!attached_) {
        return;
    }
    attached_ = false;
    {
        Lock lock(side_->mutex);
        side_->agent_pid = 0;
        side_->done.notify_all();
    }
    writable_ = bip::mapped_region();
    staging_ = bip::mapped_region();
    side_region_ = bip::mapped_region();
}

}  // namespace ozram::ring
