#include "block_claims.hpp"

#include <algorithm>

namespace zip
{

BlockClaims::BlockClaims(size_t nblocks, unsigned parts) : parts_(std::clamp(parts, 1u, kMaxParts))
{
    for (unsigned t = 0; t < parts_; ++t) {
        ranges_[t].next.store(nblocks * t / parts_, std::memory_order_relaxed);
        ranges_[t].end = nblocks * (t + 1) / parts_;
    }
}

size_t BlockClaims::next(unsigned &cursor)
{
    for (unsigned visited = 0; visited < parts_; ++visited) {
        Range &r = ranges_[cursor];
        // A range's counter only grows: once past its end, the range stays done.
        if (r.next.load(std::memory_order_relaxed) < r.end) {
            const size_t i = r.next.fetch_add(1, std::memory_order_relaxed);
            if (i < r.end)
                return i;
        }
        cursor = cursor + 1 == parts_ ? 0 : cursor + 1;
    }
    return kNone;
}

} // namespace zip
