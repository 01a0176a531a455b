// The bit-plane kernels (fast_bitplane_kernels.hpp).
//
// Portable: an 8 x 8 bit matrix transpose in a 64-bit word per 8 plane bytes (three rounds of
// swapping the off-diagonal halves of 2 x 2, 4 x 4 and 8 x 8 blocks).
// SIMD: fast_bitplane_simd.inc, 128 plane bytes per 16-byte lane, instantiated here for SSE2 and
// AVX2; and GFNI (with AVX-512 BW/VBMI): 64 plane bytes a step, one affine instruction for the
// transposes. A call does the whole SIMD steps with the widest kernel, then what is left with
// the narrower ones: GFNI the whole 64-byte steps (the SSE2 loop then does nothing), AVX2 256
// plane bytes a step, SSE2 128, the portable loop the last < 128.
#include "fast_bitplane_kernels.hpp"

#include "bitio.hpp"

#include <cstring>
#include <initializer_list>

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define ZIP_BITS_X86 1
#endif

namespace zip::fast_detail
{
namespace
{

constexpr uint64_t kLowBits = 0x0101010101010101ull;

// The bit transpose reads byte j of a word as bits 8j..8j+7: little-endian on any host.
inline uint64_t load8(const uint8_t *p)
{
    return bitio::load_le<uint64_t>(p);
}

// Transposes the 8 x 8 bit matrix whose row r is byte r: bit 8r + c <-> bit 8c + r.
inline uint64_t transpose8(uint64_t x)
{
    uint64_t t = (x ^ (x >> 7)) & 0x00aa00aa00aa00aaull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000cccc0000ccccull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0ull;
    x ^= t ^ (t << 28);
    return x;
}

// Groups [g, ceil(count / 8)) of split_bits.
void split_bits_from(const uint8_t *plane, size_t count, uint8_t *bits, size_t g)
{
    const size_t nb = bitplane_bytes(count);
    for (; g < nb; ++g) {
        uint64_t x;
        if (8 * g + 8 <= count) {
            x = load8(plane + 8 * g);
        } else {
            uint8_t tail[8] = {};
            std::memcpy(tail, plane + 8 * g, count - 8 * g);
            x = load8(tail);
        }
        const uint64_t t = transpose8(x);
        for (unsigned j = 0; j < 8; ++j)
            bits[j * nb + g] = static_cast<uint8_t>(t >> (8 * j));
    }
}

// Groups [g, ceil(count / 8)) of join_bits.
void join_bits_from(const uint8_t *const *bits, size_t count, unsigned invert, uint8_t *plane,
                    size_t g)
{
    const size_t nb = bitplane_bytes(count);
    uint64_t invert_bytes = 0; // byte j all ones where bit plane j is complemented
    for (unsigned j = 0; j < 8; ++j)
        if ((invert >> j) & 1)
            invert_bytes |= uint64_t{0xff} << (8 * j);
    for (; g < nb; ++g) {
        uint64_t t = 0;
        for (unsigned j = 0; j < 8; ++j)
            t |= uint64_t{bits[j][g]} << (8 * j);
        const uint64_t x = transpose8(t ^ invert_bytes);
        if (8 * g + 8 <= count) {
            std::memcpy(plane + 8 * g, &x, 8);
        } else {
            uint8_t tail[8];
            std::memcpy(tail, &x, 8);
            std::memcpy(plane + 8 * g, tail, count - 8 * g);
        }
    }
}

BitplaneCounts counts_from(const uint8_t *p, size_t n, size_t i, BitplaneCounts c)
{
    c.ones += count_set_bits(p + i, n - i);
    for (; i < n; ++i) {
        c.zeros += p[i] == 0;
        c.full += p[i] == 0xff;
    }
    return c;
}

#ifdef ZIP_BITS_X86

namespace sse2
{
using V = __m128i;
constexpr size_t kLanes = 1;
#define ZIP_BITS_TARGET
inline V v_xor(V a, V b)
{
    return _mm_xor_si128(a, b);
}
inline V v_and(V a, V b)
{
    return _mm_and_si128(a, b);
}
template <int D> inline V v_srli16(V a)
{
    return _mm_srli_epi16(a, D);
}
template <int D> inline V v_slli16(V a)
{
    return _mm_slli_epi16(a, D);
}
inline V v_unpacklo8(V a, V b)
{
    return _mm_unpacklo_epi8(a, b);
}
inline V v_unpackhi8(V a, V b)
{
    return _mm_unpackhi_epi8(a, b);
}
inline V v_set1(char c)
{
    return _mm_set1_epi8(c);
}
inline V v_load(const uint8_t *p)
{
    return _mm_loadu_si128(reinterpret_cast<const V *>(p));
}
inline void v_store(uint8_t *p, V v)
{
    _mm_storeu_si128(reinterpret_cast<V *>(p), v);
}
inline V v_load_lanes(const uint8_t *p)
{
    return v_load(p);
}
inline void v_store_lanes(uint8_t *p, V v)
{
    v_store(p, v);
}
#include "fast_bitplane_simd.inc"
#undef ZIP_BITS_TARGET

// Bytes summed over the 16 lanes of byte counters.
inline size_t sum_lanes(V counts)
{
    const V s = _mm_sad_epu8(counts, _mm_setzero_si128());
    return static_cast<size_t>(_mm_cvtsi128_si32(s)) +
           static_cast<size_t>(_mm_cvtsi128_si32(_mm_srli_si128(s, 8)));
}
} // namespace sse2

// Lane l of a 256-bit vector works on the step 128 l plane bytes further (see the .inc).
namespace avx2
{
using V = __m256i;
constexpr size_t kLanes = 2;
#define ZIP_BITS_TARGET __attribute__((target("avx2")))
ZIP_BITS_TARGET inline V v_xor(V a, V b)
{
    return _mm256_xor_si256(a, b);
}
ZIP_BITS_TARGET inline V v_and(V a, V b)
{
    return _mm256_and_si256(a, b);
}
template <int D> ZIP_BITS_TARGET inline V v_srli16(V a)
{
    return _mm256_srli_epi16(a, D);
}
template <int D> ZIP_BITS_TARGET inline V v_slli16(V a)
{
    return _mm256_slli_epi16(a, D);
}
ZIP_BITS_TARGET inline V v_unpacklo8(V a, V b)
{
    return _mm256_unpacklo_epi8(a, b);
}
ZIP_BITS_TARGET inline V v_unpackhi8(V a, V b)
{
    return _mm256_unpackhi_epi8(a, b);
}
ZIP_BITS_TARGET inline V v_set1(char c)
{
    return _mm256_set1_epi8(c);
}
ZIP_BITS_TARGET inline V v_load(const uint8_t *p)
{
    return _mm256_loadu_si256(reinterpret_cast<const V *>(p));
}
ZIP_BITS_TARGET inline void v_store(uint8_t *p, V v)
{
    _mm256_storeu_si256(reinterpret_cast<V *>(p), v);
}
ZIP_BITS_TARGET inline V v_load_lanes(const uint8_t *p)
{
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 128));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
ZIP_BITS_TARGET inline void v_store_lanes(uint8_t *p, V v)
{
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm256_castsi256_si128(v));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p + 128), _mm256_extracti128_si256(v, 1));
}
#include "fast_bitplane_simd.inc"
#undef ZIP_BITS_TARGET
} // namespace avx2

