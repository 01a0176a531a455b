#include "temporal_choice.hpp"

namespace zipcoll
{

void TemporalChoice::probed(double plain_ratio, double delta_ratio)
{
    probed_ = true;
    since_probe_ = 0;
    plain_ratio_ = plain_ratio;
    delta_ = delta_ratio > plain_ratio * kDeltaMargin;
}

void TemporalChoice::coded(bool as_delta, double ratio)
{
    if (since_probe_ < kProbeEvery)
        ++since_probe_;
    // The data stopped following their previous step: measure again at the next block.
    if (as_delta && ratio < plain_ratio_)
        since_probe_ = kProbeEvery;
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
