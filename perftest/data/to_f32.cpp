// The binary32 variant of the data sets. A plain (float) cast is deterministic for numbers
// (IEEE round to nearest) but not for NaNs, whose payload handling is left to the hardware, so
// NaNs are converted by hand the way x86 and ARM do it.
#include <cstring>
#include <new>
#include <vector>

#include "zipdata.h"

extern "C" {

void zipdata_to_f32(const double *in, float *out, size_t n)
{
    for (size_t k = 0; k < n; ++k) {
        uint64_t bits;
        std::memcpy(&bits, &in[k], sizeof bits);
        bool is_nan = ((bits >> 52) & 0x7FF) == 0x7FF && (bits & 0x000FFFFFFFFFFFFFull) != 0;
        if (!is_nan) {
            out[k] = static_cast<float>(in[k]);
            continue;
        }
        // sign, all-ones exponent, quiet bit, top 22 bits of the double's 51-bit payload
        uint32_t f = static_cast<uint32_t>(bits >> 32) & 0x80000000u;
        f |= 0x7FC00000u | static_cast<uint32_t>((bits >> 29) & 0x003FFFFFu);
        std::memcpy(&out[k], &f, sizeof f);
    }
}

int zipdata_fill_f32(const char *name, float *out, size_t n, uint64_t seed_or_step)
{
    if (!zipdata_description(name))
        return ZIPDATA_E_NAME;
    if (zipdata_type(name) != ZIPDATA_F64)
        return ZIPDATA_E_TYPE;
    if (!out && n > 0)
        return ZIPDATA_E_ARG;
    try {
        // Generated as doubles and then narrowed, so the f32 set is the f64 set rounded.
        std::vector<double> scratch(n);
        int rc = zipdata_fill(name, scratch.data(), n, seed_or_step);
        if (rc != ZIPDATA_OK)
            return rc;
        zipdata_to_f32(scratch.data(), out, n);
        return ZIPDATA_OK;
    } catch (const std::bad_alloc &) {
        return ZIPDATA_E_NOMEM;
    }
}

} // extern "C"
