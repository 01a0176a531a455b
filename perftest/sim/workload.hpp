// The message sizes of one collective call, shaped as perftest/zipbench shapes them so that a
// simulated point and a measured one move the same blocks: "bytes" is the broadcast buffer,
// the whole alltoallv send buffer (blocks of alternately q +- q/4 doubles for the P peers, the
// last taking the rest), or the mean gatherv contribution (odd ranks n + n/8 doubles, even
// ranks n - n/8; allgatherv's blocks are the same), or the vector every rank contributes to a
// reduce or allreduce (MPI_SUM of doubles). Alltoall: "bytes" is the send buffer, split evenly
// (bytes / ranks to each peer, rounded down to whole doubles); allgather: every rank's block.
// Scatterv sends gatherv's contributions from the root, scatter every rank "bytes".
// Neighbor_alltoall: a halo exchange on a periodic Cartesian grid of the ranks (row-major, as
// MPI_Cart_create without reordering), "bytes" the send buffer split evenly among the 2 D
// neighbours: a ring (D = 1, zipbench's neighbor_alltoall: half each way) or a 3-D grid
// (neighbor_alltoall3d: a sixth to each face neighbour, dimensions as MPI_Dims_create).
// The root is rank 0.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace simscale
{

enum class Op {
    Bcast,
    Alltoallv,
    Gatherv,
    Reduce,
    Allreduce,
    Allgatherv,
    Alltoall,
    Allgather,
    Scatterv,
    Scatter,
    NeighborAlltoall,
    NeighborAlltoall3d,
    Scan // each rank's bytes, the prefix of ranks 0 .. i at rank i
};

const char *op_name(Op op);
bool parse_op(const std::string &name, Op *op);

class Workload
{
  public:
    Workload(Op op, int ranks, size_t bytes);

    Op op() const { return op_; }
    int ranks() const { return ranks_; }
    size_t bytes() const { return bytes_; }
    int root() const { return 0; }

    // Alltoall(v): bytes rank `from` sends to rank `to` (the block to itself included).
    size_t block(int from, int to) const;
    // Gatherv, allgather(v): bytes rank `rank` contributes; scatter(v): bytes it receives.
    size_t contribution(int rank) const;
    // The largest block any rank sends (bcast, reduce, allreduce: the buffer).
    size_t largest() const;

    // Neighbor_alltoall: the grid's extent in each dimension (largest first), and rank's
    // neighbours in MPI's order, the same list for sources and destinations: for each dimension
    // the source and the destination of a shift by +1 (periodic: a rank may be both, or its
    // own). Every block is neighbour_block() bytes.
    const std::vector<int> &grid() const { return grid_; }
    std::vector<int> neighbours(int rank) const;
    size_t neighbour_block() const;

  private:
    Op op_;
    int ranks_;
    size_t bytes_;
    std::vector<int> grid_;
};

} // namespace simscale
