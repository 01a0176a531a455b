// special: the IEEE corner cases a lossless codec must carry bit for bit (NaN payloads and signs,
// signalling NaNs, -0.0, infinities, denormals), mixed with ordinary smooth values. Values are
// written as bit patterns through memcpy: loading a signalling NaN into an FP register and doing
// arithmetic on it would quiet it.
#include "deterministic_fp.hpp"

#include <cstring>

#include "generators.hpp"
#include "portable_math.hpp"
#include "prng.hpp"
#include "zipdata.h"

namespace zipdata
{
namespace
{

constexpr uint64_t kSign = 0x8000000000000000ull;
constexpr uint64_t kExpAll = 0x7FF0000000000000ull;
constexpr uint64_t kQuiet = 0x0008000000000000ull; // the quiet bit, top of the mantissa
constexpr uint64_t kMantissa = 0x000FFFFFFFFFFFFFull;

// The first values of the set, in this order, whatever n and the seed (tests rely on it).
constexpr uint64_t kCatalogue[] = {
    0x0000000000000000ull, // +0.0
    0x8000000000000000ull, // -0.0
    0x7FF0000000000000ull, // +inf
    0xFFF0000000000000ull, // -inf
    0x7FF8000000000000ull, // quiet NaN, no payload (the canonical NaN)
    0xFFF8000000000000ull, // -quiet NaN, no payload (x86's default NaN)
    0x7FF800000000BEEFull, // quiet NaN with payload
    0xFFFC0123456789ABull, // -quiet NaN with payload
    0x7FF0000000000001ull, // signalling NaN, smallest payload
    0xFFF0DEADBEEF0001ull, // -signalling NaN with payload
    0x7FF7FFFFFFFFFFFFull, // signalling NaN, largest payload
    0x0000000000000001ull, // smallest denormal
    0x800FFFFFFFFFFFFFull, // -largest denormal
    0x0000000123456789ull, // denormal
    0x0010000000000000ull, // DBL_MIN, smallest normal
    0x8010000000000000ull, // -DBL_MIN
    0x7FEFFFFFFFFFFFFFull, // DBL_MAX
    0xFFEFFFFFFFFFFFFFull, // -DBL_MAX
    0x3FF0000000000000ull, // 1.0
    0xBFD5555555555555ull, // -1/3
};
constexpr size_t kCatalogueSize = sizeof kCatalogue / sizeof kCatalogue[0];

uint64_t random_special(Xoshiro256 &rng)
{
    uint64_t sign = rng.next() & kSign;
    uint64_t payload = rng.next() & (kMantissa >> 1); // below the quiet bit
    switch (rng.below(6)) {
    case 0:
        return sign; // +-0
    case 1:
        return sign | kExpAll; // +-inf
    case 2:
        return sign | kExpAll | kQuiet | payload; // quiet NaN
    case 3:
        return sign | kExpAll | (payload ? payload : 1); // signalling NaN
    case 4:
        return sign | (payload ? payload : 1); // denormal
    default:
        return sign | (0x7FEull << 52) | payload; // huge normal
    }
}

} // namespace

int fill_special(double *out, size_t n, uint64_t seed)
{
    Xoshiro256 rng(seed);
    for (size_t k = 0; k < n; ++k) {
        uint64_t bits;
        if (k < kCatalogueSize) {
            bits = kCatalogue[k];
        } else if (rng.next() & 1) {
            double smooth = 1000.0 * portable_sin(0.01 * static_cast<double>(k)); // ordinary data
            std::memcpy(&bits, &smooth, sizeof bits);
        } else {
            bits = random_special(rng);
        }
        std::memcpy(&out[k], &bits, sizeof bits);
    }
    return ZIPDATA_OK;
}

} // namespace zipdata