bool cpu_has_avx2()
{
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return has;
}

// 64 plane bytes (8 groups) a step: GF2P8AFFINEQB transposes the 8 x 8 bit matrix of every
// 8-byte group at once and VPERMB moves byte j of each group next to byte j of the others.
namespace gfni
{
#define ZIP_GFNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni")))

// Byte 8a + b <-> byte 8b + a: from a group's 8 bit-plane bytes to 8 bytes of each bit plane,
// and back (it is its own inverse).
alignas(64) constexpr uint8_t kGroupsToPlanes[64] = {
    0,  8,  16, 24, 32, 40, 48, 56, 1,  9,  17, 25, 33, 41, 49, 57, 2,  10, 18, 26, 34, 42,
    50, 58, 3,  11, 19, 27, 35, 43, 51, 59, 4,  12, 20, 28, 36, 44, 52, 60, 5,  13, 21, 29,
    37, 45, 53, 61, 6,  14, 22, 30, 38, 46, 54, 62, 7,  15, 23, 31, 39, 47, 55, 63};

// Each 64-bit lane's bytes in reverse order (VPSHUFB indices within 16-byte lanes).
alignas(64) constexpr uint8_t kReverseLanes[64] = {
    7,  6,  5,  4,  3,  2,  1,  0,  15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2,
    1,  0,  15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0,  15, 14, 13, 12,
    11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0,  15, 14, 13, 12, 11, 10, 9,  8};

// transpose8 of every 64-bit lane. The affine step computes bit i of result byte j as the
// parity of (matrix byte 7 - i) AND (operand byte j); with operand byte j = 1 << j and the
// lane's bytes reversed as the matrix, that is bit j of byte i.
ZIP_GFNI_TARGET inline __m512i transpose8_lanes(__m512i x)
{
    const __m512i reverse = _mm512_load_si512(kReverseLanes);
    const __m512i unit = _mm512_set1_epi64(static_cast<long long>(0x8040201008040201ull));
    return _mm512_gf2p8affine_epi64_epi8(unit, _mm512_shuffle_epi8(x, reverse), 0);
}

// VPERMB. Through the zero-masking intrinsic: GCC 12 warns that the plain one's undefined
// merge source "may be used uninitialized".
ZIP_GFNI_TARGET inline __m512i permute_bytes(__m512i index, __m512i x)
{
    return _mm512_maskz_permutexvar_epi8(~__mmask64{0}, index, x);
}

ZIP_GFNI_TARGET size_t split_steps(const uint8_t *plane, size_t count, uint8_t *bits, size_t g)
{
    const size_t nb = bitplane_bytes(count);
    const __m512i to_planes = _mm512_load_si512(kGroupsToPlanes);
    alignas(64) uint8_t out[64];
    for (; 8 * (g + 8) <= count; g += 8) {
        const __m512i t = transpose8_lanes(_mm512_loadu_si512(plane + 8 * g));
        _mm512_store_si512(out, permute_bytes(to_planes, t));
        for (unsigned j = 0; j < 8; ++j)
            std::memcpy(bits + j * nb + g, out + 8 * j, 8);
    }
    return g;
}

ZIP_GFNI_TARGET size_t join_steps(const uint8_t *const *bits, size_t count, unsigned invert,
                                  uint8_t *plane, size_t g)
{
    const __m512i to_groups = _mm512_load_si512(kGroupsToPlanes);
    uint64_t flip[8]; // all ones where bit plane j is complemented
    for (unsigned j = 0; j < 8; ++j)
        flip[j] = (invert >> j) & 1 ? ~uint64_t{0} : 0;
    for (; 8 * (g + 8) <= count; g += 8) {
        long long q[8];
        for (unsigned j = 0; j < 8; ++j)
            q[j] = static_cast<long long>(load8(bits[j] + g) ^ flip[j]);
        const __m512i y = _mm512_set_epi64(q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0]);
        _mm512_storeu_si512(plane + 8 * g, transpose8_lanes(permute_bytes(to_groups, y)));
    }
    return g;
}
#undef ZIP_GFNI_TARGET
} // namespace gfni

