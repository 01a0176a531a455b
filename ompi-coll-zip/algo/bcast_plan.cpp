// The bcast cost model: predicted time of the chain (or binomial tree) and of the
// scatter-allgather, and the choice between them. The formulas are in docs/design.md
// ("Choosing the topology"); the symbols below follow it.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "bcast.hpp"
#include "chain_model.hpp"
#include "zip_algo.h"

namespace
{

using zipcoll::chain_model::kDefaultLinkBps;
using zipcoll::chain_model::kLocalLatency;
using zipcoll::chain_model::kMessageCost;
using zipcoll::chain_model::local_hops;
using zipcoll::chain_model::Model;
using zipcoll::chain_model::step_count;

// The chain segments the model weighs besides the rule's (zip_bcast_segment_bytes): 8-256 KiB in
// steps of about 1.5x, all whole doubles.
constexpr size_t kChainSegments[] = {8192,  12288, 16384,  24576,  32768, 49152,
                                     65536, 98304, 131072, 196608, 262144};

// How much faster than the rule's segment another must be predicted to be taken.
constexpr double kClearlyFaster = 0.9;

// The scatter-allgather's chunk (zip_bcast_sag_chunk): the smallest whose wire takes as long as
// kSagChunkMessages messages cost their ends beside their bytes, a message costing about a
// microsecond on InfiniBand (docs/scale.md, "Cost per message"), and at least 8 KiB. Smaller
// chunks are forwarded sooner after the scatter delivered their blocks (simscale, 64 and 256
// ranks one per node, 256 KiB-1 MiB: the smaller the chunk the faster, down to 8 KiB, at 1, 10
// and 25 Gbit/s); with a microsecond per message, chunks of 8 KiB lost to 32 KiB at 25 Gbit/s
// (256 ranks, 256 KiB of random data: 0.44x against 0.62x of tuned's best).
constexpr double kSagChunkMessages = 8.0;
constexpr size_t kSmallestSagChunk = 8192;

// A rank of the bcast chain receives, codes and sends each segment on its one core; it decodes
// what it keeps and forwards the frame as it came, so the slower of the two codings.
double chain_time(const Model &m, double N, int P, double seg)
{
    const double core = std::max(m.coding(seg, m.C), m.coding(seg, m.D)) + 2.0 * kMessageCost;
    return zipcoll::chain_model::chain_time(m, N, P, seg, core, double(zipcoll::kChainRecvWindow));
}

// A binomial tree of S segments, L = ceil(log2 P) levels: the root sends every segment L times.
// Ranks placed in nodes of k keep the lowest floor(log2 k) levels (children at virtual distance
// below k) on a node where the agreed locality vouches for it (as for the chain: a local link
// and a share of on-node neighbours); the others cross the root's NIC. The NIC and the on-node
// copies move a segment at the same time, so the root's stage is the longer of the two, not
// their sum (simulated, 64 ranks in nodes of 32 at 25 Gbit/s, 256 KiB: the sum priced tuned's
// tree of 8 KiB segments at 144 us, which took 90, and kept the chain of 4 KiB, 127). A non-root
// keeps the chain's receive window, so a level moves at most W segments per latency. (Simulated, 64
// ranks in nodes of 32 at 10 Gbit/s, 64 KiB: every level costed as one between nodes and no window,
// the model put 2 KiB segments at 101 us against the chain's 184; they took 256.)
double binomial_time(const Model &m, double N, int P, double seg)
{
    const double S = std::ceil(N / seg), L = step_count(P);
    const double local =
        local_hops(m, P) > 0 ? std::min(L, std::floor(std::log2(double(m.k)) + 1e-9)) : 0.0;
    const double remote = L - local;
    const double W = double(zipcoll::kChainRecvWindow);
    const double remote_hop = m.alpha + m.wire(seg) + 2.0 * kMessageCost;
    const double local_hop =
        local > 0.0 ? kLocalLatency + m.wire_local(seg) + 2.0 * kMessageCost : 0.0;
    const double root_sends =
        std::max(remote * m.wire(seg), local > 0.0 ? local * m.wire_local(seg) : 0.0);
    // The root codes each segment and sends it L times on its one core.
    const double root_core = std::max(m.coding(seg, m.C), m.coding(seg, m.D)) + L * kMessageCost;
    double stage = std::max(root_sends, root_core);
    if (remote > 0.0)
        stage = std::max(stage, remote_hop / W);
    if (local > 0.0)
        stage = std::max(stage, local_hop / W);
    return remote * remote_hop + local * local_hop + (S - 1.0) * stage;
}

// The messages a non-root of the scatter-allgather sends and receives in the allgather
// (bcast_sag.cpp): a message per block and step, or with blocks of at most half a chunk, two per
// piece: steps d < K one piece each, then each of the other chunks, received once and sent about
// as often.
double sag_messages(double N, int Q, size_t chunk)
{
    const int K = zipcoll::sag_chunk_offsets(size_t(std::ceil(N / double(Q))), chunk);
    if (K < 2 || Q <= 2)
        return 2.0 * double(Q - 1);
    const double pieces =
        step_count(std::min(K, Q)) + std::max(0.0, std::ceil(double(Q) / double(K)) - 1.0);
    return 4.0 * pieces;
}

// The scatter from the root alone: it codes and sends Q = P - 1 blocks, each byte once over its
// link, a message each.
double flat_scatter_time(const Model &m, double N, int P)
{
    return std::max(m.coding(N, m.C) + double(P - 1) * kMessageCost, m.alpha + m.wire(N));
}

// Down the binomial tree (bcast_sag.cpp): the root codes the largest subtree's half before it
// sends it, and that half travels on in halves, ceil(log2 P) hops each a latency and two
// messages (the lengths, the wires) at either end, the bytes about the whole message's wire;
// the root codes the rest while it sends.
double tree_scatter_time(const Model &m, double N, int P)
{
    return std::max(m.coding(N / 2.0, m.C) + m.wire(N), m.coding(N, m.C)) +
           step_count(P) * (m.alpha + 4.0 * kMessageCost);
}

// Whether the tree's largest subtree, half the blocks, is one message.
bool sag_tree_fits(size_t bytes, int P, size_t max_message)
{
    if (P < 3)
        return false;
    const size_t block = (bytes + size_t(P - 1) - 1) / size_t(P - 1) + 7;
    const size_t half = block * size_t(P / 2);
    return half <= size_t(INT_MAX) && (max_message == 0 || half <= max_message);
}

// Whether the scatter runs down the tree: where it fits and is predicted faster than the
// root's Q messages.
bool sag_tree_pays(const Model &m, size_t bytes, int P, size_t max_message)
{
    return sag_tree_fits(bytes, P, max_message) &&
           tree_scatter_time(m, double(bytes), P) < flat_scatter_time(m, double(bytes), P);
}

// Scatter: flat or down the tree, whichever is faster (sag_tree_pays); Bruck allgather among the
// Q = P - 1 others: ceil(log2 Q) steps, each rank receiving the Q - 1 blocks it
// lacks once and decoding each, and the last one after it arrives. In the allgather the k
// ranks of a node all receive at once, nearly everything from other nodes, through the node's
// one NIC, where the chain moves one flow per node (simulated, 256 ranks in nodes of 32 at
// 10 Gbit/s: the scatter-allgather chosen without this factor took 89 ms, the chain 4.8).
double sag_time(const Model &m, size_t bytes, int P, size_t max_message)
{
    const double N = double(bytes);
    const int Q = P - 1;
    const double others = N * double(Q - 1) / double(Q);
    const double share = std::max(1.0, double(m.k) * double(P - m.k) / double(P - 1));
    const double scatter = sag_tree_pays(m, bytes, P, max_message) ? tree_scatter_time(m, N, P)
                                                                   : flat_scatter_time(m, N, P);
    const double gather =
        std::max(step_count(Q) * m.alpha + share * m.wire(others), m.coding(N, m.D)) +
        sag_messages(N, Q, zip_bcast_sag_chunk(m.beta)) * kMessageCost;
    return scatter + gather + m.coding(N / double(Q), m.D);
}

// What the pipeline runs with segment `seg`: the chain, or for topology AUTO with fewer segments
// than ranks the binomial tree (bcast_algo.cpp).
double pipeline_time(const Model &m, size_t bytes, int P, size_t seg, int topology)
{
    const bool chain = topology == ZIP_BCAST_CHAIN ||
                       (topology == ZIP_BCAST_AUTO && (bytes + seg - 1) / seg >= size_t(P));
    return chain ? chain_time(m, double(bytes), P, double(seg))
                 : binomial_time(m, double(bytes), P, double(seg));
}

// The segmented pipeline a plan runs: its segment, the topology it must name (AUTO where that
// runs it: the chain with at least as many segments as ranks, else the binomial tree), and its
// predicted time.
struct Pipeline {
    size_t seg;
    int topology;
    double t;
};

// The rule's segment and topology, or with agreed speeds the larger segment and topology the
// model predicts strictly faster. A chain may then have fewer segments than ranks: with 32
// ranks per node, 31 of 32 hops are on a node and cost about a microsecond, so filling even a
// chain of 256 ranks is cheaper than the binomial tree the rule's segment would run, whose root
// sends each segment log2 P times, and a tree of larger segments needs fewer latencies per byte
// (simulated, 256 ranks in nodes of 32 at 10 Gbit/s, 1 MiB: the rule's 4 KiB segments 2419 us,
// tuned's pipeline of 32 KiB segments 1740; 64 ranks, 64 KiB: the rule's 2 KiB tree 256 us,
// tuned's binomial tree of 32 KiB segments 92).
Pipeline best_pipeline(const Model &m, size_t bytes, int P, size_t largest, bool by_model)
{
    const size_t rule = zip_bcast_segment_bytes(bytes, P, largest, m.ranks_per_core);
    const Pipeline by_rule{rule, ZIP_BCAST_AUTO, pipeline_time(m, bytes, P, rule, ZIP_BCAST_AUTO)};
    if (!by_model)
        return by_rule;
    Pipeline best{0, ZIP_BCAST_AUTO, by_rule.t};
    const size_t cap = zipcoll::segment_cap(largest);
    for (size_t seg : kChainSegments) {
        // Only larger segments than the rule's: the model knows no cost per message (a send and
        // a receive on each rank, a frame, a codec call), which the rule's floor and the default
        // segment were measured against (netemu, 8 ranks on 2 cores: 48 KiB segments 30 ms,
        // 32 KiB 36), so a smaller segment's shorter fill it would buy with messages it cannot
        // price.
        if (seg <= rule || seg > cap)
            continue;
        const bool auto_chain = (bytes + seg - 1) / seg >= size_t(P);
        for (int topology : {ZIP_BCAST_CHAIN, ZIP_BCAST_BINOMIAL}) {
            const double t = pipeline_time(m, bytes, P, seg, topology);
            if (t < best.t) {
                const bool is_auto = (topology == ZIP_BCAST_CHAIN) == auto_chain;
                best = Pipeline{seg, is_auto ? int(ZIP_BCAST_AUTO) : topology, t};
            }
        }
    }
    // The model assumes no compression (only the root's sample knows the ratio), and a ratio
    // shortens the wire terms more than the latencies, so of two close predictions the one with
    // more segments and fewer latencies may be the faster on compressible data: the rule stays
    // unless another is predicted clearly faster (simulated, 256 ranks in nodes of 32 at
    // 1 Gbit/s, 64 KiB that shrink 2x: the rule's 2 KiB tree, predicted 8 % slower than a chain of
    // 8 KiB, 1.60x of tuned's best; that chain 1.44x).
    return best.seg != 0 && best.t < kClearlyFaster * by_rule.t ? best : by_rule;
}

// The scatter-allgather needs three ranks and a block that is one message, whose byte count the
// transport passes on as an int.
bool sag_fits(size_t bytes, int ranks, size_t max_message)
{
    if (bytes == 0 || ranks <= 2)
        return false;
    const size_t block = (bytes + size_t(ranks) - 1) / size_t(ranks) + 7;
    return block <= size_t(INT_MAX) && (max_message == 0 || block <= max_message);
}

// Whether the scatter-allgather fits and is predicted faster than pipeline p.
bool sag_beats(const Model &m, size_t bytes, int ranks, size_t max_message, const Pipeline &p)
{
    return sag_fits(bytes, ranks, max_message) && sag_time(m, bytes, ranks, max_message) < p.t;
}

} // namespace

