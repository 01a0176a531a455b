// The bcast chain's segment chosen by the cost model (zip_bcast_chain_segment, zip_bcast_route):
// larger where most hops stay on a node, the rule's where every hop crosses a slow link, never
// below the rule's nor above the configured segment, the same for the same agreed values, and never
// predicted slower than the rule; and the chain runs with the planned segment.
#include <gtest/gtest.h>

#include <tuple>
#include <utility>
#include <vector>

#include "bcast.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

constexpr size_t kKiB = 1024, kMiB = size_t(1) << 20;
constexpr size_t kDefaultSegment = 49152; // coll_zip_segment_size

// The agreed values of ranks in nodes of `per_node` consecutive ranks (1: every rank on its own
// node) behind a `gbit` NIC, shared memory at 20 GB/s, a 4.8 / 8.4 GB/s codec.
zip_bcast_model_t agreed_model(double gbit, double latency_us, int per_node)
{
    zip_bcast_model_t m{};
    m.latency_s = latency_us * 1e-6;
    m.link_Bps = gbit * 1e9 / 8;
    m.compress_Bps = 4.8e9;
    m.decompress_Bps = 8.4e9;
    m.ratio = 1.0;
    m.ranks_per_node = per_node;
    m.local_link_Bps = per_node > 1 ? 20e9 : 0.0;
    m.chain_local_share = 1.0 - 1.0 / double(per_node);
    m.segment_by_model = 1;
    return m;
}

// The same values, and the chain's segment left to the rule.
zip_bcast_model_t rule_model(zip_bcast_model_t m)
{
    m.segment_by_model = 0;
    return m;
}

// The policy of a call with measured speeds (4.8 / 8.4 GB/s codec, a 10 Gbit/s link) and the
// agreed values of ranks in nodes of 32 behind it, with shared memory at 20 GB/s.
zip_algo_policy_t measured_policy()
{
    zip_algo_policy_t p{};
    p.speeds = {4.8e9, 8.4e9, 1.25e9, 0}; // compress, decompress, link
    return p;
}

zip_algo_agreed_t agreed_nodes_of_32()
{
    zip_algo_agreed_t a{};
    a.link_Bps[ZIP_PEER_LOCAL] = 20e9;
    a.link_Bps[ZIP_PEER_REMOTE] = 1.25e9;
    a.ranks_per_node = 32;
    a.chain_local_share = 31.0 / 32;
    return a;
}

// The plan of a bcast of `bytes` on `ranks` ranks in nodes of 32 behind 25 Gbit/s NICs at 2 us,
// with measured speeds.
zip_bcast_plan_t plan_in_nodes_of_32_at_25gbit(size_t bytes, int ranks)
{
    zip_algo_policy_t p = measured_policy();
    p.speeds.link_Bps = 25e9 / 8;
    zip_algo_agreed_t a = agreed_nodes_of_32();
    a.link_Bps[ZIP_PEER_REMOTE] = p.speeds.link_Bps;
    return zip_bcast_route(ZIP_BCAST_ALGORITHM_AUTO, &p, &a, 0.0, 2e-6, bytes, ranks,
                           kDefaultSegment, 0);
}

// A bcast of `data` from `root` on every rank of `w` with the given segments and topology:
// every rank's buffer and return code afterwards. The codec counts what the root compressed.
struct BcastRun {
    std::vector<std::vector<char>> bufs;
    std::vector<int> rc;
};

