// Which thread codes which block of a frame (codec_threads > 1).
//
// Each thread first takes the blocks of its own contiguous range, in order, then helps the
// others by taking their next blocks. Ranges keep every core on the same part of the frame and
// of the raw buffer from one call to the next: a block given to whichever thread asked first
// (one shared counter) lands on alternating cores, and the output's cache lines then move
// between them. Two threads decoded 1-16 MiB of smooth doubles at 1.56-1.83x one thread's
// speed so, and at 1.86-2.29x with ranges (docs/fast-codec.md, "Issue 11: codec threads,
// ranges and scratch").
// Helping keeps what the shared counter was for: a worker that wakes late, or meets costlier
// blocks, takes fewer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace zip
{

class BlockClaims
{
  public:
    static constexpr unsigned kMaxParts = 64;
    static constexpr size_t kNone = SIZE_MAX;

    // Blocks [0, nblocks) shared by parts threads (1 .. kMaxParts): thread t owns
    // [nblocks * t / parts, nblocks * (t + 1) / parts).
    BlockClaims(size_t nblocks, unsigned parts);
    BlockClaims(const BlockClaims &) = delete;
    BlockClaims &operator=(const BlockClaims &) = delete;

    // The next block for a thread, or kNone when every block is taken. `cursor` is the
    // thread's place among the ranges: thread t starts it at t (its own range) and passes the
    // same variable each time.
    size_t next(unsigned &cursor);

  private:
    struct alignas(64) Range {
        std::atomic<size_t> next{0};
        size_t end = 0;
    };
    Range ranges_[kMaxParts];
    unsigned parts_;
};

} // namespace zip
