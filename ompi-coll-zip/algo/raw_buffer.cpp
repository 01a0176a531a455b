#include "raw_buffer.hpp"

#include <cstdlib>
#include <mutex>

#include "zip_algo.h"

namespace zipcoll
{
namespace
{

// Below this size the heap keeps freed memory itself. From it, buffers are pages of their own
// (zip_mem_alloc), so that freeing one leaves glibc's mmap threshold where the application's
// own allocations put it.
constexpr size_t kCacheFrom = 256 * 1024;
static_assert(kCacheFrom >= ZIP_MEM_MAPPED_FROM, "cached buffers are mapped");

void release(char *p, size_t bytes)
{
    if (bytes >= kCacheFrom)
        zip_mem_free(p, bytes);
    else
        std::free(p);
}
constexpr int kSlots = 4;

struct Cache {
    std::mutex lock;
    char *ptr[kSlots] = {};
    size_t bytes[kSlots] = {};
    size_t held = 0;
    // At most this much stays cached once calls return, in at most kSlots buffers.
    size_t most = kDefaultRawBufferCache;
};

Cache &cache()
{
    static Cache *c = new Cache; // never destroyed: a buffer may come back during exit
    return *c;
}

} // namespace

void RawBufferFree::operator()(char *p) const noexcept
{
    if (p == nullptr)
        return;
    char *evicted = nullptr;
    size_t evicted_bytes = 0;
    if (bytes >= kCacheFrom) {
        Cache &c = cache();
        std::lock_guard<std::mutex> g(c.lock);
        // An empty slot, else the one of the smallest buffer if this one is larger: the cache
        // keeps what the largest calls need.
        int slot = -1;
        for (int i = 0; i < kSlots && slot < 0; ++i)
            if (c.ptr[i] == nullptr)
                slot = i;
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < kSlots; ++i)
                if (c.bytes[i] < c.bytes[slot])
                    slot = i;
            if (c.bytes[slot] >= bytes)
                slot = -1;
        }
        if (slot >= 0 && c.held - c.bytes[slot] + bytes <= c.most) {
            evicted = c.ptr[slot];
            evicted_bytes = c.bytes[slot];
            c.held = c.held - c.bytes[slot] + bytes;
            c.ptr[slot] = p;
            c.bytes[slot] = bytes;
            p = nullptr;
        }
    }
    release(evicted, evicted_bytes);
    release(p, bytes);
}

RawBuffer raw_buffer(size_t n)
{
    if (n == 0)
        return RawBuffer(nullptr, RawBufferFree{0});
    if (n >= kCacheFrom) {
        Cache &c = cache();
        std::lock_guard<std::mutex> g(c.lock);
        int best = -1;
        for (int i = 0; i < kSlots; ++i)
            if (c.ptr[i] != nullptr && c.bytes[i] >= n && (best < 0 || c.bytes[i] < c.bytes[best]))
                best = i;
        if (best >= 0) {
            RawBuffer b(c.ptr[best], RawBufferFree{c.bytes[best]});
            c.held -= c.bytes[best];
            c.ptr[best] = nullptr;
            c.bytes[best] = 0;
            return b;
        }
    }
    char *p = static_cast<char *>(n >= kCacheFrom ? zip_mem_alloc(n) : std::malloc(n));
    return RawBuffer(p, RawBufferFree{n});
}

void release_raw_buffers()
{
    Cache &c = cache();
    std::lock_guard<std::mutex> g(c.lock);
    for (int i = 0; i < kSlots; ++i) {
        release(c.ptr[i], c.bytes[i]);
        c.ptr[i] = nullptr;
        c.bytes[i] = 0;
    }
    c.held = 0;
}

void set_raw_buffer_cache_limit(size_t bytes)
{
    Cache &c = cache();
    std::lock_guard<std::mutex> g(c.lock);
    c.most = bytes;
    // The smallest go first, as when a larger buffer comes back.
    while (c.held > c.most) {
        int smallest = -1;
        for (int i = 0; i < kSlots; ++i)
            if (c.ptr[i] != nullptr && (smallest < 0 || c.bytes[i] < c.bytes[smallest]))
                smallest = i;
        release(c.ptr[smallest], c.bytes[smallest]);
        c.held -= c.bytes[smallest];
        c.ptr[smallest] = nullptr;
        c.bytes[smallest] = 0;
    }
}

size_t cached_raw_buffer_bytes()
{
    Cache &c = cache();
    std::lock_guard<std::mutex> g(c.lock);
    return c.held;
}

} // namespace zipcoll

extern "C" void zip_algo_release_buffers(void)
{
    zipcoll::release_raw_buffers();
}

extern "C" void zip_algo_set_buffer_cache(size_t bytes)
{
    zipcoll::set_raw_buffer_cache_limit(bytes);
}

extern "C" size_t zip_algo_buffer_cache_held(void)
{
    return zipcoll::cached_raw_buffer_bytes();
}

extern "C" void *zip_algo_buffer_take(size_t n, size_t *capacity)
{
    zipcoll::RawBuffer b = zipcoll::raw_buffer(n);
    *capacity = b != nullptr ? b.get_deleter().bytes : 0;
    return b.release();
}

extern "C" void zip_algo_buffer_give(void *p, size_t capacity)
{
    zipcoll::RawBufferFree{capacity}(static_cast<char *>(p));
}
