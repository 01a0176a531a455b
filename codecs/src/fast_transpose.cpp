// Byte-plane transposition kernels for the `fast` codec (see fast_transpose.hpp).
//
// AVX2 scheme for 8-byte elements, 32 elements per iteration (the two 128-bit lanes each handle
// 16 elements independently, lane 1 the elements 16..31):
//   1. load register i with elements 2i, 2i+1; pshufb interleaves them so that 16-bit word k
//      holds byte k of both elements;
//   2. an 8x8 transpose of 16-bit words (unpack 16/32/64) makes register k hold word k of every
//      register i, i.e. byte k of elements 0..15 in order: 16 bytes of plane k per lane.
// The inverse runs the same transpose network (a transpose is its own inverse) and then the
// inverse byte shuffle. 4-byte elements use a pshufb to 4-byte groups and a 4x4 transpose of
// 32-bit words. Measured at ~15-20 GB/s each way on the dev box, far from the bottleneck.
#include "fast_transpose.hpp"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ZIP_FAST_X86 1
#endif

namespace zip::fast_detail {
namespace {

inline uint64_t load_u64(const uint8_t *p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline uint32_t load_u32(const uint8_t *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Scalar tails, usable from any element index `from` (the SIMD kernels do the bulk).
void split8_scalar_from(const uint8_t *e, size_t count, uint8_t *planes, size_t from)
{
    for (size_t i = from; i < count; ++i) {
        uint64_t v = load_u64(e + 8 * i);
        for (int k = 0; k < 8; ++k)
            planes[k * count + i] = static_cast<uint8_t>(v >> (8 * k));
    }
}
void split4_scalar_from(const uint8_t *e, size_t count, uint8_t *planes, size_t from)
{
    for (size_t i = from; i < count; ++i) {
        uint32_t v = load_u32(e + 4 * i);
        for (int k = 0; k < 4; ++k)
            planes[k * count + i] = static_cast<uint8_t>(v >> (8 * k));
    }
}
void join8_scalar_from(const uint8_t *const *p, size_t count, uint8_t *e, size_t from)
{
    for (size_t i = from; i < count; ++i) {
        uint64_t v = 0;
        for (int k = 0; k < 8; ++k)
            v |= uint64_t{p[k][i]} << (8 * k);
        std::memcpy(e + 8 * i, &v, 8);
    }
}
void join4_scalar_from(const uint8_t *const *p, size_t count, uint8_t *e, size_t from)
{
    for (size_t i = from; i < count; ++i) {
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k)
            v |= uint32_t{p[k][i]} << (8 * k);
        std::memcpy(e + 4 * i, &v, 4);
    }
}

void split8_scalar(const void *e, size_t count, uint8_t *planes)
{
    split8_scalar_from(static_cast<const uint8_t *>(e), count, planes, 0);
}
void split4_scalar(const void *e, size_t count, uint8_t *planes)
{
    split4_scalar_from(static_cast<const uint8_t *>(e), count, planes, 0);
}
void join8_scalar(const uint8_t *const *p, size_t count, uint8_t *e)
{
    join8_scalar_from(p, count, e, 0);
}
void join4_scalar(const uint8_t *const *p, size_t count, uint8_t *e)
{
    join4_scalar_from(p, count, e, 0);
}

#ifdef ZIP_FAST_X86

#define ZIP_AVX2 __attribute__((target("avx2")))

ZIP_AVX2 inline __m256i load_lanes(const uint8_t *lo, const uint8_t *hi)
{
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(lo));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(hi));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

ZIP_AVX2 inline void store_lanes(uint8_t *lo, uint8_t *hi, __m256i v)
{
    _mm_storeu_si128(reinterpret_cast<__m128i *>(lo), _mm256_castsi256_si128(v));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(hi), _mm256_extracti128_si256(v, 1));
}

// r[k] <- word k of every r[i] (8x8 transpose of 16-bit words within each 128-bit lane).
ZIP_AVX2 inline void transpose_8x8_u16(__m256i r[8])
{
    __m256i t0 = _mm256_unpacklo_epi16(r[0], r[1]), t1 = _mm256_unpackhi_epi16(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi16(r[2], r[3]), t3 = _mm256_unpackhi_epi16(r[2], r[3]);
    __m256i t4 = _mm256_unpacklo_epi16(r[4], r[5]), t5 = _mm256_unpackhi_epi16(r[4], r[5]);
    __m256i t6 = _mm256_unpacklo_epi16(r[6], r[7]), t7 = _mm256_unpackhi_epi16(r[6], r[7]);
    __m256i u0 = _mm256_unpacklo_epi32(t0, t2), u1 = _mm256_unpackhi_epi32(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi32(t1, t3), u3 = _mm256_unpackhi_epi32(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi32(t4, t6), u5 = _mm256_unpackhi_epi32(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi32(t5, t7), u7 = _mm256_unpackhi_epi32(t5, t7);
    r[0] = _mm256_unpacklo_epi64(u0, u4);
    r[1] = _mm256_unpackhi_epi64(u0, u4);
    r[2] = _mm256_unpacklo_epi64(u1, u5);
    r[3] = _mm256_unpackhi_epi64(u1, u5);
    r[4] = _mm256_unpacklo_epi64(u2, u6);
    r[5] = _mm256_unpackhi_epi64(u2, u6);
    r[6] = _mm256_unpacklo_epi64(u3, u7);
    r[7] = _mm256_unpackhi_epi64(u3, u7);
}

// r[k] <- word k of every r[i] (4x4 transpose of 32-bit words within each 128-bit lane).
ZIP_AVX2 inline void transpose_4x4_u32(__m256i r[4])
{
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm256_unpacklo_epi64(t0, t2);
    r[1] = _mm256_unpackhi_epi64(t0, t2);
    r[2] = _mm256_unpacklo_epi64(t1, t3);
    r[3] = _mm256_unpackhi_epi64(t1, t3);
}

ZIP_AVX2 void split8_avx2(const void *elems, size_t count, uint8_t *planes)
{
    const uint8_t *e = static_cast<const uint8_t *>(elems);
    // Word k of a lane <- byte k of its two elements.
    const __m256i pair = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,
                                          0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const uint8_t *b = e + 8 * i;
        __m256i r[8];
        for (int j = 0; j < 8; ++j)
            r[j] = _mm256_shuffle_epi8(load_lanes(b + 16 * j, b + 128 + 16 * j), pair);
        transpose_8x8_u16(r);
        for (int k = 0; k < 8; ++k)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(planes + k * count + i), r[k]);
    }
    split8_scalar_from(e, count, planes, i);
}

ZIP_AVX2 void join8_avx2(const uint8_t *const *p, size_t count, uint8_t *e)
{
    const __m256i unpair = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i r[8];
        for (int k = 0; k < 8; ++k)
            r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p[k] + i));
        transpose_8x8_u16(r);
        uint8_t *b = e + 8 * i;
        for (int j = 0; j < 8; ++j)
            store_lanes(b + 16 * j, b + 128 + 16 * j, _mm256_shuffle_epi8(r[j], unpair));
    }
    join8_scalar_from(p, count, e, i);
}

