#include "verify.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace codecbench
{
namespace
{

bool size_matches(size_t decoded_bytes, size_t raw_bytes, Verdict *v)
{
    if (decoded_bytes == raw_bytes)
        return true;
    v->ok = false;
    v->error = "decoded " + std::to_string(decoded_bytes) + " bytes, expected " +
               std::to_string(raw_bytes);
    return false;
}

// What a lossy stage promises (lossy.hpp): a relative bound on normal values in its range, or an
// absolute bound on every finite value.
struct Bound {
    bool known = false;
    double rel = 0, abs = 0;                       // one of them is used
    double range_lo = DBL_MIN, range_hi = DBL_MAX; // magnitudes the relative bound applies to
};

Bound bound_of(const std::string &spec)
{
    Bound b;
    std::string stage = spec.substr(0, spec.find('+'));
    std::string arg = stage.find(':') == std::string::npos ? "" : stage.substr(stage.find(':') + 1);
    if (stage.rfind("trunc:", 0) == 0) {
        b.known = true;
        b.rel = std::ldexp(1.0, -(52 - std::atoi(arg.c_str())));
    } else if (stage == "f32") {
        b.known = true;
        b.rel = std::ldexp(1.0, -24);
        b.range_lo = FLT_MIN;
        b.range_hi = FLT_MAX;
    } else if (stage.rfind("rel:", 0) == 0) {
        b.known = true;
        b.rel = std::strtod(arg.c_str(), nullptr);
    } else if (stage.rfind("abs:", 0) == 0) {
        b.known = true;
        b.abs = std::strtod(arg.c_str(), nullptr);
    }
    return b;
}

} // namespace

Verdict verify_lossless(const void *original, const void *decoded, size_t decoded_bytes,
                        size_t raw_bytes)
{
    Verdict v;
    if (!size_matches(decoded_bytes, raw_bytes, &v))
        return v;
    if (std::memcmp(original, decoded, raw_bytes) != 0) {
        const unsigned char *a = static_cast<const unsigned char *>(original);
        const unsigned char *b = static_cast<const unsigned char *>(decoded);
        size_t i = 0;
        while (a[i] == b[i])
            ++i;
        v.ok = false;
        v.error = "round trip differs from the input at byte " + std::to_string(i);
    }
    return v;
}

Verdict verify_lossy(const std::string &spec, const double *original, const void *decoded,
                     size_t decoded_bytes, size_t raw_bytes)
{
    Verdict v;
    if (!size_matches(decoded_bytes, raw_bytes, &v))
        return v;
    const size_t n = raw_bytes / sizeof(double);
    std::vector<double> out(n);
    std::memcpy(out.data(), decoded, raw_bytes); // `decoded` may be unaligned
    const Bound b = bound_of(spec);
    for (size_t k = 0; k < n && v.ok; ++k) {
        double o = original[k], d = out[k];
        if (std::isnan(o) || std::isinf(o)) {
            bool same_kind = std::isnan(o) ? std::isnan(d) : d == o;
            if (!same_kind) {
                v.ok = false;
                v.error = "non-finite value " + std::to_string(k) + " changed kind";
            }
            continue;
        }
        double err = std::fabs(d - o), mag = std::fabs(o);
        bool in_range = mag >= b.range_lo && mag <= b.range_hi;
        if (in_range && mag > 0)
            v.max_rel_error = std::fmax(v.max_rel_error, err / mag);
        if (!b.known)
            continue;
        bool within = b.abs > 0 ? err <= b.abs : (!in_range || err <= b.rel * mag);
        if (!within) {
            v.ok = false;
            char values[64];
            std::snprintf(values, sizeof values, " (%.17g -> %.17g)", o, d);
            v.error = "value " + std::to_string(k) + " outside the " +
                      spec.substr(0, spec.find('+')) + " bound" + values;
        }
    }
    return v;
}

} // namespace codecbench