extern "C" size_t zip_bcast_chain_segment(size_t bytes, int ranks, size_t largest,
                                          const zip_bcast_model_t *model)
{
    // Every rank runs this on the same agreed values with the same arithmetic, so all pick the
    // same segment; the rule stays unless another is clearly faster, so that a tie cannot go
    // different ways.
    if (bytes == 0 || ranks <= 1 || model == nullptr || model->segment_by_model == 0)
        return zip_bcast_segment_bytes(bytes, ranks, largest,
                                       model != nullptr ? model->ranks_per_core : 0.0);
    return best_pipeline(Model(*model), bytes, ranks, largest, true).seg;
}

extern "C" double zip_bcast_predict(int topology, size_t bytes, int ranks, size_t segment_bytes,
                                    const zip_bcast_model_t *model)
{
    if (bytes == 0 || ranks <= 1 || model == nullptr)
        return 0.0;
    const Model m(*model);
    if (topology == ZIP_BCAST_SCATTER_ALLGATHER)
        return sag_time(m, bytes, ranks, 0);
    const Pipeline p = best_pipeline(m, bytes, ranks, segment_bytes, model->segment_by_model != 0);
    return topology == ZIP_BCAST_AUTO ? p.t : pipeline_time(m, bytes, ranks, p.seg, topology);
}

