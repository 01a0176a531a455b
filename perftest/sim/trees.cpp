#include "trees.hpp"

#include <algorithm>

namespace simscale
{
TreeNode chain_tree(int rank, int size, int root, int fanout)
{
    // `fanout` chains of consecutive virtual ranks hang off the root; the first
    // (size - 1) % fanout of them are one rank longer.
    TreeNode n;
    const int others = size - 1;
    fanout = std::max(1, std::min(fanout, others));
    const int vrank = (rank - root + size) % size;
    if (others == 0)
        return n;
    const int base = others / fanout, longer = others % fanout;
    auto head_of = [&](int chain) { return 1 + chain * base + std::min(chain, longer); };
    if (vrank == 0) {
        for (int c = 0; c < fanout; ++c)
            n.children.push_back(real_rank(head_of(c), root, size));
        return n;
    }
    int chain = 0;
    while (chain + 1 < fanout && head_of(chain + 1) <= vrank)
        ++chain;
    const int head = head_of(chain), len = base + (chain < longer ? 1 : 0);
    n.parent = vrank == head ? root : real_rank(vrank - 1, root, size);
    if (vrank + 1 < head + len)
        n.children.push_back(real_rank(vrank + 1, root, size));
    return n;
}

TreeNode binomial_tree(int rank, int size, int root)
{
    // Children vrank + 1, + 2, + 4, ... below vrank's lowest set bit, which names the parent.
    TreeNode n;
    const int vrank = (rank - root + size) % size;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vrank & mask) {
            n.parent = real_rank(vrank - mask, root, size);
            break;
        }
        if (vrank + mask < size)
            n.children.push_back(real_rank(vrank + mask, root, size));
    }
    return n;
}

} // namespace simscale
