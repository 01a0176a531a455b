// coll/zip's routing from agreed speeds (zip_algo_route, algo/route.cpp): which calls take
// zip's path, with which transfer shape and link rate, and the observe shares.
#include <gtest/gtest.h>

#include "zip_algo.h"

namespace
{

// A codec of 1 GB/s both ways; a link of `remote` bytes/s off the node, `local` on it.
zip_algo_agreed_t agreed(double remote, double local = 10e9, int ranks_per_node = 1)
{
    zip_algo_agreed_t a{};
    a.link_Bps[ZIP_PEER_LOCAL] = local;
    a.link_Bps[ZIP_PEER_REMOTE] = remote;
    a.compress_Bps = 1e9;
    a.decompress_Bps = 1e9;
    a.ranks_per_node = ranks_per_node;
    return a;
}

// a with a codec of `compress` / `decompress` bytes/s, the decoder timed on the data or not.
zip_algo_agreed_t with_codec(zip_algo_agreed_t a, double compress, double decompress, bool timed)
{
    a.compress_Bps = compress;
    a.decompress_Bps = decompress;
    a.decompress_seen = timed ? 1 : 0;
    return a;
}

// The route under policy auto of a communicator that spans nodes.
zip_verdict_t auto_route(zip_algo_flow_t flow, int ranks, const zip_algo_agreed_t &a,
                         zip_algo_policy_t *p)
{
    return zip_algo_route(ZIP_POLICY_AUTO, flow, ranks, &a, false, p);
}

} // namespace

TEST(CollAlgoRoute, NeverAndAlwaysNeedNoSpeeds)
{
    zip_algo_policy_t p;
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_NEVER, ZIP_FLOW_INTO_ROOT, 4, nullptr, true, &p),
              ZIP_VERDICT_NEVER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_ALWAYS, ZIP_FLOW_INTO_ROOT, 4, nullptr, true, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(p.mode, ZIP_POLICY_ALWAYS);
    EXPECT_EQ(p.speeds.link_Bps, 0.0);
}

// On two ranks a sender's only block is a one-shot, but for a broadcast's segments and a
// gather(v)'s or scatter(v)'s, which travel in segments there (exchange.hpp); from three ranks an
// alltoall(v) is an exchange: each rank decodes as much as it encodes, on the same core.
TEST(CollAlgoRoute, OnTwoRanksOnlyABroadcastAndSegmentedGathervsPipeline)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t a = agreed(125e6);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 2, &a, true, &p);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_PIPELINED);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_OUT_OF_ROOT, 2, &a, true, &p);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_PIPELINED);
    for (zip_algo_flow_t f :
         {ZIP_FLOW_ALL_SEND, ZIP_FLOW_RING, ZIP_FLOW_REDUCE, ZIP_FLOW_ALLREDUCE}) {
        zip_algo_route(ZIP_POLICY_AUTO, f, 2, &a, true, &p);
        EXPECT_EQ(p.shape, ZIP_TRANSFER_ONE_SHOT) << f;
        zip_algo_route(ZIP_POLICY_AUTO, f, 3, &a, true, &p);
        const bool exchange =
            f == ZIP_FLOW_ALL_SEND || f == ZIP_FLOW_REDUCE || f == ZIP_FLOW_ALLREDUCE;
        EXPECT_EQ(p.shape, exchange ? ZIP_TRANSFER_EXCHANGE : ZIP_TRANSFER_PIPELINED) << f;
        EXPECT_EQ(zip_algo_flow_shape(f, 3), p.shape) << f;
    }
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_PIPELINE, 2, &a, true, &p);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_PIPELINED);
}

TEST(CollAlgoRoute, AlltoallSharesTheNodesLinkAmongItsRanks)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t a = agreed(1e9, 10e9, 4);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ALL_SEND, 8, &a, false, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 0.25e9);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_RING, 8, &a, false, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 1e9);
    EXPECT_DOUBLE_EQ(p.speeds.compress_Bps, 1e9);
}

