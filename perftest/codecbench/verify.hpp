// Round-trip checks: no figure is reported for a codec whose output does not decode back to the
// input (bit for bit), or, for a lossy spec, to within the bound its lossy stage promises.
#pragma once

#include <cstddef>
#include <string>

namespace codecbench
{

struct Verdict {
    bool ok = true;
    std::string error;        // why not ok
    double max_rel_error = 0; // lossy only: largest |decoded - original| / |original| seen
};

// Lossless: decoded must equal original byte for byte.
Verdict verify_lossless(const void *original, const void *decoded, size_t decoded_bytes,
                        size_t raw_bytes);

// Lossy: sizes must match, NaN and infinities must come back unchanged in kind, and finite values
// within the bound of the spec's lossy stage (trunc:N, f32, abs:E, rel:R as in zip.h's specs; an
// unknown stage is only measured, not bounded).
Verdict verify_lossy(const std::string &spec, const double *original, const void *decoded,
                     size_t decoded_bytes, size_t raw_bytes);

} // namespace codecbench
