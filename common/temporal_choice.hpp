// The sender's choice between a temporal delta frame and a plain frame, shared by coll/zip's
// Alltoall(v) streams (ompi-coll-zip/algo/temporal_streams.hpp), pml/zip's point-to-point
// streams (common/p2p_streams.h) and codecbench --streams, so that all three apply one rule.
// No MPI here: libziptemporal is linked into both components, the unit tests and codecbench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace zipcoll
{

// A sender's choice between delta and plain frames on one stream: both are measured on a
// sample of the block now and then (the first call with a reference, then every kProbeEvery
// calls), and in between the winner codes every block. Delta must beat plain by kDeltaMargin,
// as it costs a pass over the reference and a check of it at both ends. The data may change
// character between two measurements; two signs of it bring the next one forward to the next
// call: a delta frame did worse than the plain sample last did, or a plain block did not shrink
// at all where the last sample's plain frames did (a phase of the job whose data no longer
// compress on their own, and may as deltas). At most one such early measurement per period, so
// data whose frames swing from call to call cost at most two samples every kProbeEvery calls.
class TemporalChoice
{
  public:
    static constexpr unsigned kProbeEvery = 8;
    static constexpr double kDeltaMargin = 1.05;

    bool probe_due() const { return !probed_ || recheck_ || since_probe_ >= kProbeEvery; }
    // Ratios (raw / frame, 1 for a sample that did not shrink) of the same sample both ways.
    void probed(double plain_ratio, double delta_ratio);
    bool delta() const { return probed_ && delta_; }
    // A block of the stream moved: coded as a delta frame (as_delta) or not, with this ratio;
    // 1 for a block that went raw, whether it was coded and did not shrink or was not coded at
    // all (the call's sample found compressing does not pay). Every block counts towards the
    // next measurement, coded or not.
    void coded(bool as_delta, double ratio);
    // The plain frames' ratio the last sample measured (0 before the first).
    double plain_ratio() const { return plain_ratio_; }

  private:
    bool probed_ = false;
    bool delta_ = false;
    bool recheck_ = false;     // the next call measures (an early measurement)
    bool may_recheck_ = false; // this period has not had its early measurement yet
    unsigned since_probe_ = 0; // calls since the last periodic measurement
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
// kinds on the block's first kProbeBytes with `code` when due (counted in *probes).
const char *choose_reference(TemporalChoice &choice, const char *ref, size_t bytes,
                             const SampleCoder &code, uint64_t *probes);

} // namespace zipcoll