// A hop of a reduce's chain decodes, reduces and encodes on one core: c + d = 2 ns a byte against
// a link of 1 ns (1 GB/s) loses, against one of 4 ns (0.25 GB/s) pays. An allreduce is judged
// at its node's share of the NIC (its halving steps between nodes) where the NIC is no faster
// than decoding, but keeps the whole rate for the schedule, whose ring has the NIC to itself.
TEST(CollAlgoRoute, AReduceHopCodesInTurnAnAllreduceIsJudgedAtItsShareOfTheNic)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t fast = agreed(1e9, 10e9, 8), slow = agreed(0.25e9, 10e9, 8);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_REDUCE, 16, &fast, false, &p),
              ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_REDUCE, 16, &slow, false, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 0.25e9);
    // Nor does a gather's: its root decodes every byte, at least d = 1 ns a byte, not 0.9.
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 16, &fast, false, &p),
              ZIP_VERDICT_LINK_FASTER);
    const zip_algo_agreed_t half = agreed(0.5e9, 10e9, 8);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 16, &half, false, &p),
              ZIP_VERDICT_COMPRESS);
    const zip_algo_agreed_t one_per_node = agreed(1e9, 10e9, 1);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ALLREDUCE, 16, &one_per_node, false, &p),
              ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ALLREDUCE, 16, &fast, false, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 1e9);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_EXCHANGE);
    // A NIC faster than one core decodes is not shared out: the node's copies and reductions
    // bound the schedule there.
    const zip_algo_agreed_t faster_than_decoding = agreed(2e9, 10e9, 8);
    EXPECT_EQ(
        zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ALLREDUCE, 16, &faster_than_decoding, false, &p),
        ZIP_VERDICT_LINK_FASTER);
}

// A gather(v)'s senders compress at once, each on its core, into the root's one link; a
// scatter(v)'s receivers decode at once. Measured (8 ranks at 1 Gbit/s, 4 MiB gatherv of smooth
// data): one sender's compression read 128-156 MB/s while seven compressed on 2 cores, the
// root's link 118 MB/s; as one pipeline stage that handed the calls on (250 ms, compressed 163).
TEST(CollAlgoRoute, AGathersSendersCompressAtOnceAScattersReceiversDecodeAtOnce)
{
    zip_algo_policy_t p;
    // The 4th call's agreement: the root's decoder timed on the data.
    zip_algo_agreed_t a = with_codec(agreed(118e6), 128e6, 400e6, true);
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 8, a, &p), ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_FAN_IN);
    EXPECT_EQ(p.speeds.ends, 7);
    EXPECT_DOUBLE_EQ(p.speeds.compress_Bps, 128e6);
    EXPECT_DOUBLE_EQ(p.speeds.decompress_Bps, 400e6);
    // One sender: its compression is a stage of its own segments' pipeline, and too slow.
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 2, a, &p), ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(p.speeds.ends, 0);
    // A scatter's root compresses every block itself: too slow for that link at any size.
    EXPECT_EQ(auto_route(ZIP_FLOW_OUT_OF_ROOT, 8, a, &p), ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_FAN_OUT);
    EXPECT_EQ(p.speeds.ends, 7);
    // The root's serial decoder still bounds a gather: decoding slower than the link hands it on.
    a.decompress_Bps = 118e6;
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 8, a, &p), ZIP_VERDICT_LINK_FASTER);
}

