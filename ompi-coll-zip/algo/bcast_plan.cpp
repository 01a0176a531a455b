// The bcast cost model: predicted time of the chain (or binomial tree) and of the
// scatter-allgather, and the choice between them. The formulas are in docs/design.md
// ("Choosing the topology"); the symbols below follow it.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "bcast.hpp"
#include "zip_algo.h"

namespace
{

// An unknown link (policy always, or no probe yet) counts as 10 Gbit/s.
constexpr double kDefaultLinkBps = 1.25e9;

struct Model {
    double alpha, beta, C, D, r;
    int k;

    explicit Model(const zip_bcast_model_t &m)
        : alpha(std::max(0.0, m.latency_s)), beta(m.link_Bps > 0.0 ? m.link_Bps : kDefaultLinkBps),
          C(m.compress_Bps), D(m.decompress_Bps), r(m.ratio > 1.0 ? m.ratio : 1.0),
          k(std::max(1, m.ranks_per_node))
    {
    }
    double wire(double raw) const { return raw / r / beta; }
    double coding(double raw, double speed) const { return speed > 0.0 ? raw / speed : 0.0; }
};

double log2_ceil(int p)
{
    int steps = 0;
    for (int d = 1; d < p; d *= 2)
        ++steps;
    return double(steps);
}

// A chain of P ranks and S segments: P - 1 hops to fill, then a segment per stage. A stage is
// the slowest of the wire, the codec, and the receive window: a rank posts the receive of
// segment i + W when segment i arrives, so at most W segments move per latency.
double chain_time(const Model &m, double N, int P, double seg)
{
    const double S = std::ceil(N / seg);
    const double hop = m.alpha + m.wire(seg);
    const double stage = std::max({m.wire(seg), hop / double(zipcoll::kChainRecvWindow),
                                   m.coding(seg, m.C), m.coding(seg, m.D)});
    return double(P - 1) * hop + (S - 1.0) * stage;
}

// A binomial tree of S segments: the root sends every segment ceil(log2 P) times.
double binomial_time(const Model &m, double N, int P, double seg)
{
    const double S = std::ceil(N / seg), L = log2_ceil(P);
    const double stage = std::max({L * m.wire(seg), m.coding(seg, m.C), m.coding(seg, m.D)});
    return L * (m.alpha + m.wire(seg)) + (S - 1.0) * stage;
}

// Scatter: the root codes and sends Q = P - 1 blocks, each byte once over its link; Bruck
// allgather among the Q others: ceil(log2 Q) steps, each rank receiving the Q - 1 blocks it
// lacks once and decoding each, and the last one after it arrives. In the allgather the k
// ranks of a node all receive at once, nearly everything from other nodes, through the node's
// one NIC, where the chain moves one flow per node (simulated, 256 ranks in nodes of 32 at
// 10 Gbit/s: the scatter-allgather chosen without this factor took 89 ms, the chain 4.8).
double sag_time(const Model &m, double N, int P)
{
    const int Q = P - 1;
    const double others = N * double(Q - 1) / double(Q);
    const double share = std::max(1.0, double(m.k) * double(P - m.k) / double(P - 1));
    const double scatter = std::max(m.coding(N, m.C), m.alpha + m.wire(N));
    const double gather =
        std::max(log2_ceil(Q) * m.alpha + share * m.wire(others), m.coding(N, m.D));
    return scatter + gather + m.coding(N / double(Q), m.D);
}

} // namespace

extern "C" double zip_bcast_predict(int topology, size_t bytes, int ranks, size_t segment_bytes,
                                    const zip_bcast_model_t *model)
{
    if (bytes == 0 || ranks <= 1 || model == nullptr)
        return 0.0;
    const Model m(*model);
    const double N = double(bytes);
    if (topology == ZIP_BCAST_SCATTER_ALLGATHER)
        return sag_time(m, N, ranks);
    const size_t seg_bytes = zip_bcast_segment_bytes(bytes, ranks, segment_bytes);
    const double seg = double(seg_bytes);
    const bool chain =
        topology == ZIP_BCAST_CHAIN ||
        (topology == ZIP_BCAST_AUTO && (bytes + seg_bytes - 1) / seg_bytes >= size_t(ranks));
    return chain ? chain_time(m, N, ranks, seg) : binomial_time(m, N, ranks, seg);
}

extern "C" int zip_bcast_topology(size_t bytes, int ranks, size_t segment_bytes, size_t max_message,
                                  const zip_bcast_model_t *model)
{
    if (bytes == 0 || ranks <= 2 || model == nullptr)
        return ZIP_BCAST_AUTO;
    // A block is one message, whose byte count the transport passes on as an int.
    const size_t block = (bytes + size_t(ranks) - 1) / size_t(ranks) + 7;
    if (block > size_t(INT_MAX) || (max_message != 0 && block > max_message))
        return ZIP_BCAST_AUTO;
    const double sag =
        zip_bcast_predict(ZIP_BCAST_SCATTER_ALLGATHER, bytes, ranks, segment_bytes, model);
    const double tree = zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, segment_bytes, model);
    return sag < tree ? ZIP_BCAST_SCATTER_ALLGATHER : ZIP_BCAST_AUTO;
}

extern "C" int zip_bcast_algorithm_parse(const char *name)
{
    if (name == nullptr || std::strcmp(name, "auto") == 0)
        return ZIP_BCAST_ALGORITHM_AUTO;
    if (std::strcmp(name, "chain") == 0)
        return ZIP_BCAST_ALGORITHM_CHAIN;
    if (std::strcmp(name, "scatter_allgather") == 0)
        return ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER;
    return -1;
}

extern "C" int zip_bcast_route_topology(int algorithm, const zip_algo_policy_t *policy,
                                        double configured_link_Bps, double latency_s, size_t bytes,
                                        int ranks, int ranks_per_node, size_t segment_bytes,
                                        size_t max_message)
{
    if (algorithm == ZIP_BCAST_ALGORITHM_CHAIN)
        return ZIP_BCAST_AUTO;
    if (algorithm == ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER)
        return ZIP_BCAST_SCATTER_ALLGATHER;
    zip_bcast_model_t model{};
    model.latency_s = latency_s;
    model.link_Bps = configured_link_Bps;
    model.ranks_per_node = ranks_per_node;
    if (policy != nullptr && policy->speeds.link_Bps > 0.0) {
        model.link_Bps = policy->speeds.link_Bps;
        model.compress_Bps = policy->speeds.compress_Bps;
        model.decompress_Bps = policy->speeds.decompress_Bps;
    }
    // The ratio is the sample's, which only the root will know: the model assumes none, which
    // favours the chain a little where compression would shorten both.
    model.ratio = 1.0;
    return zip_bcast_topology(bytes, ranks, segment_bytes, max_message, &model);
}
