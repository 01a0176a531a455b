// The `fast` codec's transform per block: which predictor and stride (elements per record) the
// encoder uses, chosen from a sample of the block, and the decoder's inverse (running sums).
//
// A transform is one byte in the block (fast.cpp): bits 0-1 the predictor (fast_detail::kPred*),
// bits 2-6 the stride - 1. Elements before the block stand for the same field of the first
// record (x[j] = x[j + s] for j < 0), so the first record's residuals are zero and the record
// itself travels as the block's seed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zip::fast_detail
{

struct Transform {
    unsigned pred = 0; // kPredNone, kPredDelta1, kPredDelta2, kPredXor
    size_t stride = 1; // 1..32

    uint8_t byte() const { return static_cast<uint8_t>(pred | (stride - 1) << 2); }
    static Transform from_byte(uint8_t b) { return {b & 3u, size_t{1} + (b >> 2 & 31u)}; }
};

// A transform and what the sample said about it: the significant bits of its residuals over
// sample_elems elements (both 0 when a rule decided without measuring).
struct Choice {
    Transform transform;
    unsigned sample_bits = 0;
    unsigned sample_elems = 0;
};

// Largest stride the encoder tries (the format allows 32).
constexpr size_t kSearchStride = 8;
// Blocks of fewer elements get the default transform without a sample.
constexpr size_t kMinSampled = 80;

// The transform that leaves the fewest significant residual bits on a sample of the block (count
// elements of U at src): None where values repeat exactly (sorted data, plateaus), otherwise the
// best of Delta2, Delta1, Xor with stride 1, and of the strides 2..kSearchStride (records of
// several fields side by side). Depends only on the block (deterministic frames).
template <class U> Choice choose_transform(const uint8_t *src, size_t count);

// The stride and predictor search of choose_transform with the portable cost loop (the SIMD
// one must choose the same, so that frames do not depend on the CPU): for tests. Needs
// count >= 2 * kSearchStride + 64 and no exact-repeat head (choose_transform's first test).
template <class U> Choice choose_transform_portable(const uint8_t *src, size_t count);

// Undoes the prediction of elements [from, from + n) of dst in place (dst holds un-zigzagged
// residuals there, and the finished elements before `from`). seed: the first record,
// min(stride, count) elements (unused for None).
template <class U>
void unpredict(uint8_t *dst, size_t from, size_t n, Transform t, const uint8_t *seed);

// unpredict without the SIMD running sums: for tests (both must give the same elements).
template <class U>
void unpredict_portable(uint8_t *dst, size_t from, size_t n, Transform t, const uint8_t *seed);

#if defined(__x86_64__) || defined(__i386__)
// The running sums of elements [i, end) on AVX-512F/DQ (fast_unpredict_avx512.cpp), for strides
// 1, 2, 4 and 8 and every predictor but None (not Delta2 of 8-byte elements with stride 1, where
// the scalar loop is as fast), over whole vectors: returns the first element it left (i itself
// where it does nothing). Needs i >= 2 * stride. Call only where the CPU has both.
template <class U> size_t unpredict_avx512(uint8_t *dst, size_t i, size_t end, Transform t);
#endif

} // namespace zip::fast_detail
