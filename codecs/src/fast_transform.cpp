#include "fast_transform.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "fast_transpose.hpp"

namespace zip::fast_detail
{
namespace
{

template <class U> [[gnu::always_inline]] inline U load(const uint8_t *p, size_t i)
{
    U v;
    std::memcpy(&v, p + i * sizeof(U), sizeof v);
    return v;
}
template <class U> inline void store(uint8_t *p, size_t i, U v)
{
    std::memcpy(p + i * sizeof(U), &v, sizeof v);
}

#define ZIP_INLINE __attribute__((always_inline)) inline

// The cost of a residual: its significant bits, what it costs the byte planes roughly (the
// top nonzero plane is bit-packed, zero residuals cost nothing in sparse planes). Counting
// nonzero bytes instead chose Delta1 over Delta2 on 7 of 16 gauss-1024 blocks (ratio 1.56 ->
// 1.45). Every cost kernel gives exactly the same sums (frames must not depend on the CPU).
ZIP_INLINE unsigned significant_bits(uint64_t v)
{
    return v == 0 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(v));
}

ZIP_INLINE unsigned set_bits(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<unsigned>((v * 0x0101010101010101ull) >> 56);
}

// A sample's cost under one transform: the significant bits of its residuals, and the same less
// the bits below the top that are equal in every residual of a window. The plane coder drops
// such a bit even where its byte is noise (bit planes, fast_bitplanes.hpp; constant planes):
// None and Xor keep them, differences smear them with their carries. The credited cost decides
// only among noise (miniVite's random coordinates: a mantissa bit always set; Delta1 had the
// fewest significant bits, Xor codes 1-2% smaller); elsewhere it chose worse (cloverleaf -0.6%).
struct SampleCost {
    unsigned bits = 0, credited = 0;
    SampleCost operator+(SampleCost o) const { return {bits + o.bits, credited + o.credited}; }
};

ZIP_INLINE SampleCost window_cost(unsigned bits, uint64_t any, uint64_t all, unsigned elems)
{
    const unsigned same = (significant_bits(any) - set_bits(any ^ all)) * elems;
    return {bits, bits > same ? bits - same : 0};
}

template <class U> ZIP_INLINE U zigzag(U d)
{
    return static_cast<U>((d << 1) ^ (U{0} - (d >> (8 * sizeof(U) - 1))));
}

template <class U, unsigned Pred> ZIP_INLINE U residual(const uint8_t *src, size_t i, size_t s)
{
    U x = load<U>(src, i);
    if constexpr (Pred == kPredNone)
        return x;
    U x1 = load<U>(src, i - s);
    if constexpr (Pred == kPredXor)
        return x ^ x1;
    if constexpr (Pred == kPredDelta1)
        return zigzag<U>(static_cast<U>(x - x1));
    return zigzag<U>(static_cast<U>(x - 2 * x1 + load<U>(src, i - 2 * s)));
}

// The sample: two windows of kWindow elements, one near the start and one in the middle of the
// block (a block may hold the end of one field and the start of another). kWindow is a multiple
// of the SIMD kernels' lanes.
constexpr size_t kWindow = 32;

struct Sample {
    size_t a, b; // windows [a, a + kWindow) and [b, b + kWindow); a >= 2 * kSearchStride
};

// Needs count >= 2 * kSearchStride + 2 * kWindow.
Sample sample_of(size_t count)
{
    const size_t a = 2 * kSearchStride;
    return {a, std::max(a + kWindow, count / 2 - kWindow / 2)};
}

// Significant residual bits of the window at `from` under (Pred, s): portable.
struct ScalarCost {
    template <class U, unsigned Pred>
    ZIP_INLINE static SampleCost window(const uint8_t *src, size_t from, size_t s)
    {
        unsigned c = 0;
        U any = 0, all = static_cast<U>(~U{0});
        for (size_t i = from; i < from + kWindow; ++i) {
            const U r = residual<U, Pred>(src, i, s);
            c += significant_bits(r);
            any |= r;
            all &= r;
        }
        return window_cost(c, any, all, kWindow);
    }
};

#if defined(__x86_64__) || defined(__i386__)
#define ZIP_AVX512CD __attribute__((target("avx512f,avx512cd")))

// The same with AVX-512 (vplzcnt): 8 or 16 residuals a step. Called, not inlined (GCC inlines
// nothing across targets); the 28 calls per block cost little next to the scalar loops.
struct Avx512Cost {
    template <class U, unsigned Pred>
    ZIP_AVX512CD static SampleCost window(const uint8_t *src, size_t from, size_t s)
    {
        constexpr size_t kLanes = 64 / sizeof(U);
        __m512i lz = _mm512_setzero_si512(), any = _mm512_setzero_si512();
        __m512i all = _mm512_set1_epi32(-1);
        for (size_t i = from; i < from + kWindow; i += kLanes) {
            const uint8_t *at = src + i * sizeof(U);
            __m512i x = _mm512_loadu_si512(at), r;
            if constexpr (Pred == kPredNone) {
                r = x;
            } else {
                __m512i x1 = _mm512_loadu_si512(at - s * sizeof(U));
                if constexpr (Pred == kPredXor) {
                    r = _mm512_xor_si512(x, x1);
                } else if constexpr (sizeof(U) == 8) {
                    __m512i d = _mm512_sub_epi64(x, x1);
                    if constexpr (Pred == kPredDelta2)
                        d = _mm512_add_epi64(_mm512_sub_epi64(d, x1),
                                             _mm512_loadu_si512(at - 2 * s * sizeof(U)));
                    // maskz shift: GCC 12 warns about _mm512_srai_epi64 (PR 105593)
                    r = _mm512_xor_si512(_mm512_add_epi64(d, d),
                                         _mm512_maskz_srai_epi64(0xff, d, 63));
                } else {
                    __m512i d = _mm512_sub_epi32(x, x1);
                    if constexpr (Pred == kPredDelta2)
                        d = _mm512_add_epi32(_mm512_sub_epi32(d, x1),
                                             _mm512_loadu_si512(at - 2 * s * sizeof(U)));
                    r = _mm512_xor_si512(_mm512_add_epi32(d, d),
                                         _mm512_maskz_srai_epi32(0xffff, d, 31));
                }
            }
            any = _mm512_or_si512(any, r);
            all = _mm512_and_si512(all, r);
            lz = sizeof(U) == 8 ? _mm512_add_epi64(lz, _mm512_lzcnt_epi64(r))
                                : _mm512_add_epi32(lz, _mm512_lzcnt_epi32(r));
        }
        // bits = width - leading zeros, summed (a zero residual has width leading zeros).
        // Summed through memory: GCC 12 warns inside _mm512_reduce_add_epi64 (PR 105593).
        alignas(64) U lanes[kLanes], ors[kLanes], ands[kLanes];
        _mm512_store_si512(lanes, lz);
        _mm512_store_si512(ors, any);
        _mm512_store_si512(ands, all);
        unsigned zeros = 0;
        U or_all = 0, and_all = static_cast<U>(~U{0});
        for (size_t k = 0; k < kLanes; ++k) {
            zeros += static_cast<unsigned>(lanes[k]);
            or_all |= ors[k];
            and_all &= ands[k];
        }
        return window_cost(static_cast<unsigned>(kWindow * 8 * sizeof(U)) - zeros, or_all, and_all,
                           kWindow);
    }
};
#endif

template <class Cost, class U, unsigned Pred>
ZIP_INLINE SampleCost cost(const uint8_t *src, const Sample &w, size_t s)
{
    return Cost::template window<U, Pred>(src, w.a, s) +
           Cost::template window<U, Pred>(src, w.b, s);
}

template <class Cost, class U> ZIP_INLINE Choice choose(const uint8_t *src, size_t count)
{
    const Sample w = sample_of(count);
    // Delta2 with stride 1 first: it wins ties (smooth fields, the common case). A later
    // candidate must beat the best so far by 1/32, at most half a bit per sampled element: the
    // costs of a small sample are noisy, and the least of many noisy costs is low by chance
    // (random keys: Delta1 with strides 4..7 beat Delta1 with stride 1 on the sample, for
    // nothing); but on noise of ~45 bits Delta1's 0.8 bits less than Delta2 are under 1/32
    // (corpus: miniVite's coordinates 1.147 -> 1.164, synthetic sets unchanged).
    Transform best{kPredDelta2, 1};
    SampleCost best_cost = cost<Cost, U, kPredDelta2>(src, w, 1);
    auto consider = [&](SampleCost c, unsigned pred, size_t s) {
        if (c.bits < best_cost.bits - std::min<unsigned>(best_cost.bits / 32, kWindow)) {
            best_cost = c;
            best = {pred, s};
        }
    };
    consider(cost<Cost, U, kPredDelta1>(src, w, 1), kPredDelta1, 1);
    const SampleCost xor_cost = cost<Cost, U, kPredXor>(src, w, 1);
    consider(xor_cost, kPredXor, 1);
    consider(cost<Cost, U, kPredNone>(src, w, 1), kPredNone, 1);
    // Records: the stride whose Delta1 leaves the least, then its Delta2 and Xor.
    size_t stride = 2;
    SampleCost stride_cost{~0u, ~0u};
    for (size_t s = 2; s <= kSearchStride; ++s) {
        SampleCost c = cost<Cost, U, kPredDelta1>(src, w, s);
        if (c.bits < stride_cost.bits) {
            stride_cost = c;
            stride = s;
        }
    }
    consider(stride_cost, kPredDelta1, stride);
    consider(cost<Cost, U, kPredDelta2>(src, w, stride), kPredDelta2, stride);
    consider(cost<Cost, U, kPredXor>(src, w, stride), kPredXor, stride);
    // Noise (3/4 of the bits significant whatever the predictor): what is left to gain are
    // single constant bits and equal high bits, which Xor keeps; differences carry into them.
    // Xor takes over when its credited cost is no higher, without a margin (miniVite's
    // coordinates in one binade: Delta1 won on the sample by less than the margin, Xor codes
    // 1-1.5% smaller).
    constexpr unsigned kNoise = 3 * 8 * sizeof(U) / 4 * 2 * kWindow;
    if (best.pred != kPredXor && best_cost.bits >= kNoise &&
        xor_cost.credited <= best_cost.credited) {
        best = {kPredXor, 1};
        best_cost = xor_cost;
    }
    return {best, best_cost.bits, 2 * kWindow};
}

#if defined(__x86_64__) || defined(__i386__)
template <class U> Choice choose_avx512(const uint8_t *src, size_t count)
{
    return choose<Avx512Cost, U>(src, count);
}
#endif
template <class U> Choice choose_scalar(const uint8_t *src, size_t count)
{
    return choose<ScalarCost, U>(src, count);
}

} // namespace

