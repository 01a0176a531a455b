#include "temporal.hpp"

#include <cstring>

namespace zip
{

ReferenceStore::Reference *ReferenceStore::find(uint64_t stream)
{
    auto it = slots_.find(stream);
    if (it == slots_.end())
        return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.pos);
    return &it->second.ref;
}

bool ReferenceStore::store(uint64_t stream, const uint8_t *p, size_t n, uint32_t check,
                           uint32_t since_key)
{
    auto it = slots_.find(stream);
    if (n > cap_) {
        if (it != slots_.end())
            forget(stream);
        return false;
    }
    if (it != slots_.end()) {
        // This stream's own buffer is reused in place: make it most recent, evict the others.
        lru_.splice(lru_.begin(), lru_, it->second.pos);
        size_t old = it->second.ref.payload.size();
        while (bytes_ - old + n > cap_ && lru_.size() > 1)
            forget(lru_.back());
    } else {
        while (bytes_ + n > cap_ && !lru_.empty())
            forget(lru_.back());
        lru_.push_front(stream);
        it = slots_.emplace(stream, Slot{Reference{}, lru_.begin()}).first;
    }
    Reference &r = it->second.ref;
    bytes_ -= r.payload.size();
    r.payload.resize(n);
    if (n)
        std::memcpy(r.payload.data(), p, n);
    bytes_ += n;
    r.check = check;
    r.since_key = since_key;
    return true;
}

void ReferenceStore::forget(uint64_t stream)
{
    auto it = slots_.find(stream);
    if (it == slots_.end())
        return;
    bytes_ -= it->second.ref.payload.size();
    lru_.erase(it->second.pos);
    slots_.erase(it);
}

void ReferenceStore::clear()
{
    slots_.clear();
    lru_.clear();
    bytes_ = 0;
}

void ReferenceStore::set_cap(size_t cap)
{
    cap_ = cap;
    while (bytes_ > cap_ && !lru_.empty())
        forget(lru_.back());
}

void xor_bytes(const uint8_t *a, const uint8_t *b, size_t n, uint8_t *dst)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        x ^= y;
        std::memcpy(dst + i, &x, 8);
    }
    for (; i < n; ++i)
        dst[i] = a[i] ^ b[i];
}

} // namespace zip
