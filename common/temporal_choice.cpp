#include "temporal_choice.hpp"

namespace zipcoll
{

void TemporalChoice::probed(double plain_ratio, double delta_ratio)
{
    // A periodic measurement (or the first) starts a period; an early one does not, so that
    // the next periodic one comes when it would have.
    if (!probed_ || since_probe_ >= kProbeEvery) {
        since_probe_ = 0;
        may_recheck_ = true;
    }
    probed_ = true;
    recheck_ = false;
    plain_ratio_ = plain_ratio;
    delta_ = delta_ratio > plain_ratio * kDeltaMargin;
}

void TemporalChoice::coded(bool as_delta, double ratio)
{
    if (since_probe_ < kProbeEvery)
        ++since_probe_;
    // The data stopped following their previous step (a delta did worse than plain frames
    // did), or stopped compressing on their own (and may as deltas): measure again at the
    // next block, once per period.
    const bool changed =
        as_delta ? ratio < plain_ratio_ : ratio <= 1.0 && plain_ratio_ >= kDeltaMargin;
    if (changed && may_recheck_) {
        recheck_ = true;
        may_recheck_ = false;
    }
}

const char *choose_reference(TemporalChoice &choice, const char *ref, size_t bytes,
                             const SampleCoder &code, uint64_t *probes)
{
    if (ref == nullptr || bytes < 2)
        return nullptr;
    if (choice.probe_due()) {
        const size_t n = bytes < kProbeBytes ? bytes : kProbeBytes;
        auto ratio = [&](const char *against) {
            const size_t len = code(against, n);
            return len > 0 && len < n ? double(n) / double(len) : 1.0;
        };
        const double plain = ratio(nullptr);
        choice.probed(plain, ratio(ref));
        ++*probes;
    }
    return choice.delta() ? ref : nullptr;
}

} // namespace zipcoll
