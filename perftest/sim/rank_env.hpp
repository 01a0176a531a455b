// What a simulated rank's code sees: the network, its rank, the call's workload and the
// model of its core (codec and copies).
#pragma once

#include "network.hpp"
#include "zip_algo.h"
#include "sim_codec.hpp"
#include "workload.hpp"

namespace simscale
{

struct RankEnv {
    Network *net;
    int rank;
    const Workload *work;
    SimCodec *codec;
    // This rank's memo of its last neighbourhood sample (coll/zip keeps one per communicator
    // and kind of call), carried from the first call to the timed one.
    zip_algo_sender_memo_t *memo = nullptr;

    int size() const { return net->ranks(); }
};

} // namespace simscale
