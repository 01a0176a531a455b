// random and random-unit: seeded, incompressible data (the worst case every codec must survive
// without expanding much).
#include <cstring>

#include "generators.hpp"
#include "prng.hpp"
#include "zipdata.h"

namespace zipdata
{

int fill_random_bits(double *out, size_t n, uint64_t seed)
{
    Xoshiro256 rng(seed);
    for (size_t k = 0; k < n; ++k) {
        uint64_t bits;
        do
            bits = rng.next();
        while (((bits >> 52) & 0x7FF) == 0x7FF); // keep the set finite: NaN/inf are "special"'s job
        std::memcpy(&out[k], &bits, sizeof bits);
    }
    return ZIPDATA_OK;
}

int fill_random_unit(double *out, size_t n, uint64_t seed)
{
    Xoshiro256 rng(seed);
    for (size_t k = 0; k < n; ++k)
        out[k] = rng.unit();
    return ZIPDATA_OK;
}

} // namespace zipdata
