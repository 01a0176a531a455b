// What the two compressed allreduce schedules share: how the vector is cut into chunks, and
// the recursive one's entry point (the ring and the dispatch are in allreduce_algo.cpp).
#pragma once

#include <algorithm>
#include <cstddef>

#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// `parts` chunks of a vector of `elems` elements, cut between elements and identical on every
// rank: the first elems % parts chunks have one element more.
struct Chunks {
    size_t elems, elem_bytes;
    int parts;
    size_t first(int c) const
    {
        const size_t base = elems / size_t(parts), rem = elems % size_t(parts);
        return size_t(c) * base + std::min(size_t(c), rem);
    }
    size_t offset(int c) const { return first(c) * elem_bytes; }
    size_t bytes(int c) const { return (first(c + 1) - first(c)) * elem_bytes; }
    // Chunks lo .. hi - 1 together.
    size_t span(int lo, int hi) const { return offset(hi) - offset(lo); }
    size_t largest() const { return bytes(0); }
};

// Recursive halving and doubling (allreduce_halving.cpp), for arguments that passed the ring's
// checks: more than one rank, a non-empty whole number of elements.
Task allreduce_halving(const zip_transport_t *t, const zip_codec_ops_t *codec,
                       const zip_allreduce_args_t *a, zip_algo_result_t *res);

} // namespace zipcoll
