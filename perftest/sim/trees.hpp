// Broadcast trees in the shape Open MPI's coll/base builds them (root = virtual rank 0), for
// the baselines.
#pragma once

#include <vector>

namespace simscale
{

// The rank of virtual rank `vrank` in a tree rooted at `root`.
inline int real_rank(int vrank, int root, int size)
{
    return (vrank + root) % size;
}

struct TreeNode {
    int parent = -1;           // -1 at the root
    std::vector<int> children; // in the order the root of a subtree sends to them
};

// `fanout` chains of consecutive virtual ranks hang off the root; the first
// (size - 1) % fanout of them are one rank longer. fanout 1: tuned's pipeline.
TreeNode chain_tree(int rank, int size, int root, int fanout);
// Children vrank + 1, + 2, + 4, ... below the lowest set bit of vrank, which names the parent.
TreeNode binomial_tree(int rank, int size, int root);

} // namespace simscale