bool cpu_has_gfni()
{
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
    }();
    return has;
}

#endif // ZIP_BITS_X86

BitKernel best_kernel()
{
#ifdef ZIP_BITS_X86
    return cpu_has_gfni() ? BitKernel::Gfni : cpu_has_avx2() ? BitKernel::Avx2 : BitKernel::Sse2;
#else
    return BitKernel::Portable;
#endif
}

} // namespace

size_t count_set_bits_portable(const uint8_t *p, size_t n)
{
    size_t total = 0, i = 0;
    auto swar = [](uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ull);
        x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
        return static_cast<size_t>((x * kLowBits) >> 56);
    };
    for (; i + 8 <= n; i += 8)
        total += swar(load8(p + i));
    if (i == n)
        return total; // also n = 0 with p null: no memcpy from null
    uint8_t tail[8] = {};
    std::memcpy(tail, p + i, n - i);
    return total + swar(load8(tail));
}

#ifdef ZIP_BITS_X86
namespace
{
// One POPCNT per 8 bytes where the SWAR count takes twelve operations: the sparse planes'
// literal counts in the decoder were 1.3-1.6 % of sincos's and heat3d-halo's cycles.
__attribute__((target("popcnt"))) size_t count_set_bits_popcnt(const uint8_t *p, size_t n)
{
    size_t total = 0, i = 0;
    for (; i + 8 <= n; i += 8)
        total += static_cast<size_t>(__builtin_popcountll(load8(p + i)));
    if (i == n)
        return total;
    uint8_t tail[8] = {};
    std::memcpy(tail, p + i, n - i);
    return total + static_cast<size_t>(__builtin_popcountll(load8(tail)));
}
} // namespace
#endif

