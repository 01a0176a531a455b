// A Bruck allgather of blocks, each compressed once by its owner and forwarded as the frame it
// became: allgatherv's schedule where the ring pays too many latencies (allgatherv_algo.cpp).
//
// Steps d = 1, 2, 4, .. < size: a rank sends the n = min(d, size - d) blocks it holds first
// (own, own + 1, .., own + n - 1; ids mod size) to rank - d and receives blocks own + d ..
// own + d + n - 1 from rank + d, so after the step with distance d it holds 2d consecutive blocks.
// ceil(log2 size) latencies where the ring pays size - 1, and each step moves the sum of
// neighbouring blocks, so blocks of unequal sizes even out (the ring waits for the largest
// block at every step). Every block is one message per hop (no segments): a frame is forwarded
// as it arrived, and the frames of a step are decoded while the next step's messages move (the
// last step's as each arrives). A receiver tells a frame from a raw block by its length (a
// frame is shorter than its block), so ranks need not agree on which blocks were compressed.
//
// Memory beside the caller's blocks, one buffer kept between calls (raw_buffer): a slot the size
// of this rank's own block for its frame, one for each block that arrives before the last step
// (those are forwarded; about half the blocks) and one that the last step's frames share.
#pragma once

#include <vector>

#include "block_codec.hpp"
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

class BruckAllgather
{
  public:
    // blocks[b] is block b (size entries), `own` this rank's; plain ones (policy.plain) travel
    // in the caller's layout, the others through their byte views (made here) and the codec.
    // Fails only for lack of memory or a byte view; nothing is posted yet.
    int prepare(const zip_transport_t *t, const BlockPolicy &policy, const zip_block_t *blocks,
                int own, int tag);
    // Runs the steps with `coder` and counts the coded blocks this rank sends in res. Every
    // step runs whatever failed before it, so that no peer waits for ever; the first error is
    // returned.
    Task run(BlockCodec &coder, zip_algo_result_t *res);
    bool all_plain() const { return all_plain_; }

  private:
    struct Block : GatherBlock {
        // Where its frame is set aside (nullptr: the last step's shared slot).
        char *slot = nullptr;
        // What this rank forwards: a frame (its own, or one received and set aside in the slot)
        // or, when wire == bytes, the raw block.
        const char *wire = nullptr;
        size_t wire_len = 0;
    };
    Block &block(int offset) { return blocks_[size_t((own_ + offset) % t_->size)]; }
    int post_recv(Block &b, int peer, zip_req_t *req);
    int post_send(const Block &b, int peer, zip_req_t *req, zip_algo_result_t *res);
    // A receive of b completed with `got` bytes: a frame is set aside in its slot and decoded
    // while the next step moves, or, on the last step, decoded now through the shared slot; a
    // raw block is already in place.
    int arrived(Block &b, int peer, size_t got, BlockCodec &coder);

    const zip_transport_t *t_ = nullptr;
    std::vector<Block> blocks_;
    RawBuffer store_;
    char *last_slot_ = nullptr; // the last step's frames, one at a time
    int own_ = 0, tag_ = 0;
    bool all_plain_ = true;
    struct Pending {
        Block *block;
        int peer;
    };
    std::vector<Pending> to_decode_;  // frames of the previous step
    std::vector<zip_req_t> receives_; // one step's, in block order
    std::vector<zip_req_t> sends_;    // every send, waited for at the end
};

} // namespace zipcoll
