// The data sets' only source of randomness: splitmix64 to expand a 64-bit seed, xoshiro256** to
// draw. Both are fixed integer recurrences, so a seed gives the same stream on every machine.
#pragma once

#include <cstdint>

namespace zipdata
{

inline uint64_t splitmix64(uint64_t &state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Xoshiro256
{
  public:
    explicit Xoshiro256(uint64_t seed)
    {
        for (auto &w : s_)
            w = splitmix64(seed); // never all zero: splitmix64 is a bijection
    }

    uint64_t next()
    {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, 1) with 53 random bits.
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Uniform in [0, bound) for bound > 0 (multiply-shift; the bias is below 2^-32 for our bounds).
    uint64_t below(uint64_t bound) { return static_cast<uint64_t>((next() >> 32) * bound >> 32); }

  private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

} // namespace zipdata
