// The split of 8- and 4-byte elements into byte planes, fused with prediction
// (fast_transpose.hpp), 64 elements a step on AVX-512 VBMI. 8-byte elements: eight 512-bit
// loads (and the same loads one and two strides back for the predictors), one vpermb per
// register that gathers each byte position of its 8 elements into a qword (an 8x8 byte
// transpose), then an 8x8 transpose of qwords across the eight registers (3 rounds of 8
// two-source shuffles): register k ends up holding plane k's 64 bytes in element order. 32
// shuffles per 64 elements where the AVX2 kernel needs 40 per 32. 4-byte elements: the same
// with four registers and 128-bit lanes (split4_step). The last partial step uses masked loads
// and stores, so a small block does not fall back to the byte loop.
#include "fast_transpose.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

namespace zip::fast_detail
{
namespace
{

#define ZIP_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define ZIP_VBMI_INLINE __attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) inline

// The masked forms with every lane set: GCC 12's plain forms start from an undefined vector and
// warn about it (-Wmaybe-uninitialized), as in fast_unpredict_avx512.cpp.
constexpr __mmask8 kAll = 0xff;

constexpr __mmask16 kAll16 = 0xffff;

// vpermb indices that gather byte b of every element of a register of `width`-byte elements
// into its b-th 64/width-byte group: byte (64/width) b + j <- byte width j + b.
struct alignas(64) ByteTable {
    uint8_t v[64];
};
constexpr ByteTable bytes_by_plane(unsigned width)
{
    ByteTable t{};
    const unsigned per = 64 / width;
    for (unsigned p = 0; p < 64; ++p)
        t.v[p] = static_cast<uint8_t>(width * (p % per) + p / per);
    return t;
}
constexpr ByteTable kPlanes8 = bytes_by_plane(8), kPlanes4 = bytes_by_plane(4);

// Residuals as fast.cpp defines them: v ^ x1, zigzag(v - x1), zigzag(v - 2 x1 + x2), on lanes
// of U.
template <class U, unsigned Pred>
ZIP_VBMI_INLINE __m512i residual(__m512i v, __m512i x1, __m512i x2)
{
    if constexpr (Pred == kPredNone)
        return v;
    if constexpr (Pred == kPredXor)
        return _mm512_xor_si512(v, x1);
    if constexpr (sizeof(U) == 8) {
        const __m512i d = Pred == kPredDelta1
                              ? _mm512_maskz_sub_epi64(kAll, v, x1)
                              : _mm512_maskz_sub_epi64(kAll, _mm512_maskz_add_epi64(kAll, v, x2),
                                                       _mm512_maskz_add_epi64(kAll, x1, x1));
        return _mm512_xor_si512(_mm512_maskz_slli_epi64(kAll, d, 1),
                                _mm512_maskz_srai_epi64(kAll, d, 63));
    } else {
        const __m512i d =
            Pred == kPredDelta1
                ? _mm512_maskz_sub_epi32(kAll16, v, x1)
                : _mm512_maskz_sub_epi32(kAll16, _mm512_maskz_add_epi32(kAll16, v, x2),
                                         _mm512_maskz_add_epi32(kAll16, x1, x1));
        return _mm512_xor_si512(_mm512_maskz_slli_epi32(kAll16, d, 1),
                                _mm512_maskz_srai_epi32(kAll16, d, 31));
    }
}

// Registers of residuals of the n (1..64) elements at b: register m holds elements
// 64/sizeof(U) m on (lanes past n zero), its bytes already gathered by plane (vpermb); acc
// collects their OR.
template <class U, unsigned Pred>
ZIP_VBMI_INLINE void residual_registers(const uint8_t *b, size_t n, size_t stride, __m512i *r,
                                        __m512i &acc)
{
    constexpr size_t kLanes = 64 / sizeof(U);
    const __m512i by_plane = _mm512_load_si512(sizeof(U) == 8 ? kPlanes8.v : kPlanes4.v);
    const size_t back1 = sizeof(U) * stride, back2 = 2 * back1;
#pragma GCC unroll 8
    for (unsigned m = 0; m < sizeof(U); ++m) {
        const size_t first = kLanes * m;
        const size_t bytes = sizeof(U) * (n > first ? std::min(kLanes, n - first) : 0);
        const __mmask64 valid = low_bits64(bytes);
        const uint8_t *p = b + 64 * m;
        __m512i v = _mm512_maskz_loadu_epi8(valid, p);
        if constexpr (Pred != kPredNone)
            v = residual<U, Pred>(v, _mm512_maskz_loadu_epi8(valid, p - back1),
                                  Pred == kPredDelta2 ? _mm512_maskz_loadu_epi8(valid, p - back2)
                                                      : _mm512_setzero_si512());
        v = _mm512_maskz_mov_epi8(valid, v);
        acc = _mm512_or_si512(acc, v);
        r[m] = _mm512_maskz_permutexvar_epi8(~__mmask64(0), by_plane, v);
    }
}

// One step of n (1..64) elements from element i: residuals into r[0..7] (register m: elements
// 8m..8m+7; lanes past n are zero), then planes.
template <unsigned Pred>
ZIP_VBMI_INLINE __m512i split8_step(const uint8_t *e, size_t count, size_t i, size_t n,
                                    size_t stride, uint8_t *planes, __m512i acc)
{
    __m512i r[8];
    residual_registers<uint64_t, Pred>(e + 8 * i, n, stride, r, acc);
    // 8x8 transpose of qwords: r[k] qword m <- r[m] qword k.
    __m512i t[8], u[8];
#pragma GCC unroll 4
    for (unsigned m = 0; m < 8; m += 2) {
        t[m] = _mm512_maskz_unpacklo_epi64(kAll, r[m], r[m + 1]);     // q0 q2 q4 q6 of m, m+1
        t[m + 1] = _mm512_maskz_unpackhi_epi64(kAll, r[m], r[m + 1]); // q1 q3 q5 q7
    }
#pragma GCC unroll 2
    for (unsigned h = 0; h < 2; ++h) {
        // From the pairs (0,1), (2,3) and (4,5), (6,7): 128-bit lanes 0, 2 and 1, 3.
        u[h] =
            _mm512_maskz_shuffle_i64x2(kAll, t[h], t[2 + h], 0x88); // q0 / q1 and q4 / q5 of 0..3
        u[2 + h] =
            _mm512_maskz_shuffle_i64x2(kAll, t[h], t[2 + h], 0xdd); // q2 / q3 and q6 / q7 of 0..3
        u[4 + h] = _mm512_maskz_shuffle_i64x2(kAll, t[4 + h], t[6 + h], 0x88);
        u[6 + h] = _mm512_maskz_shuffle_i64x2(kAll, t[4 + h], t[6 + h], 0xdd);
    }
    // u[h], u[4 + h]: planes h and 4 + h; u[2 + h], u[6 + h]: planes 2 + h and 6 + h.
    __m512i plane[8];
#pragma GCC unroll 2
    for (unsigned h = 0; h < 2; ++h) {
        plane[h] = _mm512_maskz_shuffle_i64x2(kAll, u[h], u[4 + h], 0x88);
        plane[4 + h] = _mm512_maskz_shuffle_i64x2(kAll, u[h], u[4 + h], 0xdd);
        plane[2 + h] = _mm512_maskz_shuffle_i64x2(kAll, u[2 + h], u[6 + h], 0x88);
        plane[6 + h] = _mm512_maskz_shuffle_i64x2(kAll, u[2 + h], u[6 + h], 0xdd);
    }
    const __mmask64 out = low_bits64(n);
#pragma GCC unroll 8
    for (unsigned k = 0; k < 8; ++k)
        _mm512_mask_storeu_epi8(planes + size_t(k) * count + i, out, plane[k]);
    return acc;
}

// The same for 4-byte elements: register m holds elements 16m..16m+15, one vpermb puts byte b
// of each into its 128-bit lane b, and a 4x4 transpose of lanes (two rounds of 4 shuffles)
// gives the planes: 12 shuffles per 64 elements.
template <unsigned Pred>
ZIP_VBMI_INLINE __m512i split4_step(const uint8_t *e, size_t count, size_t i, size_t n,
                                    size_t stride, uint8_t *planes, __m512i acc)
{
    __m512i r[4];
    residual_registers<uint32_t, Pred>(e + 4 * i, n, stride, r, acc);
    // Lanes 0-1 and 2-3 of registers (0, 1) and (2, 3), then lanes 0 / 1 and 2 / 3 of those.
    const __m512i a0 = _mm512_maskz_shuffle_i64x2(kAll, r[0], r[1], 0x44);
    const __m512i a1 = _mm512_maskz_shuffle_i64x2(kAll, r[0], r[1], 0xee);
    const __m512i b0 = _mm512_maskz_shuffle_i64x2(kAll, r[2], r[3], 0x44);
    const __m512i b1 = _mm512_maskz_shuffle_i64x2(kAll, r[2], r[3], 0xee);
    const __m512i plane[4] = {_mm512_maskz_shuffle_i64x2(kAll, a0, b0, 0x88),
                              _mm512_maskz_shuffle_i64x2(kAll, a0, b0, 0xdd),
                              _mm512_maskz_shuffle_i64x2(kAll, a1, b1, 0x88),
                              _mm512_maskz_shuffle_i64x2(kAll, a1, b1, 0xdd)};
    const __mmask64 out = low_bits64(n);
#pragma GCC unroll 4
    for (unsigned k = 0; k < 4; ++k)
        _mm512_mask_storeu_epi8(planes + size_t(k) * count + i, out, plane[k]);
    return acc;
}

ZIP_VBMI inline uint64_t or_lanes(__m512i acc)
{
    alignas(64) uint64_t lanes[8]; // _mm512_reduce_or_epi64 warns as above
    _mm512_store_si512(lanes, acc);
    uint64_t any = 0;
    for (uint64_t lane : lanes)
        any |= lane;
    return any;
}

template <class U, unsigned Pred>
ZIP_VBMI_INLINE __m512i split_step(const uint8_t *e, size_t count, size_t i, size_t n,
                                   size_t stride, uint8_t *planes, __m512i acc)
{
    if constexpr (sizeof(U) == 8)
        return split8_step<Pred>(e, count, i, n, stride, planes, acc);
    else
        return split4_step<Pred>(e, count, i, n, stride, planes, acc);
}

// Every step of 64 elements from element i on, the last one partial; the OR of the residuals.
template <class U, unsigned Pred>
ZIP_VBMI uint64_t split_loop(const uint8_t *e, size_t count, size_t stride, uint8_t *planes,
                             size_t i)
{
    __m512i acc = _mm512_setzero_si512();
    for (; i + 64 <= count; i += 64)
        acc = split_step<U, Pred>(e, count, i, 64, stride, planes, acc);
    if (i < count)
        acc = split_step<U, Pred>(e, count, i, count - i, stride, planes, acc);
    const uint64_t any = or_lanes(acc);
    return sizeof(U) == 8 ? any : (any | any >> 32) & 0xffffffffu;
}

// Elements [0, 2s) take the first-record convention: the portable loop. From 2s on the loads
// one and two strides back stay inside the block.
template <class U>
ZIP_VBMI uint64_t split_avx512(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                               uint8_t *planes)
{
    const size_t head = std::min(count, 2 * stride);
    const uint64_t any = sizeof(U) == 8
                             ? split8_scalar_range(e, count, pred, stride, planes, 0, head)
                             : split4_scalar_range(e, count, pred, stride, planes, 0, head);
    switch (pred) {
    case kPredNone:
        return any | split_loop<U, kPredNone>(e, count, stride, planes, head);
    case kPredDelta1:
        return any | split_loop<U, kPredDelta1>(e, count, stride, planes, head);
    case kPredDelta2:
        return any | split_loop<U, kPredDelta2>(e, count, stride, planes, head);
    default:
        return any | split_loop<U, kPredXor>(e, count, stride, planes, head);
    }
}

} // namespace

uint64_t split8_avx512(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes)
{
    return split_avx512<uint64_t>(e, count, pred, stride, planes);
}

uint64_t split4_avx512(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes)
{
    return split_avx512<uint32_t>(e, count, pred, stride, planes);
}

} // namespace zip::fast_detail

#endif // __x86_64__
