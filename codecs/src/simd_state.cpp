// VZEROUPPER after codec work (simd_state.hpp says why).
#include "simd_state.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace zip
{

namespace
{
__attribute__((target("avx"))) void zero_upper()
{
    _mm256_zeroupper();
}
} // namespace

void clear_upper_state()
{
    static const bool avx = __builtin_cpu_supports("avx") != 0;
    if (avx)
        zero_upper();
}

} // namespace zip

#else

namespace zip
{
void clear_upper_state() {}
} // namespace zip

#endif