BcastRun bcast_on(World &w, int size, const std::vector<char> &data, int root, int tag,
                  size_t segment_bytes, size_t chain_segment, int topology, ToyCodec &codec)
{
    const zip_codec_ops_t ops = codec.ops();
    BcastRun out{
        std::vector<std::vector<char>>(size_t(size), std::vector<char>(data.size(), '\x5a')),
        std::vector<int>(size_t(size), -100)};
    out.bufs[size_t(root)] = data;
    w.run([&](int rank, const zip_transport_t &t) {
        zip_bcast_args_t a{};
        a.buf = out.bufs[size_t(rank)].data();
        a.bytes = data.size();
        a.root = root;
        a.tag = tag;
        a.elem_type = ZIP_ALGO_BYTES;
        a.try_compress = 1;
        a.segment_bytes = segment_bytes;
        a.chain_segment = chain_segment;
        a.topology = topology;
        zip_algo_result_t res{};
        out.rc[size_t(rank)] = zip_algo_bcast(&t, &ops, &a, &res);
    });
    return out;
}

} // namespace

TEST(CollAlgoBcastSegment, MostlyOnNodeHopsTakeLargerSegmentsThanTheRule)
{
    // 256 ranks in nodes of 32: 8 of the 255 hops cross a NIC. The rule cuts four segments per
    // rank (8 KiB), paying a latency per window of four on every crossing.
    const zip_bcast_model_t m = agreed_model(10, 30, 32);
    const size_t rule = zip_bcast_segment_bytes(4 * kMiB, 256, kDefaultSegment, 0.0);
    const size_t seg = zip_bcast_chain_segment(4 * kMiB, 256, kDefaultSegment, &m);
    EXPECT_EQ(rule, 8 * kKiB);
    EXPECT_GT(seg, rule);
    const zip_bcast_model_t by_rule = rule_model(m);
    EXPECT_LT(zip_bcast_predict(ZIP_BCAST_AUTO, 4 * kMiB, 256, kDefaultSegment, &m),
              zip_bcast_predict(ZIP_BCAST_AUTO, 4 * kMiB, 256, kDefaultSegment, &by_rule));
    // Nodes of 8 as well.
    const zip_bcast_model_t eight = agreed_model(10, 30, 8);
    EXPECT_GT(zip_bcast_chain_segment(4 * kMiB, 256, kDefaultSegment, &eight), rule);
}

TEST(CollAlgoBcastSegment, OneRankPerNodeOnASlowLinkKeepsTheRuleOrClose)
{
    for (double gbit : {1.0, 10.0}) {
        for (int ranks : {16, 64, 256}) {
            const zip_bcast_model_t m = agreed_model(gbit, 30, 1);
            const size_t rule = zip_bcast_segment_bytes(4 * kMiB, ranks, kDefaultSegment, 0.0);
            const size_t seg = zip_bcast_chain_segment(4 * kMiB, ranks, kDefaultSegment, &m);
            EXPECT_GE(seg, rule / 2) << gbit << " Gbit/s, " << ranks << " ranks";
            EXPECT_LE(seg, rule * 2) << gbit << " Gbit/s, " << ranks << " ranks";
        }
    }
}

// Between the rule's segment (the model prices no messages, so it only makes fewer) and the
// configured one.
TEST(CollAlgoBcastSegment, NeverBelowTheRuleNorAboveTheConfiguredSegment)
{
    const zip_bcast_model_t m = agreed_model(10, 30, 32);
    for (size_t cap : {size_t(1000), size_t(4096), size_t(12000), kDefaultSegment, kMiB}) {
        for (int ranks : {2, 8, 64, 256}) {
            for (size_t bytes : {64 * kKiB, kMiB, 4 * kMiB, 64 * kMiB}) {
                const size_t seg = zip_bcast_chain_segment(bytes, ranks, cap, &m);
                EXPECT_LE(seg, zipcoll::segment_cap(cap)) << cap << " " << ranks << " " << bytes;
                EXPECT_GE(seg, zip_bcast_segment_bytes(bytes, ranks, cap, 0.0))
                    << cap << " " << ranks << " " << bytes;
                EXPECT_EQ(seg % 8, 0u) << cap << " " << ranks << " " << bytes;
                EXPECT_GE(seg, 8u);
            }
        }
    }
    // The plan caps at the transport's largest message too.
    zip_algo_policy_t p{};
    p.speeds = {4.8e9, 8.4e9, 1.25e9, 0}; // compress, decompress, link
    zip_algo_agreed_t a{};
    a.link_Bps[ZIP_PEER_LOCAL] = 20e9;
    a.ranks_per_node = 32;
    a.chain_local_share = 31.0 / 32;
    const zip_bcast_plan_t plan =
        zip_bcast_route(ZIP_BCAST_ALGORITHM_CHAIN, &p, &a, 0.0, 30e-6, 4 * kMiB, 256, kMiB, 12000);
    EXPECT_GT(plan.chain_segment, 0u);
    EXPECT_LE(plan.chain_segment, 12000u);
}

