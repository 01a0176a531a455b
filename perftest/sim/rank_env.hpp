// What a simulated rank's code sees: the network, its rank, the call's workload and the
// model of its core (codec and copies).
#pragma once

#include "network.hpp"
#include "sim_codec.hpp"
#include "workload.hpp"

namespace simscale
{

struct RankEnv {
    Network *net;
    int rank;
    const Workload *work;
    SimCodec *codec;

    int size() const { return net->ranks(); }
};

} // namespace simscale
