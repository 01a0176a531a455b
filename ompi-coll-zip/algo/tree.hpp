// Broadcast topologies in "virtual rank" space, where the root is virtual rank 0.
#pragma once

#include <vector>

namespace zipcoll
{

struct TreeNode {
    int parent = -1;           // real rank, -1 at the root
    std::vector<int> children; // real ranks, largest subtree first
};

// A chain moves each segment once per hop and keeps every link busy once the pipeline is
// full; it wins when there are many segments. A binomial tree has depth log2(size) and wins
// when there are few segments to overlap.
inline TreeNode chain_node(int rank, int size, int root)
{
    TreeNode n;
    const int vr = (rank - root + size) % size;
    if (vr > 0)
        n.parent = (vr - 1 + root) % size;
    if (vr + 1 < size)
        n.children.push_back((vr + 1 + root) % size);
    return n;
}

inline TreeNode binomial_node(int rank, int size, int root)
{
    TreeNode n;
    const int vr = (rank - root + size) % size;
    int mask = 1;
    while (mask < size) {
        if (vr & mask) {
            n.parent = (vr - mask + root) % size;
            break;
        }
        mask <<= 1;
    }
    // Children are vr + m for every power of two m below the bit that names our parent.
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < size)
            n.children.push_back((vr + mask + root) % size);
    }
    return n;
}

} // namespace zipcoll