size_t count_set_bits(const uint8_t *p, size_t n)
{
#ifdef ZIP_BITS_X86
    static const bool popcnt = __builtin_cpu_supports("popcnt") != 0;
    if (popcnt)
        return count_set_bits_popcnt(p, n);
#endif
    return count_set_bits_portable(p, n);
}

BitplaneCounts bitplane_counts_portable(const uint8_t *p, size_t n)
{
    return counts_from(p, n, 0, BitplaneCounts{0, 0, 0});
}

bool bit_kernel_available(BitKernel kernel)
{
#ifdef ZIP_BITS_X86
    return kernel == BitKernel::Gfni ? cpu_has_gfni() : kernel != BitKernel::Avx2 || cpu_has_avx2();
#else
    return kernel == BitKernel::Portable;
#endif
}

// The SIMD steps of `kernel` and the narrower ones, then the portable tail.
void split_bits_with(BitKernel kernel, const uint8_t *plane, size_t count, uint8_t *bits)
{
    size_t g = 0;
#ifdef ZIP_BITS_X86
    if (kernel == BitKernel::Gfni)
        g = gfni::split_steps(plane, count, bits, g);
    if (kernel == BitKernel::Avx2)
        g = avx2::split_steps(plane, count, bits, g);
    if (kernel != BitKernel::Portable)
        g = sse2::split_steps(plane, count, bits, g);
#else
    (void)kernel;
#endif
    split_bits_from(plane, count, bits, g);
}

void join_bits_with(BitKernel kernel, const uint8_t *const *bits, size_t count, unsigned invert,
                    uint8_t *plane)
{
    size_t g = 0;
#ifdef ZIP_BITS_X86
    if (kernel == BitKernel::Gfni)
        g = gfni::join_steps(bits, count, invert, plane, g);
    if (kernel == BitKernel::Avx2)
        g = avx2::join_steps(bits, count, invert, plane, g);
    if (kernel != BitKernel::Portable)
        g = sse2::join_steps(bits, count, invert, plane, g);
#else
    (void)kernel;
#endif
    join_bits_from(bits, count, invert, plane, g);
}

void split_bits(const uint8_t *plane, size_t count, uint8_t *bits)
{
    split_bits_with(best_kernel(), plane, count, bits);
}

void join_bits(const uint8_t *const *bits, size_t count, unsigned invert, uint8_t *plane)
{
    join_bits_with(best_kernel(), bits, count, invert, plane);
}