template <class U> Choice choose_transform(const uint8_t *src, size_t count)
{
    // Exact repeats: None keeps them as runs, where differences would turn them into alternating
    // noise (sorted gauss-512: ratio 6.2 with None, 4.1 with Delta2). Half of the first 64
    // elements equal to their predecessor.
    const size_t head = std::min<size_t>(count, 65);
    size_t repeats = 0;
    for (size_t i = 1; i < head; ++i)
        repeats += load<U>(src, i) == load<U>(src, i - 1);
    if (head > 1 && 2 * repeats >= head - 1)
        return {{kPredNone, 1}, 0, 0};
    static_assert(kMinSampled >= 2 * kSearchStride + 2 * kWindow);
    if (count < kMinSampled)
        return {{kPredDelta2, 1}, 0, 0}; // too small to judge: the smooth-field default
#if defined(__x86_64__) || defined(__i386__)
    static const bool has_avx512cd =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
    if (has_avx512cd)
        return choose_avx512<U>(src, count);
#endif
    return choose_scalar<U>(src, count);
}

namespace
{

// Elements [i, end) of stride S (i >= 2S), each field's last value and difference carried in
// registers: the loop through memory waited on a store-to-load forward per element (half of
// minife's decode time with stride 2).
template <class U, size_t S, unsigned Pred>
void unpredict_fields(uint8_t *dst, size_t i, size_t end)
{
    U x[S], d[S];
    for (size_t k = 0; k < S; ++k) {
        x[k] = load<U>(dst, i - S + k);
        d[k] = static_cast<U>(x[k] - load<U>(dst, i - 2 * S + k));
    }
    auto step = [&](size_t k, U r) {
        if constexpr (Pred == kPredDelta2) {
            d[k] = static_cast<U>(d[k] + r);
            x[k] = static_cast<U>(x[k] + d[k]);
        } else if constexpr (Pred == kPredDelta1) {
            x[k] = static_cast<U>(x[k] + r);
        } else {
            x[k] ^= r;
        }
        return x[k];
    };
    for (; i + S <= end; i += S) {
#pragma GCC unroll 8
        for (size_t k = 0; k < S; ++k)
            store<U>(dst, i + k, step(k, load<U>(dst, i + k)));
    }
    for (size_t k = 0; i < end; ++i, ++k)
        store<U>(dst, i, step(k, load<U>(dst, i)));
}

template <class U, size_t S>
void unpredict_stride(uint8_t *dst, size_t i, size_t end, unsigned pred)
{
    if (pred == kPredDelta2)
        unpredict_fields<U, S, kPredDelta2>(dst, i, end);
    else if (pred == kPredDelta1)
        unpredict_fields<U, S, kPredDelta1>(dst, i, end);
    else
        unpredict_fields<U, S, kPredXor>(dst, i, end);
}

// The first two records of a block read the seed for the elements before it (see the header);
// returns the first element after them (or end).
template <class U>
size_t unpredict_head(uint8_t *dst, size_t from, size_t end, Transform t, const uint8_t *seed)
{
    const size_t s = t.stride;
    size_t i = from;
    for (; i < end && i < 2 * s; ++i) {
        U r = load<U>(dst, i);
        U p1 = i < s ? load<U>(seed, i) : load<U>(dst, i - s);
        U p2 = i < s ? load<U>(seed, i) : load<U>(seed, i - s);
        U x = t.pred == kPredXor      ? r ^ p1
              : t.pred == kPredDelta1 ? static_cast<U>(r + p1)
                                      : static_cast<U>(r + 2 * p1 - p2);
        store<U>(dst, i, x);
    }
    return i;
}

// Elements [i, end), i >= 2 * stride, one at a time (per field in registers up to stride 8).
template <class U> void unpredict_rest(uint8_t *dst, size_t i, size_t end, Transform t)
{
    const size_t s = t.stride;
    if (i == end)
        return;
    if (s == 1 && t.pred == kPredDelta2) {
        // x[i] - x[i-1] = d[i] = d[i-1] + residual: two running sums. Two elements a step, with
        // each sum advanced by one add of a pair total (r0 + r1, d0 + d1, off the chains): half
        // the latency per element of the one-at-a-time loop, which that latency bounded.
        U xs = load<U>(dst, i - 1), ds = static_cast<U>(xs - load<U>(dst, i - 2));
        for (; i + 2 <= end; i += 2) {
            U r0 = load<U>(dst, i), r1 = load<U>(dst, i + 1);
            U d0 = ds + r0, d1 = ds + (r0 + r1);
            U x0 = xs + d0, x1 = xs + (d0 + d1);
            store<U>(dst, i, x0);
            store<U>(dst, i + 1, x1);
            ds = d1;
            xs = x1;
        }
        for (; i < end; ++i) {
            ds += load<U>(dst, i);
            xs += ds;
            store<U>(dst, i, xs);
        }
        return;
    }
    switch (s) { // strides up to 8: each field's running sums in registers
    case 1:
        return unpredict_stride<U, 1>(dst, i, end, t.pred);
    case 2:
        return unpredict_stride<U, 2>(dst, i, end, t.pred);
    case 3:
        return unpredict_stride<U, 3>(dst, i, end, t.pred);
    case 4:
        return unpredict_stride<U, 4>(dst, i, end, t.pred);
    case 5:
        return unpredict_stride<U, 5>(dst, i, end, t.pred);
    case 6:
        return unpredict_stride<U, 6>(dst, i, end, t.pred);
    case 7:
        return unpredict_stride<U, 7>(dst, i, end, t.pred);
    case 8:
        return unpredict_stride<U, 8>(dst, i, end, t.pred);
    default:
        break;
    }
    // Longer records: s independent chains through dst.
    if (t.pred == kPredDelta2) {
        for (; i < end; ++i)
            store<U>(dst, i,
                     static_cast<U>(load<U>(dst, i) + 2 * load<U>(dst, i - s) -
                                    load<U>(dst, i - 2 * s)));
    } else if (t.pred == kPredDelta1) {
        for (; i < end; ++i)
            store<U>(dst, i, static_cast<U>(load<U>(dst, i) + load<U>(dst, i - s)));
    } else {
        for (; i < end; ++i)
            store<U>(dst, i, load<U>(dst, i) ^ load<U>(dst, i - s));
    }
}

} // namespace

