// Sparse plane coding (fast.cpp, coding 9: a bit mask of the bytes that are not zero, then
// those bytes) and run coding (coding 8: a bit mask of the bytes that differ from the one
// before, then those bytes) 64 bytes per step on AVX-512 VBMI2: a byte compare gives 64 mask
// bits at once, vpcompressb gathers the literals and vpexpandb puts them back. The BMI2 kernels
// (fast_transpose.cpp) take 8 bytes per step. Sparse planes are the interleaved fields with
// zeros of real application messages (docs/fast-codec.md): on small messages these loops were
// a quarter of the codec's time; run-coded planes are the smooth fields' middle planes (the
// BMI2 run decoder was 7-9 % of sincos's cycles, bound by its carry from group to group).
#include "fast_transpose.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>

namespace zip::fast_detail
{
#define ZIP_VBMI2 __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")))

namespace
{
// Byte j of the result: byte j - 1 of (prev, v) read as one 128-byte vector, i.e. the byte
// before v's byte j (prev's last byte for j = 0).
ZIP_VBMI2 inline __m512i bytes_before(__m512i prev, __m512i v)
{
    alignas(64) static constexpr uint8_t kIdx[64] = {
        63,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,  76,  77,  78,
        79,  80,  81,  82,  83,  84,  85,  86,  87,  88,  89,  90,  91,  92,  93,  94,
        95,  96,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110,
        111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126};
    return _mm512_permutex2var_epi8(prev, _mm512_load_si512(kIdx), v);
}

// Lanes moved up (toward byte 63) by the shift idx holds; zeros where keep is clear.
ZIP_VBMI2 inline __m512i lanes_up(__m512i v, const __m512i &idx, __mmask64 keep)
{
    return _mm512_maskz_permutexvar_epi8(keep, idx, v);
}

// A decoder's step of n plane bytes from byte i: its mask bits, and its literals expanded into
// place (zeros elsewhere). The caller has checked that the mask's set bits count the literals,
// so the expanding loads read exactly [lits, lits_end).
struct Expanded {
    __mmask64 mask;
    __m512i bytes;
};
ZIP_VBMI2 inline Expanded expand_literals(const uint8_t *mask, size_t i, size_t n,
                                          const uint8_t *&lits)
{
    __mmask64 m = 0;
    std::memcpy(&m, mask + i / 8, (n + 7) / 8);
    const __m512i v = _mm512_maskz_expandloadu_epi8(m, lits);
    lits += __builtin_popcountll(m);
    return {m, v};
}

// The mask of a step, then the literals it marks: a byte that is not zero (sparse) or that
// differs from the one before it (runs; the byte before byte 0 counts as 0).
template <bool Runs>
ZIP_VBMI2 size_t encode_masked(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size)
{
    const size_t groups = (count + 7) / 8;
    if (out_size < groups)
        return 0;
    uint8_t *lit = out + groups;
    size_t room = out_size - groups;
    __m512i prev = _mm512_setzero_si512();
    for (size_t i = 0; i < count; i += 64) {
        const size_t n = std::min<size_t>(64, count - i);
        const __m512i v = _mm512_maskz_loadu_epi8(low_bits64(n), plane + i);
        const __mmask64 m = Runs ? _mm512_cmpneq_epi8_mask(v, bytes_before(prev, v)) & low_bits64(n)
                                 : _mm512_test_epi8_mask(v, v);
        const size_t k = static_cast<size_t>(__builtin_popcountll(m));
        if (k > room)
            return 0;
        // Mask byte g covers plane bytes 8g..8g+7: the little-endian bytes of m.
        std::memcpy(out + i / 8, &m, (n + 7) / 8);
        // The register form and a masked store: the memory form of vpcompressb is microcoded.
        _mm512_mask_storeu_epi8(lit, low_bits64(k), _mm512_maskz_compress_epi8(m, v));
        lit += k;
        room -= k;
        prev = v;
    }
    return static_cast<size_t>(lit - out);
}
} // namespace

ZIP_VBMI2 size_t encode_sparse_vbmi2(const uint8_t *plane, size_t count, uint8_t *out,
                                     size_t out_size)
{
    return encode_masked<false>(plane, count, out, out_size);
}

ZIP_VBMI2 size_t encode_runs_vbmi2(const uint8_t *plane, size_t count, uint8_t *out,
                                   size_t out_size)
{
    return encode_masked<true>(plane, count, out, out_size);
}

ZIP_VBMI2 void decode_sparse_vbmi2(const uint8_t *mask, const uint8_t *lits,
                                   const uint8_t * /*lits_end*/, size_t count, uint8_t *plane)
{
    for (size_t i = 0; i < count; i += 64) {
        const size_t n = std::min<size_t>(64, count - i);
        _mm512_mask_storeu_epi8(plane + i, low_bits64(n), expand_literals(mask, i, n, lits).bytes);
    }
}

// vpexpandb puts the literals in place; every other byte takes the last literal at or before
// it: per lane the position + 1 of the literals, a running maximum over the lanes in six
// doubling steps, then one vpermb. Lanes before the vector's first literal take the last byte
// of the vector before (the only dependency between steps).
ZIP_VBMI2 void decode_runs_vbmi2(const uint8_t *mask, const uint8_t *lits,
                                 const uint8_t * /*lits_end*/, size_t count, uint8_t *plane)
{
    // Built once, not per plane: position + 1 per lane, and per doubling step k = 1 << s the
    // lane each lane reads (j - k) and the lanes that have one (j >= k).
    struct Tables {
        alignas(64) uint8_t pos1[64], up[6][64];
        __mmask64 keep[6];
    };
    static const Tables t = [] {
        Tables t{};
        for (unsigned j = 0; j < 64; ++j)
            t.pos1[j] = static_cast<uint8_t>(j + 1);
        for (unsigned s = 0; s < 6; ++s) {
            const unsigned k = 1u << s;
            for (unsigned j = 0; j < 64; ++j)
                t.up[s][j] = static_cast<uint8_t>(j >= k ? j - k : 0);
            t.keep[s] = ~low_bits64(k);
        }
        return t;
    }();
    const __m512i position = _mm512_load_si512(t.pos1), one = _mm512_set1_epi8(1);
    __m512i shifts[6];
    for (unsigned s = 0; s < 6; ++s)
        shifts[s] = _mm512_load_si512(t.up[s]);
    const __m512i last_lane = _mm512_set1_epi8(63);
    __m512i carry = _mm512_setzero_si512(); // the byte before byte 0 counts as 0
    for (size_t i = 0; i < count; i += 64) {
        const size_t n = std::min<size_t>(64, count - i);
        const Expanded e = expand_literals(mask, i, n, lits);
        __m512i from = _mm512_maskz_mov_epi8(e.mask, position);
        for (unsigned s = 0; s < 6; ++s)
            from = _mm512_max_epu8(from, lanes_up(from, shifts[s], t.keep[s]));
        const __mmask64 seen = _mm512_test_epi8_mask(from, from);
        const __m512i bytes =
            _mm512_mask_permutexvar_epi8(carry, seen, _mm512_sub_epi8(from, one), e.bytes);
        _mm512_mask_storeu_epi8(plane + i, low_bits64(n), bytes);
        carry = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, last_lane, bytes);
    }
}

} // namespace zip::fast_detail

#endif // __x86_64__