// The calibration's decoding speed is not trusted for a gather's root until a decoder was timed
// on the data: it counts as no faster than one sender's encoding (data that shrink much more
// than the calibration's field decode slower than they encode: gauss-sorted 2.8 GB/s against 3.2).
TEST(CollAlgoRoute, AGathersRootDecodesNoFasterThanOneSenderEncodesUntilTimedOnTheData)
{
    zip_algo_policy_t p;
    // 50 Gbit/s, the calibration's 4.6 / 7.8 GB/s on 64 ranks: about 0.22 ns a byte at the root
    // against 0.9 x 0.16 raw.
    zip_algo_agreed_t a = with_codec(agreed(6.25e9), 4.6e9, 7.8e9, false);
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 64, a, &p), ZIP_VERDICT_LINK_FASTER);
    EXPECT_DOUBLE_EQ(p.speeds.decompress_Bps, 4.6e9);
    EXPECT_EQ(p.speeds.ends, 63);
    // Timed on the data at that speed, the root's 7.8 GB/s pays: about 1 / 7.8 ns a byte.
    a.decompress_seen = 1;
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 64, a, &p), ZIP_VERDICT_COMPRESS);
    EXPECT_DOUBLE_EQ(p.speeds.decompress_Bps, 7.8e9);
    // Timed slower (gauss-sorted's 2.8 GB/s): handed on.
    a.decompress_Bps = 2.8e9;
    EXPECT_EQ(auto_route(ZIP_FLOW_INTO_ROOT, 64, a, &p), ZIP_VERDICT_LINK_FASTER);
    // A scatter's receivers decode one block each: nothing changes there.
    a.decompress_seen = 0;
    a.decompress_Bps = 7.8e9;
    auto_route(ZIP_FLOW_OUT_OF_ROOT, 64, a, &p);
    EXPECT_DOUBLE_EQ(p.speeds.decompress_Bps, 7.8e9);
}

TEST(CollAlgoRoute, TheLocalLinkRulesOnlyWhereNoRemoteOneWasMeasured)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t one_node = agreed(0.0, 5e9);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 4, &one_node, false, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 5e9);
    // force_local: every peer is remote, whatever was measured.
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 4, &one_node, true, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 0.0);
}

TEST(CollAlgoRoute, ALinkFasterThanTheCodecHandsTheCallOnASlowOneTakesIt)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t fast = agreed(50e9), slow = agreed(125e6);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 4, &fast, true, &p),
              ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_INTO_ROOT, 4, &slow, true, &p),
              ZIP_VERDICT_COMPRESS);
    // observe decides as auto (the glue then hands the call on and counts).
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_OBSERVE, ZIP_FLOW_INTO_ROOT, 4, &slow, true, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(p.mode, ZIP_POLICY_OBSERVE);
}

// coll/zip keeps a route for every call of a collective, whatever its size: the cost model
// must give the same verdict at any size the route's speeds and shape are judged on.
TEST(CollAlgoRoute, TheVerdictIsTheSameAtEverySize)
{
    const size_t sizes[] = {1, 1000, 16384, 65536, 100000, 1 << 20, 3u << 28, size_t(5) << 32};
    for (double remote : {0.0, 12.5e6, 125e6, 0.5e9, 1.0e9, 1.25e9, 2e9, 8e9, 50e9})
        for (int ranks : {2, 3, 8})
            for (zip_algo_flow_t f : {ZIP_FLOW_PIPELINE, ZIP_FLOW_ALL_SEND, ZIP_FLOW_RING,
                                      ZIP_FLOW_INTO_ROOT, ZIP_FLOW_OUT_OF_ROOT, ZIP_FLOW_REDUCE})
                for (zip_policy_mode_t mode : {ZIP_POLICY_AUTO, ZIP_POLICY_OBSERVE}) {
                    zip_algo_policy_t p;
                    const zip_algo_agreed_t a = agreed(remote, 10e9, 4);
                    const zip_verdict_t v = zip_algo_route(mode, f, ranks, &a, false, &p);
                    for (size_t bytes : sizes)
                        EXPECT_EQ(zip_policy_decide(mode, &p.speeds, bytes, 0, 0.0, p.shape), v)
                            << remote << " B/s, " << ranks << " ranks, flow " << f << ", " << bytes
                            << " bytes";
                }
}

TEST(CollAlgoRoute, ObserveSharesAddUpToOneCallsSaving)
{
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_ALL_SEND, 4), 0.25);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_RING, 4), 0.75);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_INTO_ROOT, 4), 1.0);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_OUT_OF_ROOT, 4), 1.0);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_PIPELINE, 4), 1.0);
}
