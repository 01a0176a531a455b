// The message sizes of one collective call, shaped as perftest/zipbench shapes them so that a
// simulated point and a measured one move the same blocks: "bytes" is the broadcast buffer,
// the whole alltoallv send buffer (blocks of alternately q +- q/4 doubles for the P peers, the
// last taking the rest), or the mean gatherv contribution (odd ranks n + n/8 doubles, even
// ranks n - n/8; allgatherv's blocks are the same), or the vector every rank contributes to a
// reduce or allreduce (MPI_SUM of doubles). Alltoall: "bytes" is the send buffer, split evenly
// (bytes / ranks to each peer, rounded down to whole doubles); allgather: every rank's block.
// Scatterv sends gatherv's contributions from the root, scatter every rank "bytes".
// The root is rank 0.
#pragma once

#include <cstddef>
#include <string>

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
    Scatter
};

const char *op_name(Op op);
bool parse_op(const std::string &name, Op *op);

class Workload
{
  public:
    Workload(Op op, int ranks, size_t bytes) : op_(op), ranks_(ranks), bytes_(bytes) {}

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

  private:
    Op op_;
    int ranks_;
    size_t bytes_;
};

} // namespace simscale
