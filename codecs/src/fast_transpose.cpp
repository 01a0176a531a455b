// The kernels of the `fast` codec (see fast_transpose.hpp): byte-plane transposition fused
// with prediction (AVX2), bit packing and run coding of planes (BMI2), each with a portable
// version.
//
// AVX2 transposition for 8-byte elements, 32 elements per iteration (the two 128-bit lanes
// each handle 16 elements independently, lane 1 the elements 16..31):
//   1. load register i with elements 2i, 2i+1; pshufb interleaves them so that 16-bit word k
//      holds byte k of both elements;
//   2. an 8x8 transpose of 16-bit words (unpack 16/32/64) makes register k hold word k of every
//      register i, i.e. byte k of elements 0..15 in order: 16 bytes of plane k per lane.
// The inverse runs the same transpose network (a transpose is its own inverse) and then the
// inverse byte shuffle. 4-byte elements use a pshufb to 4-byte groups and a 4x4 transpose of
// 32-bit words. Measured at ~15-20 GB/s each way on the dev box, far from the bottleneck.
#include "fast_transpose.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ZIP_FAST_X86 1
#endif

namespace zip::fast_detail
{
namespace
{

inline uint64_t load_u64(const uint8_t *p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

template <class U> inline U load_elem(const uint8_t *p)
{
    U v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class U> inline U zigzag(U d)
{
    return static_cast<U>((d << 1) ^ (U{0} - (d >> (8 * sizeof(U) - 1))));
}
template <class U> inline U unzigzag(U r)
{
    return static_cast<U>((r >> 1) ^ (U{0} - (r & 1)));
}

// Residual of element i with stride s (see fast.cpp: an element before the block stands for
// the same field of the first record, x[j] = x[j + s] for j < 0, so x[-1] = x[-2] = x[0] when
// s = 1).
template <class U> inline U residual_at(const uint8_t *e, size_t i, unsigned pred, size_t s)
{
    U x = load_elem<U>(e + i * sizeof(U));
    if (pred == kPredNone)
        return x;
    const size_t i1 = i >= s ? i - s : i, i2 = i1 >= s ? i1 - s : i1;
    U x1 = load_elem<U>(e + i1 * sizeof(U));
    if (pred == kPredXor)
        return x ^ x1;
    if (pred == kPredDelta1)
        return zigzag<U>(static_cast<U>(x - x1));
    U x2 = load_elem<U>(e + i2 * sizeof(U));
    return zigzag<U>(static_cast<U>(x - 2 * x1 + x2));
}

// Scalar loops over elements [from, to): the SIMD kernels' head and tail, and the whole job on
// CPUs without AVX2.
template <class U>
uint64_t split_scalar_range(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                            uint8_t *planes, size_t from, size_t to)
{
    U any = 0;
    for (size_t i = from; i < to; ++i) {
        U v = residual_at<U>(e, i, pred, stride);
        any |= v;
        for (size_t k = 0; k < sizeof(U); ++k)
            planes[k * count + i] = static_cast<uint8_t>(v >> (8 * k));
    }
    return any;
}

template <class U>
void join_scalar_range(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e, size_t from)
{
    for (size_t i = from; i < count; ++i) {
        U v = 0;
        for (size_t k = 0; k < sizeof(U); ++k)
            v |= static_cast<U>(U{p[k][i]} << (8 * k));
        if (unzig)
            v = unzigzag<U>(v);
        std::memcpy(e + sizeof(U) * i, &v, sizeof(U));
    }
}

uint64_t split8_scalar(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes)
{
    return split_scalar_range<uint64_t>(e, count, pred, stride, planes, 0, count);
}
uint64_t split4_scalar(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes)
{
    return split_scalar_range<uint32_t>(e, count, pred, stride, planes, 0, count);
}
void join8_scalar(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e)
{
    join_scalar_range<uint64_t>(p, count, unzig, e, 0);
}
void join4_scalar(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e)
{
    join_scalar_range<uint32_t>(p, count, unzig, e, 0);
}

// Bit packing, 8 bytes <-> `bits` bytes per group. The portable version loops over the bytes.
inline uint64_t low_bits_mask(unsigned bits) // `bits` low bits of every byte
{
    return 0x0101010101010101ull * ((1u << bits) - 1);
}

inline uint64_t pack_group_scalar(uint64_t v, unsigned bits)
{
    uint64_t out = 0, m = (1u << bits) - 1;
    for (unsigned j = 0; j < 8; ++j)
        out |= ((v >> (8 * j)) & m) << (bits * j);
    return out;
}
inline uint64_t unpack_group_scalar(uint64_t v, unsigned bits)
{
    uint64_t out = 0, m = (1u << bits) - 1;
    for (unsigned j = 0; j < 8; ++j)
        out |= ((v >> (bits * j)) & m) << (8 * j);
    return out;
}

// Shared loops: whole groups with 8-byte loads/stores while they stay in bounds, the rest via a
// small buffer. GroupFn is pext/pdep or the scalar loop.
template <class PackGroup>
inline void pack_loop(const uint8_t *plane, size_t count, unsigned bits, uint8_t *out,
                      PackGroup pack)
{
    const size_t groups = (count + 7) / 8;
    size_t g = 0;
    // An 8-byte store of group g ends at bits*g + 8 <= packed size while g + 8/bits < groups.
    for (; g + 8 < groups; ++g) {
        uint64_t v = pack(load_u64(plane + 8 * g), bits);
        std::memcpy(out + bits * g, &v, 8);
    }
    for (; g < groups; ++g) {
        uint8_t tmp[8] = {};
        std::memcpy(tmp, plane + 8 * g, count - 8 * g < 8 ? count - 8 * g : 8);
        uint64_t v = pack(load_u64(tmp), bits);
        std::memcpy(out + bits * g, &v, bits);
    }
}

template <class UnpackGroup>
inline void unpack_loop(const uint8_t *in, size_t count, unsigned bits, uint8_t *plane,
                        UnpackGroup unpack)
{
    const size_t groups = (count + 7) / 8;
    const uint64_t keep = bits == 8 ? ~0ull : (1ull << (8 * bits)) - 1;
    size_t g = 0;
    // An 8-byte load of group g ends at bits*g + 8 <= packed size while g + 8 < groups; the
    // 8-byte store ends at 8g + 8 <= count while g + 1 < count / 8.
    for (; g + 8 < groups && 8 * g + 8 <= count; ++g) {
        uint64_t v = unpack(load_u64(in + bits * g) & keep, bits);
        std::memcpy(plane + 8 * g, &v, 8);
    }
    for (; g < groups; ++g) {
        uint8_t tmp[8] = {};
        std::memcpy(tmp, in + bits * g, bits);
        uint64_t v = unpack(load_u64(tmp), bits);
        std::memcpy(plane + 8 * g, &v, count - 8 * g < 8 ? count - 8 * g : 8);
    }
}

void pack_bits_scalar(const uint8_t *plane, size_t count, unsigned bits, uint8_t *out)
{
    pack_loop(plane, count, bits, out, pack_group_scalar);
}
void unpack_bits_scalar(const uint8_t *in, size_t count, unsigned bits, uint8_t *plane)
{
    unpack_loop(in, count, bits, plane, unpack_group_scalar);
}

// Run coding, 8 plane bytes per step. ByteOps supplies: nonzero(x) (bit j = byte j of x is
// not zero), compact(v, m) (the bytes of v selected by m, packed low) and expand(w, m) (its
// inverse, zeros elsewhere): pext/pdep with a byte mask, or byte loops.
constexpr std::array<uint64_t, 256> make_byte_masks()
{
    std::array<uint64_t, 256> t{};
    for (unsigned m = 0; m < 256; ++m)
        for (unsigned j = 0; j < 8; ++j)
            if (m >> j & 1)
                t[m] |= uint64_t{0xff} << (8 * j);
    return t;
}
constexpr std::array<uint64_t, 256> kByteMask = make_byte_masks(); // bit j -> byte j all ones

// Sparse: the mask marks the bytes that are not zero (instead of those that differ from the
// byte before), and unmarked bytes decode as zero.
template <bool Sparse, class Nonzero, class Compact>
inline size_t encode_runs_loop(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size,
                               Nonzero nonzero, Compact compact)
{
    const size_t groups = (count + 7) / 8;
    if (out_size < groups)
        return 0;
    uint8_t *lit = out + groups, *const end = out + out_size;
    uint64_t carry = 0; // the byte before the group, in the low byte
    for (size_t g = 0; g < groups; ++g) {
        uint64_t v;
        unsigned valid = 0xff;
        if (8 * g + 8 <= count) {
            v = load_u64(plane + 8 * g);
        } else {
            uint8_t tmp[8] = {};
            std::memcpy(tmp, plane + 8 * g, count - 8 * g);
            v = load_u64(tmp);
            valid = (1u << (count - 8 * g)) - 1;
        }
        unsigned m = nonzero(Sparse ? v : v ^ ((v << 8) | carry)) & valid;
        carry = v >> 56;
        out[g] = static_cast<uint8_t>(m);
        uint64_t packed = compact(v, m);
        size_t n = static_cast<size_t>(__builtin_popcount(m));
        if (end - lit >= 8) {
            std::memcpy(lit, &packed, 8);
        } else {
            if (static_cast<size_t>(end - lit) < n)
                return 0;
            std::memcpy(lit, &packed, n);
        }
        lit += n;
    }
    return static_cast<size_t>(lit - out);
}

uint64_t expand_bytes_scalar(uint64_t w, unsigned m);

// Decodes groups [g, end) (all of them for the scalar kernel, the last few for the BMI2 one).
void decode_runs_tail(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                      size_t count, uint8_t *plane, size_t g, uint64_t carry)
{
    const size_t groups = (count + 7) / 8;
    for (; g < groups; ++g) {
        unsigned m = mask[g];
        size_t n = static_cast<size_t>(__builtin_popcount(m));
        uint64_t w;
        if (lits_end - lits >= 8) {
            w = load_u64(lits);
        } else {
            uint8_t tmp[8] = {};
            std::memcpy(tmp, lits, static_cast<size_t>(lits_end - lits));
            w = load_u64(tmp);
        }
        lits += n;
        uint64_t v = expand_bytes_scalar(w, m);
        // Repeated bytes copy the byte to their left, by doubling steps (a run inside a group
        // is at most 7 bytes long). The bytes before the group's first literal repeat the
        // previous group's last byte (the carry): they are ORed in afterwards, so that the
        // only dependency from group to group is the carry select, not the whole fill.
        uint64_t fill = ~kByteMask[m];
        v |= (v << 8) & fill;
        fill &= fill << 8;
        v |= (v << 16) & fill;
        fill &= fill << 16;
        v |= (v << 32) & fill;
        uint64_t lead = m ? kByteMask[(m & (0u - m)) - 1] : ~uint64_t{0};
        v |= (carry * 0x0101010101010101ull) & lead;
        carry = m ? (v >> 56) : carry;
        if (8 * g + 8 <= count)
            std::memcpy(plane + 8 * g, &v, 8);
        else
            std::memcpy(plane + 8 * g, &v, count - 8 * g);
    }
}

unsigned nonzero_bytes_scalar(uint64_t x)
{
    unsigned m = 0;
    for (unsigned j = 0; j < 8; ++j)
        m |= ((x >> (8 * j)) & 0xff ? 1u : 0u) << j;
    return m;
}
uint64_t compact_bytes_scalar(uint64_t v, unsigned m)
{
    uint64_t out = 0;
    unsigned k = 0;
    for (unsigned j = 0; j < 8; ++j)
        if (m >> j & 1)
            out |= ((v >> (8 * j)) & 0xff) << (8 * k++);
    return out;
}
uint64_t expand_bytes_scalar(uint64_t w, unsigned m)
{
    uint64_t out = 0;
    unsigned k = 0;
    for (unsigned j = 0; j < 8; ++j)
        if (m >> j & 1)
            out |= ((w >> (8 * k++)) & 0xff) << (8 * j);
    return out;
}

size_t encode_runs_scalar(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size)
{
    return encode_runs_loop<false>(plane, count, out, out_size, nonzero_bytes_scalar,
                                   compact_bytes_scalar);
}
void decode_runs_scalar(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                        size_t count, uint8_t *plane)
{
    decode_runs_tail(mask, lits, lits_end, count, plane, 0, 0);
}

size_t encode_sparse_scalar(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size)
{
    return encode_runs_loop<true>(plane, count, out, out_size, nonzero_bytes_scalar,
                                  compact_bytes_scalar);
}

// Decodes groups [g, end) of a sparse plane (all of them for the scalar kernel, the last few for
// the BMI2 one).
void decode_sparse_tail(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                        size_t count, uint8_t *plane, size_t g)
{
    const size_t groups = (count + 7) / 8;
    for (; g < groups; ++g) {
        unsigned m = mask[g];
        uint64_t w;
        if (lits_end - lits >= 8) {
            w = load_u64(lits);
        } else {
            uint8_t tmp[8] = {};
            std::memcpy(tmp, lits, static_cast<size_t>(lits_end - lits));
            w = load_u64(tmp);
        }
        lits += __builtin_popcount(m);
        uint64_t v = expand_bytes_scalar(w, m);
        std::memcpy(plane + 8 * g, &v, 8 * g + 8 <= count ? 8 : count - 8 * g);
    }
}

void decode_sparse_scalar(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                          size_t count, uint8_t *plane)
{
    decode_sparse_tail(mask, lits, lits_end, count, plane, 0);
}

// Plane statistics, one byte at a time for the ends of the vector loops.
struct StatsAcc {
    size_t same = 0, zeros = 0, runs = 0;
    unsigned any = 0;
    void add(const uint8_t *p, size_t k)
    {
        same += p[k] == (k > 0 ? p[k - 1] : 0);
        zeros += p[k] == 0;
        runs += k >= 3 && p[k] == p[k - 1] && p[k - 1] == p[k - 2] && p[k - 2] == p[k - 3];
        any |= p[k];
    }
    PlaneStats done(size_t count) const
    {
        unsigned bits = any ? 32u - static_cast<unsigned>(__builtin_clz(any)) : 0u;
        return {bits, count - same, count - zeros, runs};
    }
};

#ifdef __SSE2__
// 16 bytes a step (SSE2 is baseline on x86-64): compare with the bytes one, two and three
// before and with zero, count the equal lanes (-1 each; at most 255 steps between flushes) and
// OR everything.
inline size_t sum_counts(__m128i counts)
{
    __m128i s = _mm_sad_epu8(counts, _mm_setzero_si128());
    return static_cast<size_t>(_mm_cvtsi128_si32(s)) +
           static_cast<size_t>(_mm_cvtsi128_si32(_mm_srli_si128(s, 8)));
}

PlaneStats plane_stats_sse2(const uint8_t *p, size_t count)
{
    StatsAcc a;
    size_t i = 0;
    for (; i < count && i < 3; ++i)
        a.add(p, i);
    const __m128i zero = _mm_setzero_si128();
    __m128i ors = zero;
    while (i + 16 <= count) {
        __m128i counts = zero, zcounts = zero, rcounts = zero;
        for (size_t steps = 0; steps < 255 && i + 16 <= count; ++steps, i += 16) {
            __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
            __m128i prev1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i - 1));
            __m128i prev2 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i - 2));
            __m128i prev3 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i - 3));
            __m128i eq = _mm_cmpeq_epi8(cur, prev1);
            __m128i run = _mm_and_si128(
                eq, _mm_and_si128(_mm_cmpeq_epi8(prev1, prev2), _mm_cmpeq_epi8(prev2, prev3)));
            counts = _mm_sub_epi8(counts, eq);
            rcounts = _mm_sub_epi8(rcounts, run);
            zcounts = _mm_sub_epi8(zcounts, _mm_cmpeq_epi8(cur, zero));
            ors = _mm_or_si128(ors, cur);
        }
        a.same += sum_counts(counts);
        a.zeros += sum_counts(zcounts);
        a.runs += sum_counts(rcounts);
    }
    alignas(16) uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes), ors);
    for (uint8_t b : lanes)
        a.any |= b;
    for (; i < count; ++i)
        a.add(p, i);
    return a.done(count);
}
#else
PlaneStats plane_stats_sse2(const uint8_t *p, size_t count)
{
    StatsAcc a;
    for (size_t i = 0; i < count; ++i)
        a.add(p, i);
    return a.done(count);
}
#endif

