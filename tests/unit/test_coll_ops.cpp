// The MPI-free tables behind coll/zip's glue: the collectives' names, blocking twins, data flows
// and algorithms (algo/coll_ops.h), the policy's per-communicator modes and the values ranks
// reduce to agree on speeds (algo/coll_policy.h), and the MPI_T counter names (coll_stats.h).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coll_ops.h"
#include "coll_policy.h"
#include "coll_stats.h"

TEST(CollOps, NamesAndCallsFollowTheList)
{
    EXPECT_STREQ("bcast", zip_coll_op_names[COLL_ZIP_OP_BCAST]);
    EXPECT_STREQ("MPI_Bcast", zip_coll_op_calls[COLL_ZIP_OP_BCAST]);
    EXPECT_STREQ("iallgatherv", zip_coll_op_names[COLL_ZIP_OP_IALLGATHERV]);
    EXPECT_STREQ("MPI_Iscatterv", zip_coll_op_calls[COLL_ZIP_OP_ISCATTERV]);
    EXPECT_STREQ("neighbor_alltoallv", zip_coll_op_names[COLL_ZIP_OP_NEIGHBOR_ALLTOALLV]);
    EXPECT_STREQ("MPI_Neighbor_allgather", zip_coll_op_calls[COLL_ZIP_OP_NEIGHBOR_ALLGATHER]);
    EXPECT_STREQ("neighbor_allgatherv", zip_coll_op_names[COLL_ZIP_OP_NEIGHBOR_ALLGATHERV]);
    EXPECT_STREQ("MPI_Ineighbor_alltoallv", zip_coll_op_calls[COLL_ZIP_OP_INEIGHBOR_ALLTOALLV]);
    EXPECT_STREQ("ineighbor_allgatherv", zip_coll_op_names[COLL_ZIP_OP_INEIGHBOR_ALLGATHERV]);
    EXPECT_STREQ("alltoallw", zip_coll_op_names[COLL_ZIP_OP_ALLTOALLW]);
    EXPECT_STREQ("MPI_Ialltoallw", zip_coll_op_calls[COLL_ZIP_OP_IALLTOALLW]);
    EXPECT_STREQ("MPI_Ireduce_scatter_block", zip_coll_op_calls[COLL_ZIP_OP_IREDUCE_SCATTER_BLOCK]);
    EXPECT_STREQ("MPI_Ireduce", zip_coll_op_calls[COLL_ZIP_OP_IREDUCE]);
    EXPECT_STREQ("exscan", zip_coll_op_names[COLL_ZIP_OP_EXSCAN]);
    EXPECT_STREQ("MPI_Iexscan", zip_coll_op_calls[COLL_ZIP_OP_IEXSCAN]);
    EXPECT_EQ(42, COLL_ZIP_OP_COUNT);
    EXPECT_STREQ("MPI_Ineighbor_alltoallw", zip_coll_op_calls[COLL_ZIP_OP_INEIGHBOR_ALLTOALLW]);
}

TEST(CollOps, NonBlockingOpsShareTheirBlockingTwin)
{
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        const int twin = zip_coll_op_blocking(op);
        const std::string name = zip_coll_op_names[op];
        if (name[0] == 'i')
            EXPECT_EQ(name.substr(1), zip_coll_op_names[twin]) << name;
        else
            EXPECT_EQ(op, twin) << name;
        EXPECT_EQ(zip_coll_op_flow(twin), zip_coll_op_flow(op)) << name;
    }
}

