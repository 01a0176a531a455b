// perftest/simscale's model outside SimGrid: the message sizes a simulated call moves are
// zipbench's (so that simulated and measured points compare), the baselines' broadcast trees
// reach every rank exactly once, and the codec table answers for any size and data set name.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <queue>
#include <string>
#include <vector>

#include "codec_table.hpp"
#include "trees.hpp"
#include "workload.hpp"

namespace
{

using simscale::Op;
using simscale::TreeNode;
using simscale::Workload;

// zipbench's a2a_count (perftest/zipbench_ops.c), element counts of doubles, as written there:
// a loop over the blocks before the one asked for.
size_t zipbench_a2a_count(size_t n, int p, int i, int j)
{
    size_t q = n / size_t(p), d = q / 4, sum = 0;
    for (int k = 0; k < p - 1; k++) {
        size_t c = ((i + k) & 1) ? q + d : q - d;
        if (k == j)
            return c;
        sum += c;
    }
    return n - sum;
}

TEST(SimscaleWorkload, AlltoallvBlocksAreZipbenchs)
{
    for (size_t bytes : {size_t(8192), size_t(1) << 20, size_t(4194304) + 8 * 3})
        for (int p : {2, 3, 7, 8, 64, 100})
            for (int i = 0; i < p; ++i)
                for (int j = 0; j < p; ++j)
                    ASSERT_EQ(Workload(Op::Alltoallv, p, bytes).block(i, j),
                              8 * zipbench_a2a_count(bytes / 8, p, i, j))
                        << "bytes " << bytes << " ranks " << p << " from " << i << " to " << j;
}

TEST(SimscaleWorkload, EachRankSendsItsWholeAlltoallvBuffer)
{
    const size_t bytes = 4 << 20;
    for (int p : {2, 5, 64, 4096}) {
        const Workload w(Op::Alltoallv, p, bytes);
        for (int i : {0, 1, p - 1}) {
            size_t sum = 0;
            for (int j = 0; j < p; ++j)
                sum += w.block(i, j);
            EXPECT_EQ(sum, bytes) << p << " ranks, rank " << i;
        }
    }
}

// The halo exchange's grid is MPI's: balanced as MPI_Dims_create (largest first), row-major,
// periodic, each rank's neighbours the sources and destinations of MPI_Cart_shift by +1 per
// dimension; every edge has its reverse (what r sends towards +1 arrives from -1).
TEST(SimscaleWorkload, NeighbourGridsAreMPIs)
{
    EXPECT_EQ(std::vector<int>({8}), Workload(Op::NeighborAlltoall, 8, 1 << 20).grid());
    EXPECT_EQ(std::vector<int>({4, 4, 4}), Workload(Op::NeighborAlltoall3d, 64, 1 << 20).grid());
    EXPECT_EQ(std::vector<int>({3, 2, 2}), Workload(Op::NeighborAlltoall3d, 12, 1 << 20).grid());
    EXPECT_EQ(std::vector<int>({2, 1, 1}), Workload(Op::NeighborAlltoall3d, 2, 1 << 20).grid());
    // A ring: r - 1 then r + 1, periodic.
    EXPECT_EQ(std::vector<int>({7, 1}), Workload(Op::NeighborAlltoall, 8, 1 << 20).neighbours(0));
    // 4 x 4 x 4: rank 0 is (0, 0, 0); its -1 / +1 neighbours by dimension, strides 16, 4, 1.
    EXPECT_EQ(std::vector<int>({48, 16, 12, 4, 3, 1}),
              Workload(Op::NeighborAlltoall3d, 64, 1 << 20).neighbours(0));
    // Dimensions of one: the rank is its own neighbour.
    EXPECT_EQ(std::vector<int>({1, 1, 0, 0, 0, 0}),
              Workload(Op::NeighborAlltoall3d, 2, 1 << 20).neighbours(0));
    for (int p : {8, 12, 64, 1000}) {
        const Workload w(Op::NeighborAlltoall3d, p, 1 << 20);
        for (int r = 0; r < p; ++r) {
            const std::vector<int> n = w.neighbours(r);
            ASSERT_EQ(n.size(), 6u);
            for (size_t k = 0; k < n.size(); ++k) {
                ASSERT_GE(n[k], 0);
                ASSERT_LT(n[k], p);
                // My -1 neighbour has me as its +1 neighbour in the same dimension.
                EXPECT_EQ(r, w.neighbours(n[k])[k ^ 1]) << p << " ranks, rank " << r << " k " << k;
            }
        }
    }
    // The send buffer split among the 2 D neighbours in whole doubles.
    EXPECT_EQ(size_t(524288), Workload(Op::NeighborAlltoall, 8, 1 << 20).neighbour_block());
    EXPECT_EQ(size_t(174760), Workload(Op::NeighborAlltoall3d, 64, 1 << 20).neighbour_block());
    EXPECT_EQ(size_t(174760), Workload(Op::NeighborAlltoall3d, 64, 1 << 20).largest());
}

TEST(SimscaleWorkload, GathervContributionsAverageToBytes)
{
    const size_t bytes = 1 << 20;
    for (int p : {2, 3, 8, 9, 1024}) {
        const Workload w(Op::Gatherv, p, bytes);
        size_t sum = 0;
        for (int i = 0; i < p; ++i)
            sum += w.contribution(i);
        EXPECT_EQ(sum, size_t(p) * bytes) << p << " ranks";
        EXPECT_EQ(w.contribution(1), bytes + bytes / 8);
        EXPECT_EQ(w.contribution(0), bytes - bytes / 8);
    }
}

TEST(SimscaleWorkload, LargestIsTheBiggestBlock)
{
    const Workload w(Op::Alltoallv, 7, 1 << 20);
    size_t most = 0;
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j)
            most = std::max(most, w.block(i, j));
    EXPECT_EQ(w.largest(), most);
    EXPECT_EQ(Workload(Op::Bcast, 64, 12345).largest(), 12345u);
}