#ifdef ZIP_FAST_X86

// Every CPU with BMI2 has POPCNT; without it __builtin_popcount is a libgcc call.
#define ZIP_BMI2 __attribute__((target("bmi2,popcnt")))

ZIP_BMI2 void pack_bits_bmi2(const uint8_t *plane, size_t count, unsigned bits, uint8_t *out)
{
    const uint64_t mask = low_bits_mask(bits);
    pack_loop(plane, count, bits, out, [mask](uint64_t v, unsigned) ZIP_BMI2 {
        return static_cast<uint64_t>(_pext_u64(v, mask));
    });
}
ZIP_BMI2 void unpack_bits_bmi2(const uint8_t *in, size_t count, unsigned bits, uint8_t *plane)
{
    const uint64_t mask = low_bits_mask(bits);
    unpack_loop(in, count, bits, plane, [mask](uint64_t v, unsigned) ZIP_BMI2 {
        return static_cast<uint64_t>(_pdep_u64(v, mask));
    });
}

// The BMI2 run kernels repeat the loops above with the intrinsics written in: GCC does not
// inline target-specific lambdas into a generic template (measured: a call per group).
template <bool Sparse>
ZIP_BMI2 size_t encode_runs_bmi2_loop(const uint8_t *plane, size_t count, uint8_t *out,
                                      size_t out_size)
{
    constexpr uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
    const size_t groups = (count + 7) / 8;
    if (out_size < groups)
        return 0;
    uint8_t *lit = out + groups, *const end = out + out_size;
    uint64_t carry = 0;
    for (size_t g = 0; g < groups; ++g) {
        uint64_t v;
        unsigned valid = 0xff;
        if (8 * g + 8 <= count) {
            v = load_u64(plane + 8 * g);
        } else {
            uint8_t tmp[8] = {};
            std::memcpy(tmp, plane + 8 * g, count - 8 * g);
            v = load_u64(tmp);
            valid = (1u << (count - 8 * g)) - 1;
        }
        uint64_t x = Sparse ? v : v ^ ((v << 8) | carry);
        // High bit of each byte of x that is not zero, gathered: bit j = byte j is a literal.
        unsigned m = static_cast<unsigned>(_pext_u64(((x & lo7) + lo7) | x, hi)) & valid;
        carry = v >> 56;
        out[g] = static_cast<uint8_t>(m);
        uint64_t packed = _pext_u64(v, kByteMask[m]);
        size_t n = static_cast<size_t>(__builtin_popcount(m));
        if (end - lit >= 8) {
            std::memcpy(lit, &packed, 8);
        } else {
            if (static_cast<size_t>(end - lit) < n)
                return 0;
            std::memcpy(lit, &packed, n);
        }
        lit += n;
    }
    return static_cast<size_t>(lit - out);
}