// Every rank computes the segment itself, and a receiver posts each segment at its raw length:
// ranks that cut different segments would misread every message. The choice therefore depends on
// the agreed values alone, and the same values give the same segment.
TEST(CollAlgoBcastSegment, TheSameAgreedValuesGiveTheSameSegment)
{
    for (int per_node : {1, 4, 32}) {
        for (int ranks : {32, 128, 256}) {
            const zip_bcast_model_t a = agreed_model(10, 30, per_node);
            const zip_bcast_model_t b = agreed_model(10, 30, per_node);
            EXPECT_EQ(zip_bcast_chain_segment(4 * kMiB, ranks, kDefaultSegment, &a),
                      zip_bcast_chain_segment(4 * kMiB, ranks, kDefaultSegment, &b));
        }
    }
    const zip_algo_policy_t p = measured_policy();
    const zip_algo_agreed_t agreed = agreed_nodes_of_32();
    std::vector<zip_bcast_plan_t> plans;
    for (int rank = 0; rank < 4; ++rank) {
        const zip_algo_agreed_t mine = agreed; // each rank's own copy of the agreed values
        plans.push_back(zip_bcast_route(ZIP_BCAST_ALGORITHM_AUTO, &p, &mine, 0.0, 30e-6, 4 * kMiB,
                                        256, kDefaultSegment, 0));
    }
    for (const auto &plan : plans) {
        EXPECT_EQ(plan.topology, plans[0].topology);
        EXPECT_EQ(plan.chain_segment, plans[0].chain_segment);
    }
    EXPECT_EQ(plans[0].topology, ZIP_BCAST_AUTO);
    EXPECT_GT(plans[0].chain_segment, zip_bcast_segment_bytes(4 * kMiB, 256, kDefaultSegment, 0.0));
}

// Where the rule leaves about one segment per rank and 31 of 32 hops stay on a node, the chain
// of fewer, larger segments fills in about a microsecond per hop; AUTO would run those as the
// binomial tree, so the plan names the chain (simulated, 256 ranks in nodes of 32 at 10 Gbit/s,
// 1 MiB: the rule's 4 KiB segments 2419 us, tuned's best 1740).
TEST(CollAlgoBcastSegment, FewerSegmentsThanRanksRunAsTheChainWhereHopsStayOnANode)
{
    const zip_algo_policy_t p = measured_policy();
    zip_algo_agreed_t a = agreed_nodes_of_32();
    for (const auto &[bytes, ranks] : {std::pair{kMiB, 256}, std::pair{4 * kMiB, 2048}}) {
        const zip_bcast_plan_t plan = zip_bcast_route(ZIP_BCAST_ALGORITHM_AUTO, &p, &a, 0.0, 30e-6,
                                                      bytes, ranks, kDefaultSegment, 0);
        EXPECT_EQ(plan.topology, ZIP_BCAST_CHAIN) << ranks;
        EXPECT_GT(plan.chain_segment, zip_bcast_segment_bytes(bytes, ranks, kDefaultSegment, 0.0));
        EXPECT_LT((bytes + plan.chain_segment - 1) / plan.chain_segment, size_t(ranks));
        const zip_bcast_model_t m = agreed_model(10, 30, 32);
        const zip_bcast_model_t by_rule = rule_model(m);
        EXPECT_LT(zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, kDefaultSegment, &m),
                  0.8 * zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, kDefaultSegment, &by_rule))
            << ranks;
    }
    // One rank per node: every hop pays the latency, and the plan never names the chain for
    // fewer segments than ranks where the tree or the rule's chain is predicted faster.
    a.ranks_per_node = 1;
    a.chain_local_share = 0.0;
    for (int ranks : {64, 256, 1024}) {
        const zip_bcast_plan_t plan = zip_bcast_route(ZIP_BCAST_ALGORITHM_AUTO, &p, &a, 0.0, 30e-6,
                                                      64 * kKiB, ranks, kDefaultSegment, 0);
        EXPECT_NE(plan.topology, ZIP_BCAST_CHAIN) << ranks;
    }
}