// The 4x4 byte transpose inside each 16-byte group is its own inverse: one mask both ways.
ZIP_AVX2 inline __m256i group4_mask()
{
    return _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                            0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

ZIP_AVX2 void split4_avx2(const void *elems, size_t count, uint8_t *planes)
{
    const uint8_t *e = static_cast<const uint8_t *>(elems);
    const __m256i group = group4_mask();
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const uint8_t *b = e + 4 * i;
        __m256i r[4];
        for (int j = 0; j < 4; ++j)
            r[j] = _mm256_shuffle_epi8(load_lanes(b + 16 * j, b + 64 + 16 * j), group);
        transpose_4x4_u32(r);
        for (int k = 0; k < 4; ++k)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(planes + k * count + i), r[k]);
    }
    split4_scalar_from(e, count, planes, i);
}

ZIP_AVX2 void join4_avx2(const uint8_t *const *p, size_t count, uint8_t *e)
{
    const __m256i group = group4_mask();
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i r[4];
        for (int k = 0; k < 4; ++k)
            r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p[k] + i));
        transpose_4x4_u32(r);
        uint8_t *b = e + 4 * i;
        for (int j = 0; j < 4; ++j)
            store_lanes(b + 16 * j, b + 64 + 16 * j, _mm256_shuffle_epi8(r[j], group));
    }
    join4_scalar_from(p, count, e, i);
}

#endif  // ZIP_FAST_X86

const Transposer kScalar{split8_scalar, split4_scalar, join8_scalar, join4_scalar};

Transposer pick_best()
{
#ifdef ZIP_FAST_X86
    if (__builtin_cpu_supports("avx2"))
        return Transposer{split8_avx2, split4_avx2, join8_avx2, join4_avx2};
#endif
    return kScalar;
}

}  // namespace

const Transposer &transposer()
{
    static const Transposer best = pick_best();
    return best;
}

const Transposer &scalar_transposer()
{
    return kScalar;
}

}  // namespace zip::fast_detail