ZIP_BMI2 size_t encode_runs_bmi2(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size)
{
    return encode_runs_bmi2_loop<false>(plane, count, out, out_size);
}
ZIP_BMI2 size_t encode_sparse_bmi2(const uint8_t *plane, size_t count, uint8_t *out,
                                   size_t out_size)
{
    return encode_runs_bmi2_loop<true>(plane, count, out, out_size);
}

ZIP_BMI2 void decode_sparse_bmi2(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                                 size_t count, uint8_t *plane)
{
    const size_t whole = count / 8;
    size_t g = 0;
    // Whole groups while 8-byte literal loads stay inside [lits, lits_end).
    for (; g < whole && lits_end - lits >= 8; ++g) {
        unsigned m = mask[g];
        uint64_t v = _pdep_u64(load_u64(lits), kByteMask[m]);
        lits += __builtin_popcount(m);
        std::memcpy(plane + 8 * g, &v, 8);
    }
    // Under 8 literals left (the caller checked that the mask counts them), often followed by
    // many groups of zeros: the rest read from a padded copy, still one pdep per group.
    uint8_t rest[16] = {};
    std::memcpy(rest, lits, std::min<size_t>(static_cast<size_t>(lits_end - lits), 8));
    const uint8_t *r = rest;
    for (; g < whole; ++g) {
        unsigned m = mask[g];
        uint64_t v = _pdep_u64(load_u64(r), kByteMask[m]);
        r += __builtin_popcount(m);
        std::memcpy(plane + 8 * g, &v, 8);
    }
    decode_sparse_tail(mask, lits + (r - rest), lits_end, count, plane, g);
}

