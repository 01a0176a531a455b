// Sparse plane coding (fast.cpp, coding 9: a bit mask of the bytes that are not zero, then
// those bytes) 64 bytes per step on AVX-512 VBMI2: a byte test gives 64 mask bits at once,
// vpcompressb gathers the literals and vpexpandb puts them back. The BMI2 kernels
// (fast_transpose.cpp) take 8 bytes per step. Sparse planes are the interleaved fields with
// zeros of real application messages (docs/fast-codec.md): on small messages these loops were
// a quarter of the codec's time.
#include "fast_transpose.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>

namespace zip::fast_detail
{
#define ZIP_VBMI2 __attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt")))

ZIP_VBMI2 size_t encode_sparse_vbmi2(const uint8_t *plane, size_t count, uint8_t *out,
                                     size_t out_size)
{
    const size_t groups = (count + 7) / 8;
    if (out_size < groups)
        return 0;
    uint8_t *lit = out + groups;
    size_t room = out_size - groups;
    for (size_t i = 0; i < count; i += 64) {
        const size_t n = std::min<size_t>(64, count - i);
        const __m512i v = _mm512_maskz_loadu_epi8(low_bits64(n), plane + i);
        const __mmask64 m = _mm512_test_epi8_mask(v, v);
        const size_t k = static_cast<size_t>(__builtin_popcountll(m));
        if (k > room)
            return 0;
        // Mask byte g covers plane bytes 8g..8g+7: the little-endian bytes of m.
        std::memcpy(out + i / 8, &m, (n + 7) / 8);
        // The register form and a masked store: the memory form of vpcompressb is microcoded.
        _mm512_mask_storeu_epi8(lit, low_bits64(k), _mm512_maskz_compress_epi8(m, v));
        lit += k;
        room -= k;
    }
    return static_cast<size_t>(lit - out);
}

// The caller has checked that the mask's set bits count the literals, so the expanding loads
// read exactly [lits, lits_end).
ZIP_VBMI2 void decode_sparse_vbmi2(const uint8_t *mask, const uint8_t *lits,
                                   const uint8_t * /*lits_end*/, size_t count, uint8_t *plane)
{
    for (size_t i = 0; i < count; i += 64) {
        const size_t n = std::min<size_t>(64, count - i);
        __mmask64 m = 0;
        std::memcpy(&m, mask + i / 8, (n + 7) / 8);
        const __m512i v = _mm512_maskz_expandloadu_epi8(m, lits);
        lits += __builtin_popcountll(m);
        _mm512_mask_storeu_epi8(plane + i, low_bits64(n), v);
    }
}

} // namespace zip::fast_detail

#endif // __x86_64__
