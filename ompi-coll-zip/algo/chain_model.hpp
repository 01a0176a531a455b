// The cost of a pipelined chain, shared by the bcast plan (bcast_plan.cpp) and the reduce
// chain's segment (reduce_chain.cpp). The formulas are in docs/design.md ("Choosing the
// topology"); the symbols below follow it.
#pragma once

#include <algorithm>
#include <cmath>

#include "zip_algo.h"

namespace zipcoll::chain_model
{

// An unknown link (policy always, or no probe yet) counts as 10 Gbit/s.
constexpr double kDefaultLinkBps = 1.25e9;

// A message between two ranks of one node (shared memory) takes about a microsecond before its
// bytes move; no parameter says more precisely, and next to the latency between nodes (20-50 us
// over TCP) it barely counts.
constexpr double kLocalLatency = 1e-6;

// What a message costs its ends beside its bytes: about a microsecond on InfiniBand
// (docs/scale.md, "Cost per message").
constexpr double kMessageCost = double(ZIP_BCAST_MESSAGE_COST_NS) * 1e-9;

// ceil(log2 p): the steps of a binomial tree, a Bruck allgather or recursive doubling on p ranks.
inline int step_count(int p)
{
    int steps = 0;
    for (int d = 1; d < p; d *= 2)
        ++steps;
    return steps;
}

struct Model {
    double alpha, beta, C, D, r;
    int k;
    double local_beta, local_share;
    double ranks_per_core;

    explicit Model(const zip_bcast_model_t &m)
        : alpha(std::max(0.0, m.latency_s)), beta(m.link_Bps > 0.0 ? m.link_Bps : kDefaultLinkBps),
          C(m.compress_Bps), D(m.decompress_Bps), r(m.ratio > 1.0 ? m.ratio : 1.0),
          k(std::max(1, m.ranks_per_node)), local_beta(std::max(0.0, m.local_link_Bps)),
          local_share(std::clamp(m.chain_local_share, 0.0, 1.0)), ranks_per_core(m.ranks_per_core)
    {
    }
    double wire(double raw) const { return raw / r / beta; }
    double wire_local(double raw) const { return raw / r / local_beta; }
    double coding(double raw, double speed) const { return speed > 0.0 ? raw / speed : 0.0; }
};

// How many of a chain's P - 1 hops join two ranks of one node, at least. At least
// local_share x P of the P pairs (p, p + 1 mod P) do; the chain, which starts at the root, uses
// all of them but the pair ending at the root, which may be one. Unknown local link: none (every
// hop costed as one between nodes, as the model did before it knew nodes).
inline int local_hops(const Model &m, int P)
{
    if (m.local_beta <= 0.0 || m.local_share <= 0.0)
        return 0;
    const double pairs = std::floor(m.local_share * double(P) + 1e-9);
    return std::clamp(int(pairs) - 1, 0, P - 1);
}

// A chain of P ranks and S segments: P - 1 hops to fill, R of them between nodes at latency α and
// the node's link, the others on a node at kLocalLatency and the local link; then a segment per
// stage. A stage is the slowest of the wire of either kind of hop, `core` (what a rank's one core
// spends on a segment: receiving, coding and sending it), and the receive window: a rank posts
// the receive of segment i + W when segment i arrives, so at most W segments move per hop time.
// With 32 ranks per node only one hop in 32 crosses a NIC, so fewer, larger segments fill the
// chain about as fast and need fewer latencies per byte.
inline double chain_time(const Model &m, double N, int P, double seg, double core, double W)
{
    const double S = std::ceil(N / seg);
    const int L = local_hops(m, P), R = P - 1 - L;
    const double remote_hop = m.alpha + m.wire(seg) + 2.0 * kMessageCost;
    const double local_hop = L > 0 ? kLocalLatency + m.wire_local(seg) + 2.0 * kMessageCost : 0.0;
    double stage = core;
    if (R > 0)
        stage = std::max({stage, m.wire(seg), remote_hop / W});
    if (L > 0)
        stage = std::max({stage, m.wire_local(seg), local_hop / W});
    return double(R) * remote_hop + double(L) * local_hop + (S - 1.0) * stage;
}

} // namespace zipcoll::chain_model