ZIP_BMI2 void decode_runs_bmi2(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                               size_t count, uint8_t *plane)
{
    const size_t groups = (count + 7) / 8;
    const size_t whole = count / 8;
    uint64_t carry = 0;
    size_t g = 0;
    // Fast loop: whole groups while 8-byte literal loads stay inside [lits, lits_end).
    for (; g < whole && lits_end - lits >= 8; ++g) {
        unsigned m = mask[g];
        uint64_t v = _pdep_u64(load_u64(lits), kByteMask[m]);
        lits += __builtin_popcount(m);
        uint64_t fill = ~kByteMask[m];
        v |= (v << 8) & fill;
        fill &= fill << 8;
        v |= (v << 16) & fill;
        fill &= fill << 16;
        v |= (v << 32) & fill;
        uint64_t lead = m ? kByteMask[(m & (0u - m)) - 1] : ~uint64_t{0};
        v |= (carry * 0x0101010101010101ull) & lead;
        carry = m ? (v >> 56) : carry;
        std::memcpy(plane + 8 * g, &v, 8);
    }
    if (g < groups)
        decode_runs_tail(mask, lits, lits_end, count, plane, g, carry);
}

#define ZIP_AVX2 __attribute__((target("avx2")))

ZIP_AVX2 inline __m256i load_lanes(const uint8_t *lo, const uint8_t *hi)
{
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(lo));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(hi));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

