// What zip_algo_bcast's files share: the chain's receive window (bcast_algo.cpp), which the
// cost model (bcast_plan.cpp) counts, and the scatter-allgather topology (bcast_sag.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>

#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// How many segment receives a non-root of the chain keeps posted ahead of the one it is
// working on.
constexpr size_t kChainRecvWindow = 4;

// The largest segment zip_bcast_args_t's segment_bytes (`largest`) allows: a multiple of 8 (whole
// doubles) of at least 8, and one message, whose byte count the transport passes on as an int.
inline size_t segment_cap(size_t largest)
{
    return std::clamp<size_t>(largest & ~size_t(7), 8, size_t(INT_MAX) & ~size_t(7));
}

// The offsets of the scatter-allgather's blocks of `block` bytes that travel in one coalesced
// chunk of `chunk` bytes: the largest power of two K with K blocks in the chunk, at least 1 (K
// below 2: every block is its own message). The algorithm cuts by it and the cost model counts
// the messages by it.
inline int sag_chunk_offsets(size_t block, size_t chunk)
{
    const size_t fit = block > 0 ? std::max<size_t>(1, chunk / block) : 1;
    int k = 1;
    while (size_t(k) * 2 <= fit)
        k *= 2;
    return k;
}

// The whole broadcast over `a` (a->bytes > 0, a valid root, more than one rank).
Task scatter_allgather_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                             const zip_bcast_args_t *a, zip_algo_result_t *res);

} // namespace zipcoll