TEST(CollOps, FlowsByCollective)
{
    EXPECT_EQ(ZIP_FLOW_PIPELINE, zip_coll_op_flow(COLL_ZIP_OP_IBCAST));
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_ALLTOALL));
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_IALLTOALLW));
    EXPECT_EQ(ZIP_FLOW_RING, zip_coll_op_flow(COLL_ZIP_OP_IALLGATHER));
    EXPECT_EQ(ZIP_FLOW_OUT_OF_ROOT, zip_coll_op_flow(COLL_ZIP_OP_SCATTERV));
    EXPECT_EQ(ZIP_FLOW_OUT_OF_ROOT, zip_coll_op_flow(COLL_ZIP_OP_ISCATTER));
    EXPECT_EQ(ZIP_FLOW_INTO_ROOT, zip_coll_op_flow(COLL_ZIP_OP_GATHER));
    EXPECT_EQ(ZIP_FLOW_REDUCE, zip_coll_op_flow(COLL_ZIP_OP_REDUCE));
    // The reduce-scatter ring's hops decode, reduce and encode in turn, as the reduce chain's.
    EXPECT_EQ(ZIP_FLOW_REDUCE, zip_coll_op_flow(COLL_ZIP_OP_IREDUCE_SCATTER));
    EXPECT_EQ(ZIP_FLOW_ALLREDUCE, zip_coll_op_flow(COLL_ZIP_OP_IALLREDUCE));
    // Scans run the reduce's chain.
    EXPECT_EQ(ZIP_FLOW_REDUCE, zip_coll_op_flow(COLL_ZIP_OP_ISCAN));
    EXPECT_EQ(ZIP_FLOW_REDUCE, zip_coll_op_flow(COLL_ZIP_OP_EXSCAN));
    EXPECT_EQ(ZIP_FLOW_INTO_ROOT, zip_coll_op_flow(COLL_ZIP_OP_IGATHERV));
    // A halo exchange: every rank sends at once, as in alltoall(v).
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_NEIGHBOR_ALLTOALL));
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_NEIGHBOR_ALLGATHER));
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_NEIGHBOR_ALLGATHERV));
    EXPECT_EQ(ZIP_FLOW_ALL_SEND, zip_coll_op_flow(COLL_ZIP_OP_INEIGHBOR_ALLTOALL));
}

TEST(CollOps, AnOpOutsideTheListHasNoAlgorithm)
{
    zip_algo_result_t result{};
    EXPECT_EQ(nullptr, zip_coll_op_start(COLL_ZIP_OP_COUNT, nullptr, nullptr, 0, nullptr, &result));
    EXPECT_EQ(ZIP_ALGO_ERR_ARG,
              zip_coll_op_run(COLL_ZIP_OP_COUNT, nullptr, nullptr, 0, nullptr, &result));
}

TEST(CollOps, ErrorTexts)
{
    EXPECT_NE(nullptr, std::strstr(zip_coll_error_text(ZIP_ALGO_ERR_CODEC), "corrupt"));
    EXPECT_NE(nullptr, std::strstr(zip_coll_error_text(ZIP_ALGO_ERR_NOMEM), "memory"));
    EXPECT_NE(nullptr, std::strstr(zip_coll_error_text(ZIP_ALGO_ERR_TRANSPORT), "transfer"));
}

TEST(CollPolicy, ModesPerContextIdStartUnset)
{
    zip_coll_policy_clear();
    EXPECT_EQ(-1, zip_coll_policy_get(0));
    zip_coll_policy_set(3, ZIP_POLICY_NEVER);
    zip_coll_policy_set(1000, ZIP_POLICY_OBSERVE); // grows the table
    EXPECT_EQ(ZIP_POLICY_NEVER, zip_coll_policy_get(3));
    EXPECT_EQ(ZIP_POLICY_OBSERVE, zip_coll_policy_get(1000));
    EXPECT_EQ(-1, zip_coll_policy_get(4));
    EXPECT_EQ(-1, zip_coll_policy_get(999));
    zip_coll_policy_set(3, -1); // a reused context id
    EXPECT_EQ(-1, zip_coll_policy_get(3));
    zip_coll_policy_clear();
    EXPECT_EQ(-1, zip_coll_policy_get(1000));
}

TEST(CollPolicy, AgreementTakesFastestLinkSlowestCodecMostRanksLeastLocalShare)
{
    const double link_a[2] = {5e9, 1e9}, link_b[2] = {4e9, 2e9};
    double a[ZIP_COLL_AGREE_VALUES], b[ZIP_COLL_AGREE_VALUES], all[ZIP_COLL_AGREE_VALUES];
    zip_coll_agree_mine(link_a, 800e6, 2e9, 2, 0.5, a);
    zip_coll_agree_mine(link_b, 600e6, 3e9, 4, 0.75, b);
    for (int i = 0; i < ZIP_COLL_AGREE_VALUES; ++i)
        all[i] = std::max(a[i], b[i]); // what MPI_MAX over the two ranks gives
    const zip_algo_agreed_t s = zip_coll_agree_result(all);
    EXPECT_EQ(5e9, s.link_Bps[ZIP_PEER_LOCAL]);
    EXPECT_EQ(2e9, s.link_Bps[ZIP_PEER_REMOTE]);
    EXPECT_EQ(600e6, s.compress_Bps);
    EXPECT_EQ(2e9, s.decompress_Bps);
    EXPECT_EQ(4, s.ranks_per_node);
    EXPECT_EQ(0.5, s.chain_local_share);
}