ZIP_AVX2 inline __m256i load256(const uint8_t *p)
{
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
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

// Residuals of the 64-bit elements in v, given the same registers loaded one and two strides
// earlier (x1, x2): v ^ x1, zigzag(v - x1) or zigzag(v - 2 x1 + x2). AVX2 has no 64-bit
// arithmetic shift, so the sign comes from a compare.
ZIP_AVX2 inline __m256i residual64(__m256i v, __m256i x1, __m256i x2, unsigned pred)
{
    if (pred == kPredNone)
        return v;
    if (pred == kPredXor)
        return _mm256_xor_si256(v, x1);
    __m256i d = pred == kPredDelta1
                    ? _mm256_sub_epi64(v, x1)
                    : _mm256_sub_epi64(_mm256_add_epi64(v, x2), _mm256_add_epi64(x1, x1));
    __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), d);
    return _mm256_xor_si256(_mm256_slli_epi64(d, 1), sign);
}
ZIP_AVX2 inline __m256i residual32(__m256i v, __m256i x1, __m256i x2, unsigned pred)
{
    if (pred == kPredNone)
        return v;
    if (pred == kPredXor)
        return _mm256_xor_si256(v, x1);
    __m256i d = pred == kPredDelta1
                    ? _mm256_sub_epi32(v, x1)
                    : _mm256_sub_epi32(_mm256_add_epi32(v, x2), _mm256_add_epi32(x1, x1));
    return _mm256_xor_si256(_mm256_slli_epi32(d, 1), _mm256_srai_epi32(d, 31));
}

ZIP_AVX2 inline uint64_t or_lanes(__m256i v)
{
    __m128i o = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<uint64_t>(_mm_cvtsi128_si64(o)) |
           static_cast<uint64_t>(_mm_extract_epi64(o, 1));
}

// Elements [0, 2s) need the first-record convention: scalar. SIMD from element 2s on, where
// the one- and two-strides-earlier loads stay inside the block. Pred is a template parameter
// and the inner loops are unrolled: a run-time predictor in the loop cost ~30% (measured).
template <unsigned Pred>
ZIP_AVX2 uint64_t split8_avx2_loop(const uint8_t *e, size_t count, size_t stride, uint8_t *planes,
                                   size_t &at)
{
    // Word k of a lane <- byte k of its two elements.
    const __m256i pair = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0,
                                          8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    const size_t back1 = 8 * stride, back2 = 16 * stride;
    __m256i acc = _mm256_setzero_si256();
    size_t i = at;
    for (; i + 32 <= count; i += 32) {
        const uint8_t *b = e + 8 * i;
        // Residuals of elements 4m..4m+3 with whole-register loads (the earlier elements are
        // the same loads shifted by one and two strides), then regroup: register j takes
        // elements 2j, 2j+1 (from m = j/2) in lane 0 and 16+2j, 17+2j (from m = 4 + j/2) in
        // lane 1.
        __m256i nat[8];
#pragma GCC unroll 8
        for (int m = 0; m < 8; ++m) {
            const uint8_t *p = b + 32 * m;
            __m256i v = load256(p);
            if constexpr (Pred != kPredNone)
                v = residual64(v, load256(p - back1), load256(p - back2), Pred);
            acc = _mm256_or_si256(acc, v);
            nat[m] = v;
        }
        __m256i r[8];
#pragma GCC unroll 4
        for (int j = 0; j < 8; j += 2) {
            __m256i lo = nat[j / 2], hi = nat[4 + j / 2];
            r[j] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(lo, hi, 0x20), pair);
            r[j + 1] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(lo, hi, 0x31), pair);
        }
        transpose_8x8_u16(r);
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(planes + size_t(k) * count + i), r[k]);
    }
    at = i;
    return or_lanes(acc);
}

