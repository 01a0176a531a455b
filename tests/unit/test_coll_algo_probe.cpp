// The link probe of the coll/zip policy (zip_algo_probe_links) on the in-process transport.
#include <array>

#include <gtest/gtest.h>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::World;

namespace
{

// links[r] is what rank r measured (local, remote); with node_pairs ranks 2k and 2k+1 share a
// node, else no rank knows a node mate.
std::vector<std::array<double, 2>> probe(int size, bool node_pairs)
{
    World w(size);
    std::vector<std::array<double, 2>> links(size, {0.0, 0.0});
    w.run([&](int rank, const zip_transport_t &t) {
        bool mates[8] = {};
        for (int p = 0; p < size; ++p)
            mates[p] = p / 2 == rank / 2;
        EXPECT_EQ(zip_algo_probe_links(&t, 9, node_pairs ? mates : nullptr, links[rank].data()),
                  ZIP_ALGO_OK);
    });
    EXPECT_EQ(w.unreceived(), 0u);
    return links;
}

} // namespace

// Partners are rank^1 and rank^h (h = 2 on 4 ranks); the lower rank of a pair times it, and
// the rate lands in the class of the partner: ranks 0, 1 share a node, and so do 2, 3.
TEST(CollAlgoProbe, LowerRankOfEachPairTimesTheLinkOfItsClass)
{
    const auto links = probe(4, true);
    EXPECT_GT(links[0][ZIP_PEER_LOCAL], 0.0);  // with 1
    EXPECT_GT(links[0][ZIP_PEER_REMOTE], 0.0); // with 2
    EXPECT_EQ(links[1][ZIP_PEER_LOCAL], 0.0);  // 0 times it
    EXPECT_GT(links[1][ZIP_PEER_REMOTE], 0.0); // with 3
    EXPECT_GT(links[2][ZIP_PEER_LOCAL], 0.0);  // with 3
    EXPECT_EQ(links[2][ZIP_PEER_REMOTE], 0.0); // 0 times it
    EXPECT_EQ(links[3][ZIP_PEER_LOCAL], 0.0);
    EXPECT_EQ(links[3][ZIP_PEER_REMOTE], 0.0);
}

// Without locality every partner is remote; on two ranks there is one pair.
TEST(CollAlgoProbe, WithoutLocalityEveryLinkIsRemote)
{
    const auto links = probe(2, false);
    EXPECT_EQ(links[0][ZIP_PEER_LOCAL], 0.0);
    EXPECT_GT(links[0][ZIP_PEER_REMOTE], 0.0);
    EXPECT_EQ(links[1][ZIP_PEER_REMOTE], 0.0);
}