extern "C" int zip_bcast_topology(size_t bytes, int ranks, size_t segment_bytes, size_t max_message,
                                  const zip_bcast_model_t *model)
{
    if (model == nullptr || !sag_fits(bytes, ranks, max_message))
        return ZIP_BCAST_AUTO;
    const Model m(*model);
    const Pipeline p = best_pipeline(m, bytes, ranks, segment_bytes, model->segment_by_model != 0);
    return sag_beats(m, bytes, ranks, max_message, p) ? ZIP_BCAST_SCATTER_ALLGATHER
                                                      : ZIP_BCAST_AUTO;
}

extern "C" int zip_bcast_algorithm_parse(const char *name)
{
    if (name == nullptr || std::strcmp(name, "auto") == 0)
        return ZIP_BCAST_ALGORITHM_AUTO;
    if (std::strcmp(name, "chain") == 0)
        return ZIP_BCAST_ALGORITHM_CHAIN;
    if (std::strcmp(name, "scatter_allgather") == 0)
        return ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER;
    if (std::strcmp(name, "scatter_allgather_flat") == 0)
        return ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_FLAT;
    if (std::strcmp(name, "scatter_allgather_tree") == 0)
        return ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_TREE;
    return -1;
}

extern "C" zip_bcast_plan_t zip_bcast_route(int algorithm, const zip_algo_policy_t *policy,
                                            const zip_algo_agreed_t *agreed,
                                            double configured_link_Bps, double latency_s,
                                            size_t bytes, int ranks, size_t segment_bytes,
                                            size_t max_message)
{
    return zip_bcast_route_seen(algorithm, policy, agreed, configured_link_Bps, latency_s, bytes,
                                ranks, segment_bytes, max_message, 0.0);
}