ZIP_AVX2 uint64_t split8_avx2(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                              uint8_t *planes)
{
    size_t i = count < 2 * stride ? count : 2 * stride;
    uint64_t any = split_scalar_range<uint64_t>(e, count, pred, stride, planes, 0, i);
    switch (pred) {
    case kPredNone:
        any |= split8_avx2_loop<kPredNone>(e, count, stride, planes, i);
        break;
    case kPredDelta1:
        any |= split8_avx2_loop<kPredDelta1>(e, count, stride, planes, i);
        break;
    case kPredDelta2:
        any |= split8_avx2_loop<kPredDelta2>(e, count, stride, planes, i);
        break;
    default:
        any |= split8_avx2_loop<kPredXor>(e, count, stride, planes, i);
        break;
    }
    return any | split_scalar_range<uint64_t>(e, count, pred, stride, planes, i, count);
}

// The plane statistics 32 bytes a step (the SSE2 loop was a quarter of compress time on planes
// that all go to LZ4, CloverLeaf's).
ZIP_AVX2 inline size_t sum_counts256(__m256i counts)
{
    __m256i s = _mm256_sad_epu8(counts, _mm256_setzero_si256());
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return static_cast<size_t>(_mm_cvtsi128_si64(t)) +
           static_cast<size_t>(_mm_cvtsi128_si64(_mm_srli_si128(t, 8)));
}

ZIP_AVX2 PlaneStats plane_stats_avx2(const uint8_t *p, size_t count)
{
    StatsAcc a;
    size_t i = 0;
    for (; i < count && i < 3; ++i)
        a.add(p, i);
    const __m256i zero = _mm256_setzero_si256();
    __m256i ors = zero;
    while (i + 32 <= count) {
        __m256i counts = zero, zcounts = zero, rcounts = zero;
        for (size_t steps = 0; steps < 255 && i + 32 <= count; ++steps, i += 32) {
            __m256i cur = load256(p + i), prev1 = load256(p + i - 1);
            __m256i prev2 = load256(p + i - 2), prev3 = load256(p + i - 3);
            __m256i eq = _mm256_cmpeq_epi8(cur, prev1);
            __m256i run = _mm256_and_si256(eq, _mm256_and_si256(_mm256_cmpeq_epi8(prev1, prev2),
                                                                _mm256_cmpeq_epi8(prev2, prev3)));
            counts = _mm256_sub_epi8(counts, eq);
            rcounts = _mm256_sub_epi8(rcounts, run);
            zcounts = _mm256_sub_epi8(zcounts, _mm256_cmpeq_epi8(cur, zero));
            ors = _mm256_or_si256(ors, cur);
        }
        a.same += sum_counts256(counts);
        a.zeros += sum_counts256(zcounts);
        a.runs += sum_counts256(rcounts);
    }
    alignas(32) uint8_t lanes[32];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), ors);
    for (uint8_t b : lanes)
        a.any |= b;
    for (; i < count; ++i)
        a.add(p, i);
    return a.done(count);
}

// Unzig is a template parameter and the inner loops are unrolled (GCC does not unroll at -O2,
// and then keeps the register arrays on the stack: measured 1.8x slower).
template <bool Unzig>
ZIP_AVX2 size_t join8_avx2_loop(const uint8_t *const *p, size_t count, uint8_t *e)
{
    const __m256i unpair = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0,
                                            2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i r[8];
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
            r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p[k] + i));
        transpose_8x8_u16(r);
        uint8_t *b = e + 8 * i;
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            __m256i v = _mm256_shuffle_epi8(r[j], unpair);
            if (Unzig)
                v = _mm256_xor_si256(_mm256_srli_epi64(v, 1),
                                     _mm256_sub_epi64(zero, _mm256_and_si256(v, one)));
            store_lanes(b + 16 * j, b + 128 + 16 * j, v);
        }
    }
    return i;
}

ZIP_AVX2 void join8_avx2(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e)
{
    size_t i = unzig ? join8_avx2_loop<true>(p, count, e) : join8_avx2_loop<false>(p, count, e);
    join_scalar_range<uint64_t>(p, count, unzig, e, i);
}

// The 4x4 byte transpose inside each 16-byte group is its own inverse: one mask both ways.
ZIP_AVX2 inline __m256i group4_mask()
{
    return _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5,
                            9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

template <unsigned Pred>
ZIP_AVX2 uint64_t split4_avx2_loop(const uint8_t *e, size_t count, size_t stride, uint8_t *planes,
                                   size_t &at)
{
    const __m256i group = group4_mask();
    const size_t back1 = 4 * stride, back2 = 8 * stride;
    __m256i acc = _mm256_setzero_si256();
    size_t i = at;
    for (; i + 32 <= count; i += 32) {
        const uint8_t *b = e + 4 * i;
        __m256i r[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const uint8_t *lo = b + 16 * j, *hi = b + 64 + 16 * j;
            __m256i v = load_lanes(lo, hi);
            if constexpr (Pred != kPredNone)
                v = residual32(v, load_lanes(lo - back1, hi - back1),
                               load_lanes(lo - back2, hi - back2), Pred);
            acc = _mm256_or_si256(acc, v);
            r[j] = _mm256_shuffle_epi8(v, group);
        }
        transpose_4x4_u32(r);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(planes + size_t(k) * count + i), r[k]);
    }
    at = i;
    uint64_t lanes = or_lanes(acc);
    return (lanes | (lanes >> 32)) & 0xffffffffu;
}

