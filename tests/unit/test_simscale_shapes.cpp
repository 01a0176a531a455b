// perftest/simscale's call shapes: the message sizes a simulated call moves are zipbench's
// (so that simulated and measured points compare), and the baselines' broadcast trees reach
// every rank exactly once.
#include <gtest/gtest.h>

#include <cstddef>
#include <queue>
#include <vector>

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

} // namespace
