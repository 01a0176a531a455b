// Inter-step ("temporal") coding of alltoallv's blocks (docs/design.md, "Temporal streams").
//
// Every blocking Alltoallv moves one block from each rank p to each rank q, in the same call
// order on every rank, so "the previous block from p to q on this communicator" is a stream
// that both ends see alike. Both ends keep, per peer and direction, the block that last went
// the compressed path (the reference); a sender may then code the next block of the same size
// as a delta frame against it. The rules that keep both ends in step use only what both know:
//  - a block that goes the compressed path (frame or raw, whatever the sender chose) becomes
//    the reference at both ends if it is at most stream_cap bytes, else both drop theirs;
//  - a block that moves plainly (below the threshold, empty, between ranks of one node, longer
//    than a message) drops the reference at both ends;
//  - only the sender chooses delta or plain, per block, and says so in the frame.
// So eviction never needs agreement: a sender without a reference just sends a plain frame.
// A receiver that lacks the reference anyway (it ran out of memory, or the ranks were given
// different settings) gets ZIP_E_STATE from the codec: ZIP_ALGO_ERR_STATE, never wrong data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace zipcoll
{

// A sender's choice between delta and plain frames on one stream: both are measured on a
// sample of the block now and then (the first call with a reference, then every kProbeEvery
// calls, and at once when a delta frame did worse than the plain sample last did); in between
// the winner codes every block. Delta must beat plain by kDeltaMargin, as it costs a pass over
// the reference and a check of it at both ends.
class TemporalChoice
{
  public:
    static constexpr unsigned kProbeEvery = 8;
    static constexpr double kDeltaMargin = 1.05;

    bool probe_due() const { return !probed_ || since_probe_ >= kProbeEvery; }
    // Ratios (raw / frame, 1 for a sample that did not shrink) of the same sample both ways.
    void probed(double plain_ratio, double delta_ratio);
    bool delta() const { return probed_ && delta_; }
    // A block was coded (as a delta frame or not) with this ratio.
    void coded(bool as_delta, double ratio);

  private:
    bool probed_ = false;
    bool delta_ = false;
    unsigned since_probe_ = 0;
    double plain_ratio_ = 0.0;
};

// The sample on which a sender compares delta and plain frames (twice the codec work on so
// many bytes, once every TemporalChoice::kProbeEvery calls).
constexpr size_t kProbeBytes = 16384;

// Codes the first n bytes of the block being sent against ref (nullptr: on its own) and
// returns the frame's length, 0 when it would not be shorter than n.
using SampleCoder = std::function<size_t(const char *ref, size_t n)>;

// What a sender codes a block of `bytes` bytes against: ref (the stream's reference of the same
// size, nullptr if none), or nullptr for a plain frame, as `choice` says after measuring both
// kinds on the block's first kProbeBytes with `code` when due (counted in *probes). codecbench
// --streams replays recorded messages through the same rule.
const char *choose_reference(TemporalChoice &choice, const char *ref, size_t bytes,
                             const SampleCoder &code, uint64_t *probes);

struct TemporalStream {
    std::vector<char> ref; // the reference, when held
    bool held = false;
    TemporalChoice choice; // sender side
};

// Counters over the life of a communicator's streams, for tests and statistics.
struct TemporalCounts {
    uint64_t delta_frames = 0; // frames sent coded against a reference
    uint64_t plain_frames = 0; // frames sent on their own while a reference was held
    uint64_t probes = 0;       // samples coded both ways
};

} // namespace zipcoll

// The C handle of zip_algo.h: a communicator's streams, both directions, one per peer.
struct zip_algo_temporal {
    zip_algo_temporal(int size, size_t memory);

    // The reference held for the block of `bytes` bytes to (sending) or from `peer` if it can
    // code or decode it (same size), else nullptr.
    const char *reference(int peer, bool sending, size_t bytes) const;
    // A block of the compressed path moved (sending), or arrived intact (!sending): it becomes
    // the reference, or the reference is dropped (too long for stream_cap, or out of memory).
    void keep(int peer, bool sending, const char *block, size_t bytes);
    // A block moved plainly, or did not arrive intact: the reference is dropped.
    void drop(int peer, bool sending);

    zipcoll::TemporalStream &stream(int peer, bool sending)
    {
        return (sending ? send : recv)[size_t(peer)];
    }
    size_t bytes() const; // references held, both directions

    size_t stream_cap; // the longest block kept: memory / (2 (size - 1)), the same at both ends
    std::vector<zipcoll::TemporalStream> send, recv;
    zipcoll::TemporalCounts counts;
};