ZIP_AVX2 uint64_t split4_avx2(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                              uint8_t *planes)
{
    size_t i = count < 2 * stride ? count : 2 * stride;
    uint64_t any = split_scalar_range<uint32_t>(e, count, pred, stride, planes, 0, i);
    switch (pred) {
    case kPredNone:
        any |= split4_avx2_loop<kPredNone>(e, count, stride, planes, i);
        break;
    case kPredDelta1:
        any |= split4_avx2_loop<kPredDelta1>(e, count, stride, planes, i);
        break;
    case kPredDelta2:
        any |= split4_avx2_loop<kPredDelta2>(e, count, stride, planes, i);
        break;
    default:
        any |= split4_avx2_loop<kPredXor>(e, count, stride, planes, i);
        break;
    }
    return any | split_scalar_range<uint32_t>(e, count, pred, stride, planes, i, count);
}

template <bool Unzig>
ZIP_AVX2 size_t join4_avx2_loop(const uint8_t *const *p, size_t count, uint8_t *e)
{
    const __m256i group = group4_mask();
    const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i r[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
            r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p[k] + i));
        transpose_4x4_u32(r);
        uint8_t *b = e + 4 * i;
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            __m256i v = _mm256_shuffle_epi8(r[j], group);
            if (Unzig)
                v = _mm256_xor_si256(_mm256_srli_epi32(v, 1),
                                     _mm256_sub_epi32(zero, _mm256_and_si256(v, one)));
            store_lanes(b + 16 * j, b + 64 + 16 * j, v);
        }
    }
    return i;
}

ZIP_AVX2 void join4_avx2(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e)
{
    size_t i = unzig ? join4_avx2_loop<true>(p, count, e) : join4_avx2_loop<false>(p, count, e);
    join_scalar_range<uint32_t>(p, count, unzig, e, i);
}

// AVX-512 VBMI join for 8-byte elements, 64 elements per iteration: three rounds of two-source
// permutes (vpermt2b, one uop on Ice Lake and later) merge planes 2 -> words, words -> dwords,
// dwords -> qwords, each output in element order: 24 permutes per 64 elements where the AVX2
// kernel needs 32 shuffles per 32 elements (the shuffle port bounds both).
#define ZIP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define ZIP_AVX512_LAMBDA __attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline))

// Unzig is a template parameter and every inner loop is unrolled (GCC does not unroll at -O2):
// otherwise the register arrays live on the stack.
template <bool Unzig>
ZIP_AVX512 void join8_avx512_loop(const uint8_t *const *p, size_t count, uint8_t *e, size_t &at)
{
    alignas(64) uint8_t ix[4][64];
    alignas(64) uint32_t iq[2][16];
    for (unsigned j = 0; j < 32; ++j) {
        // Round 1: byte j of plane a and of plane b -> word j (elements 0..31, or 32..63).
        ix[0][2 * j] = static_cast<uint8_t>(j);
        ix[0][2 * j + 1] = static_cast<uint8_t>(64 + j);
        ix[1][2 * j] = static_cast<uint8_t>(32 + j);
        ix[1][2 * j + 1] = static_cast<uint8_t>(96 + j);
    }
    for (unsigned j = 0; j < 16; ++j) {
        // Round 2: word o + j of two word registers -> dword j (o = 0, or 16).
        for (unsigned h = 0; h < 2; ++h) {
            unsigned w = 2 * (16 * h + j);
            ix[2 + h][4 * j] = static_cast<uint8_t>(w);
            ix[2 + h][4 * j + 1] = static_cast<uint8_t>(w + 1);
            ix[2 + h][4 * j + 2] = static_cast<uint8_t>(64 + w);
            ix[2 + h][4 * j + 3] = static_cast<uint8_t>(64 + w + 1);
        }
    }
    for (unsigned j = 0; j < 8; ++j) {
        // Round 3: dword o + j of two dword registers -> qword j (o = 0, or 8).
        for (unsigned h = 0; h < 2; ++h) {
            iq[h][2 * j] = 8 * h + j;
            iq[h][2 * j + 1] = 16 + 8 * h + j;
        }
    }
    const __m512i w_lo = _mm512_load_si512(ix[0]), w_hi = _mm512_load_si512(ix[1]);
    const __m512i d_lo = _mm512_load_si512(ix[2]), d_hi = _mm512_load_si512(ix[3]);
    const __m512i q_lo = _mm512_load_si512(iq[0]), q_hi = _mm512_load_si512(iq[1]);
    const __m512i one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
    // 64 elements from i; fewer than 64 (the tail) with masked loads and stores: the scalar
    // tail was a fifth of the join time on minife's 3240-element messages.
    auto join64 = [&](size_t i, size_t n) ZIP_AVX512_LAMBDA {
        const __mmask64 in = n == 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
        __m512i w[4][2]; // planes 2g, 2g+1 as words: elements 0..31, 32..63
#pragma GCC unroll 4
        for (int g = 0; g < 4; ++g) {
            __m512i a = _mm512_maskz_loadu_epi8(in, p[2 * g] + i);
            __m512i b = _mm512_maskz_loadu_epi8(in, p[2 * g + 1] + i);
            w[g][0] = _mm512_permutex2var_epi8(a, w_lo, b);
            w[g][1] = _mm512_permutex2var_epi8(a, w_hi, b);
        }
        __m512i d[2][4]; // planes 4h..4h+3 as dwords: elements 16q..16q+15
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
            d[h][0] = _mm512_permutex2var_epi8(w[2 * h][0], d_lo, w[2 * h + 1][0]);
            d[h][1] = _mm512_permutex2var_epi8(w[2 * h][0], d_hi, w[2 * h + 1][0]);
            d[h][2] = _mm512_permutex2var_epi8(w[2 * h][1], d_lo, w[2 * h + 1][1]);
            d[h][3] = _mm512_permutex2var_epi8(w[2 * h][1], d_hi, w[2 * h + 1][1]);
        }
        uint8_t *b = e + 8 * i;
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
            __m512i v0 = _mm512_permutex2var_epi32(d[0][q], q_lo, d[1][q]);
            __m512i v1 = _mm512_permutex2var_epi32(d[0][q], q_hi, d[1][q]);
            if (Unzig) { // maskz shift: GCC 12 warns about _mm512_srli_epi64 (PR 105593)
                v0 = _mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, v0, 1),
                                      _mm512_sub_epi64(zero, _mm512_and_si512(v0, one)));
                v1 = _mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, v1, 1),
                                      _mm512_sub_epi64(zero, _mm512_and_si512(v1, one)));
            }
            if (n == 64) {
                _mm512_storeu_si512(b + 128 * q, v0);
                _mm512_storeu_si512(b + 128 * q + 64, v1);
            } else {
                _mm512_mask_storeu_epi64(b + 128 * q, static_cast<__mmask8>(in >> 16 * q), v0);
                _mm512_mask_storeu_epi64(b + 128 * q + 64,
                                         static_cast<__mmask8>(in >> (16 * q + 8)), v1);
            }
        }
    };
    size_t i = at;
    for (; i + 64 <= count; i += 64)
        join64(i, 64);
    if (i < count) {
        join64(i, count - i);
        i = count;
    }
    at = i;
}

