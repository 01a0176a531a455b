// Bruck's allgather with a few messages per step (bruck.hpp sends one per block): for blocks
// whose wire time is short next to a latency, where p - 1 messages per rank cost more than the
// bytes they carry and tuned's Bruck and recursive doubling send one per step.
//
// Same steps as bruck.hpp: at distance d = 1, 2, 4, .. < size a rank sends offsets 0 .. n-1
// (blocks own .. own + n - 1, n = min(d, size - d)) to rank - d and receives offsets
// d .. d + n - 1 from rank + d. A rank keeps every wire it holds in one store, in chunks of K
// offsets (K the largest power of two with K of the largest block within kStepsChunkBytes):
// chunk c at the raw length of offsets 0 .. cK-1, its wires packed inside it in offset order, so
// that a chunk's first offsets are a prefix of it and go out as they lie. Steps d < K fill chunk
// 0 as the textbook Bruck does (its own wire first, each step's wires behind the previous
// step's, where its lengths put them); from d = K on, d is a multiple of K and a step moves whole
// chunks (the last step perhaps a chunk's first offsets), each a message received at its fixed
// place. A step's lengths (32-bit words, indexed by offset in one array) travel as one message
// first, as in the scatter-allgather bcast, so that a transport that carries lengths but not the
// bytes of large messages (perftest/simscale's) can run it; every receive is posted at the raw
// length of its offsets before anything is waited for. A wire shorter than its block is a frame.
// Frames are decoded from the store, raw blocks copied out of it (transport.h's copy): a step's
// while the next step's messages move, the last step's chunk by chunk as they arrive. Every
// non-empty block goes through the store, plain ones (below the threshold) as raw wires through
// their byte views.
//
// Memory beside the caller's blocks: the store, the sum of every block's raw size (kept between
// calls, raw_buffer), and a length per rank.
#pragma once

#include <cstdint>
#include <vector>

#include "block_codec.hpp"
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// ZIP_ALLGATHERV_BRUCK takes this form where no block is larger than this (and its messages fit
// the transport's longest one), a message per block above it: there a block's wire time dwarfs
// a message's cost, and the store would double the memory of a large call.
inline constexpr size_t kBruckStepsLargest = size_t(512) << 10;

// About the raw bytes of a chunk: large enough that a message costs little next to its bytes,
// small enough that the last step's frames decode while later chunks arrive.
inline constexpr size_t kStepsChunkBytes = size_t(128) << 10;

class BruckStepsAllgather
{
  public:
    // As BruckAllgather::prepare; also fails where the store cannot be had.
    int prepare(const zip_transport_t *t, const BlockPolicy &policy, const zip_block_t *blocks,
                int own, int tag);
    Task run(BlockCodec &coder, zip_algo_result_t *res);
    bool all_plain() const { return all_plain_; }
    int chunk() const { return chunk_; }

  private:
    // Offsets first .. first+count-1, whose wires lie from byte `at` of the store.
    struct Piece {
        int first = 0, count = 0;
        size_t at = 0;
        zip_req_t req = nullptr;
    };
    GatherBlock &block(int offset) { return blocks_[size_t((own_ + offset) % t_->size)]; }
    const GatherBlock &block(int offset) const
    {
        return blocks_[size_t((own_ + offset) % t_->size)];
    }
    size_t raw_of(int first, int count) const
    {
        return raw_before_[size_t(first + count)] - raw_before_[size_t(first)];
    }
    size_t wires_of(int first, int count) const;
    // Offsets first .. first+count-1 as they lie in the store: one piece below distance K (in
    // chunk 0, from byte `held`), else a piece per chunk.
    void pieces(int first, int count, size_t held, std::vector<Piece> *out) const;
    // The own block into the store at offset 0: its frame, or the block itself.
    void put_own(BlockCodec &coder);
    int send_step(int count, int to, zip_algo_result_t *res);
    // A step's lengths for offsets first .. first+count-1 arrived (got bytes): lengths that
    // cannot be are replaced by the raw lengths, so that where wires land and what this rank
    // forwards stay consistent; the step is then an error.
    int check_lengths(int first, int count, size_t got);
    // A piece arrived with `got` bytes: the same check against its lengths.
    int check_piece(const Piece &p, size_t got);
    // A piece into the caller's blocks: frames decoded, raw blocks copied.
    int settle(const Piece &p, BlockCodec &coder);

    const zip_transport_t *t_ = nullptr;
    std::vector<GatherBlock> blocks_;
    std::vector<WireLen> lens_;      // by offset
    std::vector<size_t> raw_before_; // the raw bytes of offsets 0 .. j-1, j = 0 .. size
    RawBuffer store_;
    int own_ = 0, tag_ = 0, chunk_ = 1;
    bool all_plain_ = true;
    // This step's receives and sends; the previous step's receives, to settle.
    std::vector<Piece> in_, out_, pending_;
    std::vector<zip_req_t> sends_; // every send, waited for at the end
};

} // namespace zipcoll
