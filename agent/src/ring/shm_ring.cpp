#include "shm_ring.hpp"

#include <signal.h>
#include <unistd.h>

#include <boost/date_time/posix_time/posix_time_types.hpp>
#include <boost/interprocess/exceptions.hpp>
#include <cerrno>
#include <cstring>
#include <new>

#include "agent_queues.hpp"

namespace bip = boost::interprocess;

namespace ozram::ring {
namespace {

const std::uint64_t SIDE_AREA_SIZE = ozram_ring_align_page(sizeof(ShmSideArea));

[[noreturn]] void rethrow(const bip::interprocess_exception& error, const std::string& what) {
    const int code = error.get_native_error() != 0 ? error.get_native_error() : EIO;
    throw Error(code, what);
}

boost::posix_time::ptime deadline_after(std::chrono::microseconds timeout) {
    return boost::posix_time::microsec_clock::universal_time() +
           boost::posix_time::microseconds(timeout.count());
}

// Sleeps on `semaphore` until `ready()` or the deadline, raising `waiting`
// around the sleep so that the other side knows to post (barrier.hpp).
template <typename Ready>
bool sleep_until_ready(bip::interprocess_semaphore& semaphore, std::uint32_t& waiting,
                       std::chrono::microseconds timeout, Ready ready) {
    if (ready()) {
        return true;
    }
    const auto deadline = deadline_after(timeout);
    announce_sleep(waiting);
    try {
        while (!ready() && semaphore.timed_wait(deadline)) {
        }
    } catch (const bip::interprocess_exception& error) {
        // A signal: return, so that the caller looks at its flags now.
        if (error.get_native_error() != EINTR) {
            throw;
        }
    }
    end_sleep(waiting);
    return ready();
}

// Posts `semaphore` if the other side sleeps on it.  The caller has just
// published an index with a store-release.
void wake_if_waiting(bip::interprocess_semaphore& semaphore, std::uint32_t& waiting) {
    if (sleeper_waiting(waiting)) {
        semaphore.post();
    }
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
        // What was made of it goes; the owner, with no ring, touches nothing.
        bip::shared_memory_object::remove(owner->name_.c_str());
        rethrow(error, "cannot create shared memory '" + owner->name_ + "'");
    }
    auto* base = static_cast<std::uint8_t*>(owner->region_.get_address());
    // Touch every page now, as the kernel's vmalloc'ed ring is populated when
    // it is made: the first pass over the staging and output areas would
    // otherwise take a page fault per page, on both sides, inside the run.
    std::memset(base, 0, header.mapping_size + SIDE_AREA_SIZE);
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
    publish_magic(reinterpret_cast<ozram_ring_header*>(base)->magic, magic);
    return owner;
}

ShmRingOwner::~ShmRingOwner() {
    if (view_.ctrl == nullptr) {
        return;  // create() failed before it made the ring
    }
    // An agent still attached would otherwise wait on a segment nobody feeds.
    const std::uint32_t flags = load_acquire(view_.ctrl->flags);
    store_release(view_.ctrl->flags, flags | OZRAM_RING_F_STOPPING);
    notify_work();
    bip::shared_memory_object::remove(name_.c_str());
}

ozram_ring_header& ShmRingOwner::shared_header() {
    return *static_cast<ozram_ring_header*>(region_.get_address());
}

void ShmRingOwner::notify_work() {
    wake_if_waiting(side_->work, side_->agent_waiting);
}

void ShmRingOwner::wait_for_completions(std::chrono::microseconds timeout) {
    sleep_until_ready(side_->done, side_->producer_waiting, timeout, [this] {
        return load_acquire(view_.ctrl->cq_tail) != load_acquire(view_.ctrl->cq_head) ||
               load_owner(side_->agent_pid) == 0;
    });
}

std::uint32_t ShmRingOwner::agent_pid() {
    return load_owner(side_->agent_pid);
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
            const std::uint32_t magic = acquire_magic(shared->magic);
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
    // Claim the ring unless a live agent holds it; a dead one's pid is taken over.
    const auto me = static_cast<std::uint32_t>(::getpid());
    std::uint32_t holder = load_owner(ring->side_->agent_pid);
    do {
        if (process_alive(holder)) {
            throw Error(EBUSY, "another agent (pid " + std::to_string(holder) +
                                   ") is attached to '" + ring->name_ + "'");
        }
    } while (!claim_owner(ring->side_->agent_pid, holder, me));
    count(ring->side_->attach_count);
    ring->attached_ = true;
    return ring;
}

ShmRing::~ShmRing() {
    detach();
}

Wake ShmRing::wait_for_work(std::chrono::microseconds timeout) {
    const bool ready = sleep_until_ready(side_->work, side_->agent_waiting, timeout, [this] {
        // A corrupt tail is no work, as for AgentQueues::pending():
        // waking for it would spin.
        return sq_waiting(load_acquire(view_.ctrl->sq_tail), load_acquire(view_.ctrl->sq_head),
                          view_.header.sq_entries) != 0 ||
               view_.stopping();
    });
    return ready ? Wake::Ready : Wake::TimedOut;
}

void ShmRing::notify_completions() {
    wake_if_waiting(side_->done, side_->producer_waiting);
}

void ShmRing::detach() {
    if (!attached_) {
        return;
    }
    attached_ = false;
    release_owner(side_->agent_pid);
    wake_if_waiting(side_->done, side_->producer_waiting);
    writable_ = bip::mapped_region();
    staging_ = bip::mapped_region();
    side_region_ = bip::mapped_region();
}

}  // namespace ozram::ring