// 2 nodes of 32 at 25 Gbit/s, 256 KiB: the rule's 4 KiB chain pays 62 on-node hops of a
// microsecond each before it streams; the binomial tree of 8 KiB segments crosses the NIC on one
// level and copies on five, and the NIC and the copies move a segment at the same time, so its
// root moves a segment in one NIC transfer (simulated: the chain 127 us, tuned's tree of 8 KiB
// 90 us). Priced as their sum, the tree lost to the chain.
TEST(CollAlgoBcastSegment, ATreeWhoseCopiesOnTheNodeOverlapItsNicBeatsALongChain)
{
    const size_t bytes = 256 * kKiB;
    const int ranks = 64;
    const zip_bcast_plan_t plan = plan_in_nodes_of_32_at_25gbit(bytes, ranks);
    const size_t rule = zip_bcast_segment_bytes(bytes, ranks, kDefaultSegment, 0.0);
    EXPECT_EQ(rule, 4 * kKiB);
    EXPECT_GT(plan.chain_segment, rule);
    // Fewer segments than ranks: AUTO runs them as the tree.
    EXPECT_EQ(plan.topology, ZIP_BCAST_AUTO);
    EXPECT_LT((bytes + plan.chain_segment - 1) / plan.chain_segment, size_t(ranks));
    // Priced at the longer of the NIC's and the copies' share per segment: about one NIC
    // transfer of a segment per segment, 32 of them, and the fill.
    const zip_bcast_model_t m = agreed_model(25, 2, 32);
    const double nic = double(plan.chain_segment) / (25e9 / 8);
    EXPECT_LT(zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, kDefaultSegment, &m), 40.0 * nic);
}

// Where the wire is fast and the segments small, the messages are what a pipeline waits on: the
// root of a binomial tree sends each segment log2 P times from its one core. 256 ranks in nodes
// of 32 at 25 Gbit/s, 256 KiB: the rule's 2 KiB segments make the root send 1024 messages, and
// at a microsecond each (simscale --message-cpu 1us) the tree took 1127 us against tuned's tree
// of 32 KiB segments, 381.
TEST(CollAlgoBcastSegment, WhereMessagesCostMoreThanTheirBytesSegmentsGrow)
{
    const size_t bytes = 256 * kKiB;
    const size_t rule = zip_bcast_segment_bytes(bytes, 256, kDefaultSegment, 0.0);
    EXPECT_EQ(rule, 2 * kKiB);
    const zip_bcast_plan_t plan = plan_in_nodes_of_32_at_25gbit(bytes, 256);
    EXPECT_GE(plan.chain_segment, 16 * kKiB);
    // The messages alone: the rule's tree sends 128 segments 8 times from the root.
    const zip_bcast_model_t by_rule = rule_model(agreed_model(25, 2, 32));
    const double message = double(ZIP_BCAST_MESSAGE_COST_NS) * 1e-9;
    EXPECT_GT(zip_bcast_predict(ZIP_BCAST_AUTO, bytes, 256, kDefaultSegment, &by_rule),
              127 * 8 * message);
}

