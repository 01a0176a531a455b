// A ring allgather of blocks, each compressed once by its owner and forwarded as the frame it
// became: allgatherv's whole schedule, and allreduce's second phase.
//
// Step k = 0 .. size-2: a rank sends block own-k to the next rank and receives block own-k-1
// from the previous one (block ids mod size); the block received at step k is the one sent at
// step k+1. A rank waits for its send of step k before it posts that of step k+1, and posts the
// receive of step k+1 as soon as step k's has arrived, so every wait points to an earlier step
// of a neighbour: no deadlock.
#pragma once

#include <memory>
#include <vector>

#include "block_codec.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

class RingAllgather
{
  public:
    // blocks[b] is block b (size entries), `own` the one this rank sends first; plain ones
    // (policy.plain) travel as they are, the others through their byte views (made here) and
    // the codec. Frames live in two slots of the largest such block: `slots` if given (the
    // caller's, free while the ring runs), else allocated here. Fails only for lack of memory or
    // a byte view; nothing is posted yet.
    int prepare(const zip_transport_t *t, const BlockPolicy &policy, const zip_block_t *blocks,
                int own, int tag, char *const *slots = nullptr);
    // Runs the steps with `coder` (whose sample decision it shares with the caller) and counts
    // the coded blocks this rank sends in res. Every step runs whatever failed before it, so
    // that the ring keeps moving; the first error is returned.
    Task run(BlockCodec &coder, zip_algo_result_t *res);
    bool all_plain() const { return all_plain_; }

  private:
    struct Block {
        zip_block_t block{};
        char *bytes = nullptr; // byte view, when not plain
        bool plain = true;
    };
    int block_of_step(int k) const;
    int post_recv(int k, zip_req_t *req);
    int post_send(const Block &b, const char *out, size_t len, zip_req_t *req,
                  zip_algo_result_t *res);

    const zip_transport_t *t_ = nullptr;
    std::vector<Block> blocks_;
    int own_ = 0, tag_ = 0, next_ = 0, prev_ = 0;
    bool all_plain_ = true;
    // Frames to forward: step k's in slot (k+1) % 2, the own block's in slot 0; each slot's
    // previous user has been sent by the time it is reused.
    std::unique_ptr<char[]> owned_;
    char *slot_[2] = {nullptr, nullptr};
};

} // namespace zipcoll