// Every rank but the root has one parent that lists it as a child, and a walk from the root
// reaches every rank once.
void expect_spanning_tree(const std::vector<TreeNode> &tree, int root, const char *what)
{
    const int size = int(tree.size());
    std::vector<int> seen(tree.size(), 0);
    std::queue<int> todo;
    todo.push(root);
    EXPECT_EQ(tree[size_t(root)].parent, -1) << what;
    while (!todo.empty()) {
        const int r = todo.front();
        todo.pop();
        ++seen[size_t(r)];
        for (int c : tree[size_t(r)].children) {
            ASSERT_TRUE(c >= 0 && c < size) << what;
            EXPECT_EQ(tree[size_t(c)].parent, r) << what << ": child " << c << " of " << r;
            todo.push(c);
        }
    }
    for (int r = 0; r < size; ++r)
        EXPECT_EQ(seen[size_t(r)], 1) << what << ": rank " << r << " of " << size;
}

TEST(SimscaleTrees, ChainsAndBinomialSpanEveryRankOnce)
{
    for (int size = 1; size <= 70; ++size)
        for (int root : {0, size / 2, size - 1}) {
            std::vector<TreeNode> chain1, chain4, binomial;
            for (int r = 0; r < size; ++r) {
                chain1.push_back(simscale::chain_tree(r, size, root, 1));
                chain4.push_back(simscale::chain_tree(r, size, root, 4));
                binomial.push_back(simscale::binomial_tree(r, size, root));
            }
            expect_spanning_tree(chain1, root, "pipeline");
            expect_spanning_tree(chain4, root, "chain of 4");
            expect_spanning_tree(binomial, root, "binomial");
        }
}

TEST(SimscaleTrees, ChainsAreConsecutiveAndBalanced)
{
    // 10 other ranks in 4 chains: 3, 3, 2, 2 ranks, heads 1, 4, 7, 9.
    const TreeNode root = simscale::chain_tree(0, 11, 0, 4);
    EXPECT_EQ(root.children, (std::vector<int>{1, 4, 7, 9}));
    EXPECT_EQ(simscale::chain_tree(2, 11, 0, 4).children, (std::vector<int>{3}));
    EXPECT_TRUE(simscale::chain_tree(3, 11, 0, 4).children.empty());
    EXPECT_EQ(simscale::chain_tree(10, 11, 0, 4).parent, 9);
    // One chain: rank r forwards to r + 1, shifted by the root.
    EXPECT_EQ(simscale::chain_tree(5, 8, 3, 1).children, (std::vector<int>{6}));
    EXPECT_EQ(simscale::chain_tree(2, 8, 3, 1).children, std::vector<int>{});
}