// The topologies the plan may name where AUTO would run the other: a chain of fewer segments
// than ranks, a binomial tree of more; each delivers every byte from every root, each segment
// compressed once.
TEST(CollAlgoBcastSegment, ANamedTopologyDeliversEveryByteWhateverItsSegments)
{
    const int size = 7;
    World w(size);
    const size_t bytes = 300017;
    const auto data = algotest::make_data(bytes, true, 23);
    // (topology, segment): three segments for seven ranks, then 74.
    for (const auto &[topology, seg] : {std::pair{int(ZIP_BCAST_CHAIN), size_t(131072)},
                                        std::pair{int(ZIP_BCAST_BINOMIAL), size_t(4096)}}) {
        for (int root : {0, 4}) {
            ToyCodec codec;
            const BcastRun o = bcast_on(w, size, data, root, 9, seg, seg, topology, codec);
            for (int r = 0; r < size; ++r) {
                ASSERT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK) << r;
                ASSERT_TRUE(o.bufs[size_t(r)] == data)
                    << "rank " << r << " root " << root << " topology " << topology;
            }
            EXPECT_EQ(codec.compressions.load(), (bytes + seg - 1) / seg) << topology;
            ASSERT_EQ(w.unreceived(), 0u);
        }
    }
}

TEST(CollAlgoBcastSegment, NeverPredictedSlowerThanTheRule)
{
    for (double gbit : {1.0, 10.0, 100.0}) {
        for (double latency_us : {2.0, 30.0}) {
            for (int per_node : {1, 8, 32}) {
                for (int ranks : {2, 8, 32, 64, 256}) {
                    for (size_t bytes : {16 * kKiB, 256 * kKiB, kMiB, 4 * kMiB, 32 * kMiB}) {
                        const zip_bcast_model_t m = agreed_model(gbit, latency_us, per_node);
                        const zip_bcast_model_t by_rule = rule_model(m);
                        EXPECT_LE(
                            zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, kDefaultSegment, &m),
                            zip_bcast_predict(ZIP_BCAST_AUTO, bytes, ranks, kDefaultSegment,
                                              &by_rule))
                            << gbit << " Gbit/s " << latency_us << " us " << per_node
                            << " per node " << ranks << " ranks " << bytes << " bytes";
                    }
                }
            }
        }
    }
}

TEST(CollAlgoBcastSegment, UnknownSpeedsKeepTheRule)
{
    // Policy always agrees no speeds: the plan leaves the segment to the rule (0).
    zip_algo_agreed_t a{};
    a.link_Bps[ZIP_PEER_LOCAL] = 20e9;
    a.ranks_per_node = 32;
    a.chain_local_share = 31.0 / 32;
    EXPECT_EQ(zip_bcast_route(ZIP_BCAST_ALGORITHM_AUTO, nullptr, &a, 1.25e9, 30e-6, 4 * kMiB, 256,
                              kDefaultSegment, 0)
                  .chain_segment,
              0u);
    const zip_algo_policy_t always{};
    EXPECT_EQ(zip_bcast_route(ZIP_BCAST_ALGORITHM_CHAIN, &always, nullptr, 0.0, 30e-6, 4 * kMiB,
                              256, kDefaultSegment, 0)
                  .chain_segment,
              0u);
    const zip_bcast_model_t m = rule_model(agreed_model(10, 30, 32));
    EXPECT_EQ(zip_bcast_chain_segment(4 * kMiB, 256, kDefaultSegment, &m),
              zip_bcast_segment_bytes(4 * kMiB, 256, kDefaultSegment, 0.0));
    EXPECT_EQ(zip_bcast_chain_segment(4 * kMiB, 256, kDefaultSegment, nullptr),
              zip_bcast_segment_bytes(4 * kMiB, 256, kDefaultSegment, 0.0));
}

