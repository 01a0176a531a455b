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
#include <vector>

#include "temporal_choice.hpp" // the delta-or-plain rule, shared with pml/zip

namespace zipcoll
{

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