TEST(SimscaleTrees, BinomialRootHasLog2Children)
{
    EXPECT_EQ(simscale::binomial_tree(0, 1024, 0).children.size(), 10u);
    EXPECT_EQ(simscale::binomial_tree(0, 1000, 0).children.size(), 10u);
    EXPECT_EQ(simscale::binomial_tree(6, 8, 0).parent, 4);
    EXPECT_EQ(simscale::binomial_tree(4, 8, 0).children, (std::vector<int>{5, 6}));
}

// A table with two sizes of one codec on two data sets, written to a temporary file.
class SimscaleCodecTable : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        path_ = ::testing::TempDir() + "simscale_codecs.csv";
        write("codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps\n"
              "fast,gauss-1024,4096,1.5,1.0,2.0\n"
              "fast,gauss-1024,1048576,2.5,4.0,8.0\n"
              "fast,gauss-1024-sorted,4096,6.0,3.0,3.0\n"
              "memcpy,gauss-1024,4096,1.0,20.0,20.0\n");
    }
    void TearDown() override { std::remove(path_.c_str()); }
    void write(const std::string &text) { std::ofstream(path_) << text; }

    std::string path_;
};

TEST_F(SimscaleCodecTable, FindsZipbenchsNamesForCodecbenchsDataSets)
{
    simscale::CodecTable t;
    std::string error;
    ASSERT_TRUE(t.load(path_, &error)) << error;
    EXPECT_EQ(t.resolve_dataset("gauss"), "gauss-1024");
    EXPECT_EQ(t.resolve_dataset("gauss-sorted"), "gauss-1024-sorted");
    EXPECT_EQ(t.resolve_dataset("gauss-1024"), "gauss-1024");
    EXPECT_EQ(t.resolve_dataset("sorted"), "");
    EXPECT_EQ(t.resolve_dataset("heat"), "");
    EXPECT_TRUE(t.has("memcpy", "gauss-1024"));
    EXPECT_FALSE(t.has("memcpy", "gauss-1024-sorted"));
}

TEST_F(SimscaleCodecTable, InterpolatesOnALogScaleAndClampsOutside)
{
    simscale::CodecTable t;
    std::string error;
    ASSERT_TRUE(t.load(path_, &error)) << error;
    // 64 KiB lies halfway between 4 KiB and 1 MiB on a log scale: the ratio is the mean and the
    // time per byte too (1/1 and 1/4 GB/s -> 1/1.6 GB/s).
    const auto mid = t.at("fast", "gauss-1024", 65536);
    EXPECT_DOUBLE_EQ(mid.ratio, 2.0);
    EXPECT_NEAR(mid.compress_Bps, 1.6e9, 1.0);
    EXPECT_NEAR(mid.decompress_Bps, 3.2e9, 1.0);
    EXPECT_DOUBLE_EQ(t.at("fast", "gauss-1024", 100).ratio, 1.5);
    EXPECT_DOUBLE_EQ(t.at("fast", "gauss-1024", 1e9).ratio, 2.5);
}

TEST_F(SimscaleCodecTable, RejectsFilesThatAreNotCodecbenchCsv)
{
    simscale::CodecTable t;
    std::string error;
    write("op,dataset\nbcast,gauss\n");
    EXPECT_FALSE(t.load(path_, &error));
    EXPECT_NE(error.find("not a codecbench CSV"), std::string::npos) << error;
    write("codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps\nfast,gauss,4096,0,1,1\n");
    EXPECT_FALSE(t.load(path_, &error));
    EXPECT_NE(error.find(":2:"), std::string::npos) << error;
    EXPECT_FALSE(t.load(path_ + ".missing", &error));
}

} // namespace