extern "C" zip_bcast_plan_t zip_bcast_route_seen(int algorithm, const zip_algo_policy_t *policy,
                                                 const zip_algo_agreed_t *agreed,
                                                 double configured_link_Bps, double latency_s,
                                                 size_t bytes, int ranks, size_t segment_bytes,
                                                 size_t max_message, double seen_ratio)
{
    zip_bcast_model_t model{};
    model.latency_s = latency_s;
    model.link_Bps = configured_link_Bps;
    if (agreed != nullptr) {
        model.ranks_per_node = agreed->ranks_per_node;
        model.local_link_Bps = agreed->link_Bps[ZIP_PEER_LOCAL];
        model.chain_local_share = agreed->chain_local_share;
        model.ranks_per_core = agreed->ranks_per_core;
    }
    if (policy != nullptr && policy->speeds.link_Bps > 0.0) {
        model.link_Bps = policy->speeds.link_Bps;
        model.compress_Bps = policy->speeds.compress_Bps;
        model.decompress_Bps = policy->speeds.decompress_Bps;
        // Measured and agreed speeds: the model may choose the chain's segment. Without them
        // (policy always) it could only guess, and the rule stays.
        model.segment_by_model = 1;
    }
    // The sample's ratio only the root will know; what the last calls achieved all ranks do.
    // Without it the model assumes none, which favours the chain a little where compression
    // would shorten both, and the flat scatter where messages cost more than the shrunk wire.
    model.ratio = seen_ratio > 1.0 ? seen_ratio : 1.0;
    const size_t largest = max_message != 0 ? std::min(segment_bytes, max_message) : segment_bytes;
    // One pipeline choice serves both the topology and the segment (a bcast plans every call).
    const Model m(model);
    const Pipeline p = best_pipeline(m, bytes, ranks, largest, model.segment_by_model != 0);
    zip_bcast_plan_t plan{};
    const bool forced_sag = algorithm == ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER ||
                            algorithm == ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_FLAT ||
                            algorithm == ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_TREE;
    if (forced_sag ||
        (algorithm == ZIP_BCAST_ALGORITHM_AUTO && sag_beats(m, bytes, ranks, max_message, p)))
        plan.topology = ZIP_BCAST_SCATTER_ALLGATHER;
    else
        plan.topology = ZIP_BCAST_AUTO;
    if (plan.topology != ZIP_BCAST_SCATTER_ALLGATHER && model.segment_by_model) {
        plan.chain_segment = p.seg;
        plan.topology = p.topology;
    }
    // The scatter-allgather's root judges its sample as an exchange (bcast_sag.cpp). Where that
    // can never compress, zip's path is its scatter-allgather raw, which tuned's outruns where
    // messages cost most next to the wire (simscale, 256 ranks one per node, 1 MiB, a
    // microsecond per message: 250 us against tuned's 231 at 100 Gbit/s; 697 against 733 at
    // 25): the model sees neither, and a call zip cannot speed up goes to tuned.
    if (plan.topology == ZIP_BCAST_SCATTER_ALLGATHER && !forced_sag && policy != nullptr &&
        policy->mode == ZIP_POLICY_AUTO && policy->speeds.link_Bps > 0.0 &&
        zip_policy_decide(ZIP_POLICY_AUTO, &policy->speeds, bytes, 0, 0.0, ZIP_TRANSFER_EXCHANGE) ==
            ZIP_VERDICT_LINK_FASTER) {
        // With a ratio seen, the pipeline, whose coding overlaps its wire, may still compress
        // and beat tuned's scatter-allgather (taken as zip's raw): it runs where the model says
        // so (simscale, 256 ranks in nodes of 32 at 100 Gbit/s, LULESH's 1 MiB of ratio 50:
        // the chain 257 us, handed on 401).
        zip_bcast_model_t raw_model = model;
        raw_model.ratio = 1.0;
        if (model.ratio > 1.0 && model.segment_by_model &&
            zip_policy_decide(ZIP_POLICY_AUTO, &policy->speeds, bytes, 0, 0.0,
                              ZIP_TRANSFER_PIPELINED) == ZIP_VERDICT_COMPRESS &&
            p.t < sag_time(Model(raw_model), bytes, ranks, max_message)) {
            plan.topology = p.topology;
            plan.chain_segment = p.seg;
        } else {
            plan.hand_on = 1;
        }
    }
    if (plan.topology == ZIP_BCAST_SCATTER_ALLGATHER) {
        plan.sag_chunk = zip_bcast_sag_chunk(m.beta);
        if (algorithm == ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_TREE)
            plan.sag_tree = sag_tree_fits(bytes, ranks, max_message) ? 1 : 0;
        else if (algorithm != ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_FLAT)
            plan.sag_tree = sag_tree_pays(m, bytes, ranks, max_message) ? 1 : 0;
    }
    return plan;
}

extern "C" size_t zip_bcast_sag_chunk(double link_Bps)
{
    const double beta = link_Bps > 0.0 ? link_Bps : kDefaultLinkBps;
    const double wanted = beta * kSagChunkMessages * kMessageCost;
    size_t chunk = kSmallestSagChunk;
    while (chunk < size_t(ZIP_BCAST_SAG_CHUNK) && double(chunk) < wanted)
        chunk *= 2;
    return chunk;
}
