// Two-rank gatherv and scatterv blocks in segments (exchange.hpp).
#include <algorithm>

#include "exchange.hpp"

namespace zipcoll
{

size_t segment_bytes(int size, size_t bytes)
{
    if (size != 2 || bytes < 2 * kSegmentMin)
        return 0;
    constexpr size_t kGrain = 64 * 1024;
    return std::clamp(bytes / 8 / kGrain * kGrain, kSegmentMin, kSegmentMax);
}

void append_segments(const Transfer &block, size_t seg, std::vector<Transfer> *out)
{
    if (seg == 0 || block.bytes <= seg) {
        out->push_back(block);
        return;
    }
    for (size_t at = 0; at < block.bytes; at += seg)
        out->push_back(Transfer{block.peer, block.ptr + at, std::min(seg, block.bytes - at)});
}

const zip_algo_policy_t *with_shape(const zip_algo_policy_t *policy, zip_transfer_shape_t shape,
                                    zip_algo_policy_t *storage)
{
    if (policy == nullptr)
        return nullptr;
    *storage = *policy;
    storage->shape = shape;
    return storage;
}

} // namespace zipcoll
