// The hot kernels of the `fast` codec: byte transposition ("shuffle") between element order and
// byte-plane order, fused with prediction, and the plane codings (bit packing, run coding).
// Plane k holds byte k (little-endian) of every element, so a block of `count` elements of
// `width` bytes becomes `width` planes of `count` bytes each.
//
// split:  elements (any alignment) -> prediction residuals (predictor kPred*, from the
//         elements one and two strides back, as in fast.cpp) -> planes (one contiguous buffer,
//         plane k at planes + k * count). Returns the OR of all residuals (its zero bytes mark
//         all-zero planes). Prediction is fused in because it is a pure function of x[i],
//         x[i-s], x[i-2s].
// join:   planes (each at its own pointer: some are read straight from the compressed block,
//         some from scratch) -> residuals, un-zigzagged when `unzig`, written to any address.
//         Undoing the prediction is a running sum; fast.cpp does that scan.
//
// pack_bits / unpack_bits: a plane whose bytes all fit in `bits` (1..7) low bits, stored as
//               groups of 8 bytes -> `bits` bytes (byte j of a group at bit bits*j of the
//               little-endian group); the last group is zero-padded. packed_size() gives the
//               size. unpack writes exactly `count` bytes and reads exactly packed_size bytes.
//
// encode_runs / decode_runs: a plane as a literal mask and the literals. Bit j of mask byte g
//               is 1 when plane byte 8g+j differs from the byte before it (the byte before
//               byte 0 counts as 0) and is then stored among the literals, in order; a 0 bit
//               repeats the previous byte. Mask bits past `count` are 0. Size:
//               runs_size(count, literals). encode writes exactly that much (out_size) and
//               returns it, or 0 if the literals would not fit out_size; decode trusts that the
//               mask is consistent with [lits, lits_end) (the caller checks the popcount).
//
// encode_sparse / decode_sparse: as the run coding, but a mask bit marks a byte that is not
//               zero, and a clear bit decodes as zero (planes with zeros anywhere: interleaved
//               fields of which some are zero). Same size formula, runs_size().
//
// The AVX2 kernels move 32 elements per iteration, the AVX-512 ones (split and join: VBMI;
// sparse and run coding: VBMI2) 64 with masked tails; the scalar loops handle what is left and
// serve CPUs without AVX2. Dispatch is decided once at run time (CI machines may lack AVX2); every
// level writes the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zip::fast_detail
{

// Predictors of the split kernels (the residual of x[i] from x1 = x[i-s], x2 = x[i-2s]).
enum : unsigned {
    kPredNone = 0,   // x
    kPredDelta1 = 1, // zigzag(x - x1)
    kPredDelta2 = 2, // zigzag(x - 2 x1 + x2)
    kPredXor = 3,    // x ^ x1
};

using SplitFn = uint64_t (*)(const uint8_t *elems, size_t count, unsigned pred, size_t stride,
                             uint8_t *planes);

// What the plane coder needs to know about a plane (fast.cpp): the OR of all bytes (its bit
// length is the packed width), the bytes that differ from the byte before (the run coding's
// literals; the byte before byte 0 counts as 0) or are not zero (the sparse coding's), and the
// bytes equal to the three before them (what LZ4 can cover with matches).
struct PlaneStats {
    unsigned bits; // 0..8
    size_t literals;
    size_t nonzero;
    size_t in_runs;
};
using StatsFn = PlaneStats (*)(const uint8_t *plane, size_t count);
using JoinFn = void (*)(const uint8_t *const *planes, size_t count, bool unzig, uint8_t *elems);
using PackFn = void (*)(const uint8_t *plane, size_t count, unsigned bits, uint8_t *out);
using UnpackFn = void (*)(const uint8_t *in, size_t count, unsigned bits, uint8_t *plane);

using EncodeRunsFn = size_t (*)(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size);
using DecodeRunsFn = void (*)(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                              size_t count, uint8_t *plane);

struct Kernels {
    SplitFn split8, split4;
    JoinFn join8, join4;
    PackFn pack_bits;         // BMI2 pext where available
    UnpackFn unpack_bits;     // BMI2 pdep where available
    EncodeRunsFn encode_runs; // BMI2 pext where available
    DecodeRunsFn decode_runs; // BMI2 pdep where available
    EncodeRunsFn encode_sparse;
    DecodeRunsFn decode_sparse;
    StatsFn plane_stats; // SSE2 (baseline) or AVX2
};

// The low n bits set (all 64 from n = 64 on): the byte masks of the AVX-512 loops' masked loads
// and stores.
inline uint64_t low_bits64(size_t n)
{
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

inline size_t runs_size(size_t count, size_t literals)
{
    return (count + 7) / 8 + literals;
}

inline size_t packed_size(size_t count, unsigned bits)
{
    return (count + 7) / 8 * bits;
}

// The best kernels this CPU supports.
const Kernels &kernels();

// The portable kernels (also used by the tests to cross-check the SIMD ones).
const Kernels &scalar_kernels();

// The best kernels without AVX-512 (AVX2 and BMI2 where the CPU has them): what a CPU without
// AVX-512 runs, cross-checked by the tests on one that has it.
const Kernels &kernels_without_avx512();

// The portable split of 8- and 4-byte elements [from, to) (the SIMD kernels' head).
uint64_t split8_scalar_range(const uint8_t *elems, size_t count, unsigned pred, size_t stride,
                             uint8_t *planes, size_t from, size_t to);
uint64_t split4_scalar_range(const uint8_t *elems, size_t count, unsigned pred, size_t stride,
                             uint8_t *planes, size_t from, size_t to);

#if defined(__x86_64__)
// AVX-512 VBMI splits of 8- and 4-byte elements (fast_split_avx512.cpp).
uint64_t split8_avx512(const uint8_t *elems, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes);
uint64_t split4_avx512(const uint8_t *elems, size_t count, unsigned pred, size_t stride,
                       uint8_t *planes);
// AVX-512 VBMI2 sparse and run plane kernels (fast_sparse_avx512.cpp).
size_t encode_sparse_vbmi2(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size);
void decode_sparse_vbmi2(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                         size_t count, uint8_t *plane);
size_t encode_runs_vbmi2(const uint8_t *plane, size_t count, uint8_t *out, size_t out_size);
void decode_runs_vbmi2(const uint8_t *mask, const uint8_t *lits, const uint8_t *lits_end,
                       size_t count, uint8_t *plane);
#endif

} // namespace zip::fast_detail