template <class U>
void unpredict(uint8_t *dst, size_t from, size_t n, Transform t, const uint8_t *seed)
{
    if (t.pred == kPredNone || n == 0)
        return;
    size_t i = unpredict_head<U>(dst, from, from + n, t, seed);
#if defined(__x86_64__) || defined(__i386__)
    static const bool has_avx512dq =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    if (has_avx512dq && i < from + n)
        i = unpredict_avx512<U>(dst, i, from + n, t);
#endif
    unpredict_rest<U>(dst, i, from + n, t);
}

template <class U>
void unpredict_portable(uint8_t *dst, size_t from, size_t n, Transform t, const uint8_t *seed)
{
    if (t.pred == kPredNone || n == 0)
        return;
    unpredict_rest<U>(dst, unpredict_head<U>(dst, from, from + n, t, seed), from + n, t);
}

template <class U> Choice choose_transform_portable(const uint8_t *src, size_t count)
{
    return choose_scalar<U>(src, count);
}

template Choice choose_transform<uint64_t>(const uint8_t *, size_t);
template Choice choose_transform<uint32_t>(const uint8_t *, size_t);
template Choice choose_transform_portable<uint64_t>(const uint8_t *, size_t);
template Choice choose_transform_portable<uint32_t>(const uint8_t *, size_t);
template void unpredict<uint64_t>(uint8_t *, size_t, size_t, Transform, const uint8_t *);
template void unpredict<uint32_t>(uint8_t *, size_t, size_t, Transform, const uint8_t *);
template void unpredict_portable<uint64_t>(uint8_t *, size_t, size_t, Transform, const uint8_t *);
template void unpredict_portable<uint32_t>(uint8_t *, size_t, size_t, Transform, const uint8_t *);

} // namespace zip::fast_detail