ZIP_AVX512 void join8_avx512(const uint8_t *const *p, size_t count, bool unzig, uint8_t *e)
{
    size_t i = 0;
    if (unzig)
        join8_avx512_loop<true>(p, count, e, i);
    else
        join8_avx512_loop<false>(p, count, e, i);
    join_scalar_range<uint64_t>(p, count, unzig, e, i);
}

#endif // ZIP_FAST_X86

const Kernels kScalar{split8_scalar,        split4_scalar,      join8_scalar,
                      join4_scalar,         pack_bits_scalar,   unpack_bits_scalar,
                      encode_runs_scalar,   decode_runs_scalar, encode_sparse_scalar,
                      decode_sparse_scalar, plane_stats_sse2};

Kernels pick_best(bool avx512)
{
    Kernels k = kScalar;
#ifdef ZIP_FAST_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        k.split8 = split8_avx2;
        k.split4 = split4_avx2;
        k.join8 = join8_avx2;
        k.join4 = join4_avx2;
        k.plane_stats = plane_stats_avx2;
    }
    if (avx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi")) {
        k.join8 = join8_avx512;
#if defined(__x86_64__)
        k.split8 = split8_avx512;
        k.split4 = split4_avx512;
#endif
    }
    // pdep/pext take one cycle on Intel and on AMD since Zen 3 (the CI and production
    // machines); on older AMD they are microcoded and slower than the byte loop.
    if (__builtin_cpu_supports("bmi2")) {
        k.pack_bits = pack_bits_bmi2;
        k.unpack_bits = unpack_bits_bmi2;
        k.encode_runs = encode_runs_bmi2;
        k.decode_runs = decode_runs_bmi2;
        k.encode_sparse = encode_sparse_bmi2;
        k.decode_sparse = decode_sparse_bmi2;
    }
#if defined(__x86_64__)
    if (avx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2")) {
        k.encode_sparse = encode_sparse_vbmi2;
        k.decode_sparse = decode_sparse_vbmi2;
        k.encode_runs = encode_runs_vbmi2;
        k.decode_runs = decode_runs_vbmi2;
    }
#endif
#else
    (void)avx512;
#endif
    return k;
}

} // namespace

uint64_t split8_scalar_range(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                             uint8_t *planes, size_t from, size_t to)
{
    return split_scalar_range<uint64_t>(e, count, pred, stride, planes, from, to);
}
uint64_t split4_scalar_range(const uint8_t *e, size_t count, unsigned pred, size_t stride,
                             uint8_t *planes, size_t from, size_t to)
{
    return split_scalar_range<uint32_t>(e, count, pred, stride, planes, from, to);
}

const Kernels &kernels()
{
    static const Kernels best = pick_best(true);
    return best;
}

const Kernels &kernels_without_avx512()
{
    static const Kernels k = pick_best(false);
    return k;
}

const Kernels &scalar_kernels()
{
    return kScalar;
}

} // namespace zip::fast_detail