// Only hops the agreed locality vouches for count as on a node: with ranks spread round robin
// (no consecutive pair on one node) or no local link measured, every hop is one between nodes,
// as the model had it before it knew nodes.
TEST(CollAlgoBcastSegment, HopsCountAsLocalOnlyWhereTheLocalityAgreedSays)
{
    zip_bcast_model_t blocks = agreed_model(10, 30, 32);
    zip_bcast_model_t round_robin = blocks;
    round_robin.chain_local_share = 0.0;
    zip_bcast_model_t no_local_link = blocks;
    no_local_link.local_link_Bps = 0.0;
    const zip_bcast_model_t all_remote = agreed_model(10, 30, 1);
    const double t_remote =
        zip_bcast_predict(ZIP_BCAST_CHAIN, 4 * kMiB, 256, kDefaultSegment, &all_remote);
    EXPECT_DOUBLE_EQ(
        zip_bcast_predict(ZIP_BCAST_CHAIN, 4 * kMiB, 256, kDefaultSegment, &round_robin), t_remote);
    EXPECT_DOUBLE_EQ(
        zip_bcast_predict(ZIP_BCAST_CHAIN, 4 * kMiB, 256, kDefaultSegment, &no_local_link),
        t_remote);
    EXPECT_LT(zip_bcast_predict(ZIP_BCAST_CHAIN, 4 * kMiB, 256, kDefaultSegment, &blocks),
              0.6 * t_remote);
    // Every hop between nodes, free codec: P - 1 hops of α + s/β and a message's cost at each
    // end, then a stage per segment.
    zip_bcast_model_t m{};
    m.latency_s = 10e-6;
    m.link_Bps = 1e9;
    m.segment_by_model = 0;
    const double s = double(zip_bcast_segment_bytes(kMiB, 8, kDefaultSegment, 0.0)); // 32 KiB
    const double message = double(ZIP_BCAST_MESSAGE_COST_NS) * 1e-9;
    EXPECT_NEAR(zip_bcast_predict(ZIP_BCAST_CHAIN, kMiB, 8, kDefaultSegment, &m),
                7 * (10e-6 + s / 1e9 + 2 * message) + (double(kMiB) / s - 1) * s / 1e9, 1e-12);
    // A link without latency or transfer time: a stage is a rank's receive and send of a segment.
    m.link_Bps = 1e15;
    m.latency_s = 0.0;
    EXPECT_NEAR(zip_bcast_predict(ZIP_BCAST_CHAIN, kMiB, 8, kDefaultSegment, &m),
                7 * (s / 1e15 + 2 * message) + (double(kMiB) / s - 1) * 2 * message, 1e-12);
}

// The chain cuts the planned segment on every rank (capped by segment_bytes, whole doubles): the
// root compresses each segment once, so its codec counts them.
TEST(CollAlgoBcastSegment, TheChainRunsWithThePlannedSegment)
{
    const int size = 5;
    World w(size);
    const size_t bytes = 300017; // no last segment of one byte, which is never compressed
    const auto data = algotest::make_data(bytes, true, 17);
    // (chain_segment, segment_bytes, the segment cut)
    for (const auto &[planned, largest, expect] :
         {std::tuple{size_t(4096), size_t(262144), size_t(4096)},
          std::tuple{size_t(20000 + 3), size_t(262144), size_t(20000)},
          std::tuple{size_t(65536), size_t(16384), size_t(16384)}}) {
        const size_t chain_segment = planned, segment_bytes = largest, cut = expect;
        for (int root : {0, 3}) {
            ToyCodec codec;
            const BcastRun o = bcast_on(w, size, data, root, 7, segment_bytes, chain_segment,
                                        ZIP_BCAST_AUTO, codec);
            for (int r = 0; r < size; ++r) {
                ASSERT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK) << r;
                ASSERT_TRUE(o.bufs[size_t(r)] == data) << "rank " << r << " segment " << cut;
            }
            EXPECT_EQ(codec.compressions.load(), (bytes + cut - 1) / cut) << cut;
            ASSERT_EQ(w.unreceived(), 0u);
        }
    }
}
