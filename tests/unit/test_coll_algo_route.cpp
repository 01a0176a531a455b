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

const size_t MiB = size_t(1) << 20;

} // namespace

TEST(CollAlgoRoute, NeverAndAlwaysNeedNoSpeeds)
{
    zip_algo_policy_t p;
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_NEVER, ZIP_FLOW_ONE, 4, nullptr, true, MiB, &p),
              ZIP_VERDICT_NEVER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_ALWAYS, ZIP_FLOW_ONE, 4, nullptr, true, MiB, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(p.mode, ZIP_POLICY_ALWAYS);
    EXPECT_EQ(p.speeds.link_Bps, 0.0);
}

TEST(CollAlgoRoute, OnTwoRanksOnlyABroadcastPipelines)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t a = agreed(125e6);
    for (zip_algo_flow_t f : {ZIP_FLOW_ALL_SEND, ZIP_FLOW_RING, ZIP_FLOW_ONE}) {
        zip_algo_route(ZIP_POLICY_AUTO, f, 2, &a, true, MiB, &p);
        EXPECT_EQ(p.shape, ZIP_TRANSFER_ONE_SHOT) << f;
        zip_algo_route(ZIP_POLICY_AUTO, f, 3, &a, true, MiB, &p);
        EXPECT_EQ(p.shape, ZIP_TRANSFER_PIPELINED) << f;
    }
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_PIPELINE, 2, &a, true, MiB, &p);
    EXPECT_EQ(p.shape, ZIP_TRANSFER_PIPELINED);
}

TEST(CollAlgoRoute, AlltoallSharesTheNodesLinkAmongItsRanks)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t a = agreed(1e9, 10e9, 4);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ALL_SEND, 8, &a, false, MiB, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 0.25e9);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_RING, 8, &a, false, MiB, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 1e9);
    EXPECT_DOUBLE_EQ(p.speeds.compress_Bps, 1e9);
}

TEST(CollAlgoRoute, TheLocalLinkRulesOnlyWhereNoRemoteOneWasMeasured)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t one_node = agreed(0.0, 5e9);
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ONE, 4, &one_node, false, MiB, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 5e9);
    // force_local: every peer is remote, whatever was measured.
    zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ONE, 4, &one_node, true, MiB, &p);
    EXPECT_DOUBLE_EQ(p.speeds.link_Bps, 0.0);
}

TEST(CollAlgoRoute, ALinkFasterThanTheCodecHandsTheCallOnASlowOneTakesIt)
{
    zip_algo_policy_t p;
    const zip_algo_agreed_t fast = agreed(50e9), slow = agreed(125e6);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ONE, 4, &fast, true, MiB, &p),
              ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_AUTO, ZIP_FLOW_ONE, 4, &slow, true, MiB, &p),
              ZIP_VERDICT_COMPRESS);
    // observe decides as auto (the glue then hands the call on and counts).
    EXPECT_EQ(zip_algo_route(ZIP_POLICY_OBSERVE, ZIP_FLOW_ONE, 4, &slow, true, MiB, &p),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(p.mode, ZIP_POLICY_OBSERVE);
}

TEST(CollAlgoRoute, ObserveSharesAddUpToOneCallsSaving)
{
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_ALL_SEND, 4), 0.25);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_RING, 4), 0.75);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_ONE, 4), 1.0);
    EXPECT_DOUBLE_EQ(zip_algo_observe_share(ZIP_FLOW_PIPELINE, 4), 1.0);
}
