// A ring allgather of blocks, each compressed once by its owner and forwarded as the frame it
// became: allgatherv's whole schedule, and allreduce's second phase.
//
// Step k = 0 .. size-2: a rank sends block own-k to the next rank and receives block own-k-1
// from the previous one (block ids mod size); the block received at step k is the one sent at
// step k+1. Blocks that may be compressed travel in segments of 16-48 KiB, each its own frame,
// and each segment is forwarded as soon as it has arrived, so a block streams round the ring
// (whole blocks cost a rendezvous and a full block's wait per step). On a fast link (the agreed
// rate at least kFastLinkBps, exchange.hpp) a block whose owner finds on its first segment that
// compressing does not pay travels whole and raw instead, one message per hop; every receiver
// tells it by its first message, which has room for the block (a whole block is longer than any
// segment), so ranks whose link estimates differ still agree. A rank waits for its sends
// of step k - 1 before it starts step k (whose forwards reuse their slots), so every wait points
// to an earlier step of a neighbour: no deadlock.
#pragma once

#include <memory>
#include <vector>

#include "block_codec.hpp"
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// The segment of a ring whose largest block is `block` bytes: a quarter of it, between 16 KiB
// (and the threshold: a smaller segment goes raw) and 48 KiB (a raw segment and its frame header
// stay below the TCP BTL's 64 KiB eager limit: no rendezvous per segment), a multiple of 64
// bytes (whole elements of every type), the same on every rank.
size_t ring_segment_bytes(size_t block, size_t threshold);

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
    using Block = GatherBlock;
    int block_of_step(int k) const;
    // Whether b may travel as one raw message instead of segments: a coded block of several
    // segments, whose owner found that compressing it does not pay (and sends whole).
    bool may_come_whole(const Block &b) const;
    // A plain block is one segment, moved in the caller's layout.
    size_t segments(const Block &b) const;
    size_t segment_bytes(const Block &b, size_t j) const;
    int post_recv(const Block &b, size_t j, zip_req_t *req);
    // Segment j of b as `out` (len bytes); a coded one is counted in res (raw and wire bytes).
    int post_send(const Block &b, size_t j, const char *out, size_t len, zip_req_t *req,
                  zip_algo_result_t *res);

    const zip_transport_t *t_ = nullptr;
    std::vector<Block> blocks_;
    int own_ = 0, tag_ = 0, next_ = 0, prev_ = 0;
    bool all_plain_ = true;
    bool whole_when_raw_ = false; // this rank sends its own block whole when it goes raw
    size_t segment_ = 1;
    // Frames to forward: step k's in slot (k+1) % 2, the own block's in slot 0, segment j at
    // j * segment_; each slot's previous user has been sent by the time it is reused.
    RawBuffer owned_;
    char *slot_[2] = {nullptr, nullptr};
    std::vector<zip_req_t> sends_[2], receives_; // per segment: round (step + 1) % 2
};

} // namespace zipcoll
