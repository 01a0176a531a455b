// Point-to-point schedules for blocks that may travel as frames (see block_codec.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "block_codec.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// Everything at once: every receive posted at its raw length, then every block compressed and
// sent, then frames decoded in arrival order. Suits gatherv, where only the root receives.
struct ExchangePlan {
    std::vector<Transfer> sends; // in the order they should go out
    std::vector<Transfer> recvs; // in the order they should be posted
    int tag = 0;
    BlockPolicy policy;
};

int run_exchange(const zip_transport_t *t, const zip_codec_ops_t *codec, const ExchangePlan &plan,
                 zip_algo_result_t *res);

// Pairwise steps: at step k a rank sends steps[k].send and receives steps[k].recv, with at most
// `window` steps in flight, decoding step k's frame while later steps transfer. Every rank
// must use the same number of steps, and step k of rank r must pair with step k of its peers
// (alltoallv: send to r+k, receive from r-k). A block of 0 bytes is skipped.
struct Step {
    Transfer send;
    Transfer recv;
};

struct PairwisePlan {
    std::vector<Step> steps;
    int tag = 0;
    size_t window = 2;
    BlockPolicy policy;
};

int run_pairwise(const zip_transport_t *t, const zip_codec_ops_t *codec, const PairwisePlan &plan,
                 zip_algo_result_t *res);

} // namespace zipcoll