using CountsFn = BitplaneCounts (*)(const uint8_t *p, size_t n);

#ifdef ZIP_BITS_X86

// 16 bytes a step: per-byte popcounts (SWAR, at most 8 a lane, so 31 steps between flushes)
// and compares with 0x00 and 0xff.
static BitplaneCounts counts_sse2(const uint8_t *p, size_t n)
{
    using namespace sse2;
    const V zero = _mm_setzero_si128(), ones = v_set1(-1);
    const V m1 = v_set1(0x55), m2 = v_set1(0x33), m4 = v_set1(0x0f);
    BitplaneCounts c{0, 0, 0};
    size_t i = 0;
    while (i + 16 <= n) {
        V bitc = zero, zeroc = zero, fullc = zero;
        for (int steps = 0; steps < 31 && i + 16 <= n; ++steps, i += 16) {
            const V x = v_load(p + i);
            V t = _mm_sub_epi8(x, v_and(v_srli16<1>(x), m1));
            t = _mm_add_epi8(v_and(t, m2), v_and(v_srli16<2>(t), m2));
            t = v_and(_mm_add_epi8(t, v_srli16<4>(t)), m4);
            bitc = _mm_add_epi8(bitc, t);
            zeroc = _mm_sub_epi8(zeroc, _mm_cmpeq_epi8(x, zero));
            fullc = _mm_sub_epi8(fullc, _mm_cmpeq_epi8(x, ones));
        }
        c.ones += sum_lanes(bitc);
        c.zeros += sum_lanes(zeroc);
        c.full += sum_lanes(fullc);
    }
    return counts_from(p, n, i, c);
}

#define ZIP_BITALG_TARGET __attribute__((target("avx512f,avx512bw,avx512bitalg,popcnt")))

static bool cpu_has_bitalg()
{
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512bitalg");
    }();
    return has;
}

// 64 bytes a step: per-byte popcounts (VPOPCNTB) summed by VPSADBW into qwords, the 0x00 and
// 0xff bytes as compare masks. A quarter of the bit planes' coding time on sincos was the SSE2
// loop.
ZIP_BITALG_TARGET static BitplaneCounts counts_avx512(const uint8_t *p, size_t n)
{
    const __mmask64 all = ~__mmask64(0);
    const __m512i zero = _mm512_setzero_si512(), full = _mm512_set1_epi8(-1);
    __m512i ones = zero;
    BitplaneCounts c{0, 0, 0};
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i x = _mm512_loadu_si512(p + i);
        ones = _mm512_maskz_add_epi64(0xff, ones,
                                      _mm512_sad_epu8(_mm512_maskz_popcnt_epi8(all, x), zero));
        c.zeros += static_cast<size_t>(__builtin_popcountll(_mm512_testn_epi8_mask(x, x)));
        c.full += static_cast<size_t>(__builtin_popcountll(_mm512_cmpeq_epi8_mask(x, full)));
    }
    alignas(64) uint64_t lanes[8];
    _mm512_store_si512(lanes, ones);
    for (uint64_t lane : lanes)
        c.ones += static_cast<size_t>(lane);
    return counts_from(p, n, i, c);
}

static CountsFn counts_for(BitKernel kernel)
{
    if (kernel == BitKernel::Portable)
        return bitplane_counts_portable;
    return kernel == BitKernel::Gfni && cpu_has_bitalg() ? counts_avx512 : counts_sse2;
}

#else

static CountsFn counts_for(BitKernel)
{
    return bitplane_counts_portable;
}

#endif

BitplaneCounts bitplane_counts_with(BitKernel kernel, const uint8_t *p, size_t n)
{
    return counts_for(kernel)(p, n);
}

BitplaneCounts bitplane_counts(const uint8_t *p, size_t n)
{
    static const CountsFn best = counts_for(best_kernel()); // chosen once, not per bit plane
    return best(p, n);
}

} // namespace zip::fast_detail