// netemu's 8 ranks on one 2-core machine (8 emulated nodes, one kernel): 4 per core. Two
// machines of 4 cores with 3 and 2 ranks, interleaved: the busier one's 0.75. Ranks that could
// not name their machine or count its cores do not count.
TEST(CollPolicy, RanksPerCoreAreTheBusiestMachinesRanksOverItsCores)
{
    std::vector<uint64_t> one_machine;
    for (int p = 0; p < 8; ++p)
        one_machine.insert(one_machine.end(), {0xb007, 2});
    EXPECT_EQ(4.0, zip_coll_ranks_per_core(one_machine.data(), 8));

    const std::vector<uint64_t> two = {7, 4, 9, 4, 7, 4, 9, 4, 7, 4};
    EXPECT_EQ(0.75, zip_coll_ranks_per_core(two.data(), 5));

    const std::vector<uint64_t> unknown = {0, 2, 7, 0, 7, 2};
    EXPECT_EQ(0.5, zip_coll_ranks_per_core(unknown.data(), 3));
    EXPECT_EQ(0.0, zip_coll_ranks_per_core(unknown.data(), 2));
}

// Ranks in blocks of 4 per node: 3 of each node's 4 ranks follow a rank of the same node. Round
// robin over 2 nodes: none does. Uneven blocks: each node reports its own share.
TEST(CollPolicy, ChainLocalShareCountsConsecutiveRanksOnANode)
{
    const int size = 8;
    const auto share = [&](const std::vector<int> &node_of, int rank) {
        bool on_node[size];
        for (int p = 0; p < size; ++p)
            on_node[p] = p != rank && node_of[size_t(p)] == node_of[size_t(rank)];
        return zip_coll_chain_local_share(on_node, rank, size);
    };
    const std::vector<int> blocks = {0, 0, 0, 0, 1, 1, 1, 1};
    const std::vector<int> round_robin = {0, 1, 0, 1, 0, 1, 0, 1};
    const std::vector<int> uneven = {0, 0, 0, 0, 0, 0, 1, 1};
    for (int r = 0; r < size; ++r) {
        EXPECT_DOUBLE_EQ(share(blocks, r), 0.75) << r;
        EXPECT_DOUBLE_EQ(share(round_robin, r), 0.0) << r;
        EXPECT_DOUBLE_EQ(share(uneven, r), r < 6 ? 5.0 / 6.0 : 0.5) << r;
    }
    // A rank alone on its node keeps no pair; without locality nothing is known.
    const bool alone[size] = {};
    EXPECT_EQ(0.0, zip_coll_chain_local_share(alone, 3, size));
    EXPECT_EQ(0.0, zip_coll_chain_local_share(nullptr, 3, size));
}

TEST(CollPolicy, RanksOnNode)
{
    const bool peers[4] = {true, false, true, false};
    const bool none[2] = {false, false};
    EXPECT_EQ(2, zip_coll_ranks_on_node(peers, 4));
    EXPECT_EQ(1, zip_coll_ranks_on_node(none, 2));
    EXPECT_EQ(1, zip_coll_ranks_on_node(nullptr, 8));
}

TEST(CollStats, EveryCounterHasItsMpiTName)
{
    zip_coll_stats_t s{};
    std::map<std::string, uint64_t *> seen;
    zip_coll_stats_each_counter(
        &s, "bcast", "MPI_Bcast",
        [](void *ctx, const char *name, const char *desc, uint64_t *counter) {
            EXPECT_EQ(0, std::strncmp(desc, "MPI_Bcast: ", 11)) << desc;
            (*static_cast<std::map<std::string, uint64_t *> *>(ctx))[name] = counter;
        },
        &seen);
    EXPECT_EQ(zip_coll_stats_counter_count + 2 * ZIP_OMPI_SIZE_CLASSES, seen.size());
    EXPECT_EQ(&s.bytes_out, seen["bcast_bytes_out"]);
    EXPECT_EQ(&s.calls, seen["bcast_calls"]);
    EXPECT_EQ(&s.observe_compressible_by_size[0], seen["bcast_observe_calls_small"]);
    EXPECT_EQ(&s.observe_saving_ns_by_size[2], seen["bcast_observe_saving_ns_large"]);
}
