// The running sums of the `fast` decoder (fast_transform.hpp, unpredict) on AVX-512, for strides
// that divide a vector. The scalar loop carries one add per element through a register (about
// 0.8 ns an element here; a third of minife's decode time). Here a vector of residuals becomes
// its own prefix in log2(lanes / stride) shift-adds, off the carried chain, and the chain is one
// add per vector: the previous record, broadcast, plus the new vector's last record.
//
// With stride S, lane j of a vector holds field j % S of record j / S. For Delta2, whose
// differences are themselves running sums, the vector's differences are d = dc + P(r) and its
// values xc + P(d), where P is the prefix over records and dc, xc are the previous record's
// difference and value; both carries again advance by one add a vector.
#include "fast_transform.hpp"

#include <cstring>

#include "fast_transpose.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define ZIP_AVX512_TARGET __attribute__((target("avx512f,avx512dq")))
#define ZIP_AVX512 ZIP_AVX512_TARGET __attribute__((always_inline)) inline

// The masked forms throughout (all lanes set): GCC 12's plain forms start from an undefined
// vector and warn about it (-Wmaybe-uninitialized).

namespace zip::fast_detail
{
namespace
{

template <class U> struct Lanes;

template <> struct Lanes<uint64_t> {
    static constexpr size_t kCount = 8;
    static constexpr __mmask8 kAll = 0xff;
    static ZIP_AVX512 __m512i add(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
    static ZIP_AVX512 __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi64(a, b); }
    static ZIP_AVX512 __m512i permute(__m512i idx, __m512i v)
    {
        return _mm512_maskz_permutexvar_epi64(kAll, idx, v);
    }
    // Lanes moved up by M, zeros in the first M.
    template <unsigned M> static ZIP_AVX512 __m512i shift_up(__m512i v)
    {
        return _mm512_maskz_alignr_epi64(static_cast<__mmask8>(0xffu << M), v, v, kCount - M);
    }
    static ZIP_AVX512 __m512i from(const uint64_t *v) { return _mm512_loadu_si512(v); }
};

template <> struct Lanes<uint32_t> {
    static constexpr size_t kCount = 16;
    static constexpr __mmask16 kAll = 0xffff;
    static ZIP_AVX512 __m512i add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
    static ZIP_AVX512 __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
    static ZIP_AVX512 __m512i permute(__m512i idx, __m512i v)
    {
        return _mm512_maskz_permutexvar_epi32(kAll, idx, v);
    }
    template <unsigned M> static ZIP_AVX512 __m512i shift_up(__m512i v)
    {
        return _mm512_maskz_alignr_epi32(static_cast<__mmask16>(0xffffu << M), v, v, kCount - M);
    }
    static ZIP_AVX512 __m512i from(const uint32_t *v) { return _mm512_loadu_si512(v); }
};

template <class U, unsigned Pred> ZIP_AVX512 __m512i combine(__m512i a, __m512i b)
{
    if constexpr (Pred == kPredXor)
        return _mm512_xor_si512(a, b);
    else
        return Lanes<U>::add(a, b);
}

// Lane j: the combination of lanes j, j - S, j - 2S, ... of v.
template <class U, unsigned Pred, unsigned S, unsigned M = S> ZIP_AVX512 __m512i prefix(__m512i v)
{
    if constexpr (M >= Lanes<U>::kCount)
        return v;
    else
        return prefix<U, Pred, S, 2 * M>(combine<U, Pred>(v, Lanes<U>::template shift_up<M>(v)));
}

template <class U> U load_elem(const uint8_t *p, size_t i)
{
    U v;
    std::memcpy(&v, p + i * sizeof(U), sizeof v);
    return v;
}

// A vector whose lane j holds field j % S of the record that ends at element `end` of dst.
template <class U, unsigned S> ZIP_AVX512 __m512i last_record(const uint8_t *dst, size_t end)
{
    U lanes[Lanes<U>::kCount];
    for (size_t j = 0; j < Lanes<U>::kCount; ++j)
        lanes[j] = load_elem<U>(dst, end - S + j % S);
    return Lanes<U>::from(lanes);
}

// Lane j: the index of field j % S in the vector's last record.
template <class U, unsigned S> ZIP_AVX512 __m512i last_record_index()
{
    U idx[Lanes<U>::kCount];
    for (size_t j = 0; j < Lanes<U>::kCount; ++j)
        idx[j] = static_cast<U>(Lanes<U>::kCount - S + j % S);
    return Lanes<U>::from(idx);
}

template <class U, unsigned S, unsigned Pred>
ZIP_AVX512 size_t running_sums(uint8_t *dst, size_t i, size_t end)
{
    using L = Lanes<U>;
    constexpr size_t kN = L::kCount;
    const __m512i last = last_record_index<U, S>();
    __m512i xc = last_record<U, S>(dst, i);
    if constexpr (Pred != kPredDelta2) {
        for (; i + kN <= end; i += kN) {
            __m512i p = prefix<U, Pred, S>(_mm512_loadu_si512(dst + i * sizeof(U)));
            _mm512_storeu_si512(dst + i * sizeof(U), combine<U, Pred>(p, xc));
            xc = combine<U, Pred>(xc, L::permute(last, p));
        }
    } else {
        __m512i dc = L::sub(xc, last_record<U, S>(dst, i - S));
        for (; i + kN <= end; i += kN) {
            __m512i p = prefix<U, Pred, S>(_mm512_loadu_si512(dst + i * sizeof(U)));
            __m512i d = L::add(p, dc);
            __m512i q = prefix<U, Pred, S>(d);
            _mm512_storeu_si512(dst + i * sizeof(U), L::add(q, xc));
            xc = L::add(xc, L::permute(last, q));
            dc = L::add(dc, L::permute(last, p));
        }
    }
    return i;
}

// Not inlined: the loops are compiled for AVX-512 and called from the dispatcher, which is not.
template <class U, unsigned S>
ZIP_AVX512_TARGET size_t running_sums_of(uint8_t *dst, size_t i, size_t end, unsigned pred)
{
    // Delta2 of doubles with stride 1: eight records a vector, two prefixes of three steps each
    // cost what the scalar loop's two running sums do (0.63 against 0.54-0.68 ns an element);
    // every other Delta2 gains (u64 stride 2: 1.1-1.3x, u32 stride 1: 1.4-1.6x).
    if (pred == kPredDelta2)
        return sizeof(U) == 8 && S == 1 ? i : running_sums<U, S, kPredDelta2>(dst, i, end);
    if (pred == kPredDelta1)
        return running_sums<U, S, kPredDelta1>(dst, i, end);
    return running_sums<U, S, kPredXor>(dst, i, end);
}

} // namespace

template <class U> size_t unpredict_avx512(uint8_t *dst, size_t i, size_t end, Transform t)
{
    switch (t.stride) {
    case 1:
        return running_sums_of<U, 1>(dst, i, end, t.pred);
    case 2:
        return running_sums_of<U, 2>(dst, i, end, t.pred);
    case 4:
        return running_sums_of<U, 4>(dst, i, end, t.pred);
    case 8:
        return running_sums_of<U, 8>(dst, i, end, t.pred);
    default:
        return i;
    }
}

template size_t unpredict_avx512<uint64_t>(uint8_t *, size_t, size_t, Transform);
template size_t unpredict_avx512<uint32_t>(uint8_t *, size_t, size_t, Transform);

} // namespace zip::fast_detail

#endif
