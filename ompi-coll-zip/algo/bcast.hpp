// What zip_algo_bcast's files share: the chain's receive window (bcast_algo.cpp), which the
// cost model (bcast_plan.cpp) counts, and the scatter-allgather topology (bcast_sag.cpp).
#pragma once

#include <cstddef>

#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// How many segment receives a non-root of the chain keeps posted ahead of the one it is
// working on.
constexpr size_t kChainRecvWindow = 4;

// The whole broadcast over `a` (a->bytes > 0, a valid root, more than one rank).
Task scatter_allgather_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                             const zip_bcast_args_t *a, zip_algo_result_t *res);

} // namespace zipcoll
