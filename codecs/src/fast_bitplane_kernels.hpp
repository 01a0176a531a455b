// The byte loops of the bit-plane coding (fast_bitplanes.hpp): the 8 x 8 bit transpose between a
// byte plane and its 8 bit planes, both ways, and the counts that choose each bit plane's kind.
// SSE2 on x86-64 (baseline), and AVX2 or GFNI with AVX-512 where the CPU has them (chosen once
// at run time), 128, 256 or 64 plane bytes a step; the portable loops (8 plane bytes a step) do the
// tails and serve other CPUs. All produce the same bytes: the tests run them side by side.
//
// Bit plane j of a byte plane of `count` bytes has bitplane_bytes(count) = ceil(count / 8) bytes:
// bit i of its byte g is bit j of plane byte 8g + i; bits past `count` are zero.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zip::fast_detail
{

inline size_t bitplane_bytes(size_t count)
{
    return (count + 7) / 8;
}

// The 8 bit planes of `count` plane bytes, bit plane j at bits + j * bitplane_bytes(count).
void split_bits(const uint8_t *plane, size_t count, uint8_t *bits);

// The inverse, from bit plane j at bits[j] (any address: raw bit planes are read in place from
// the block), complemented where bit j of `invert` is set. Writes exactly `count` plane bytes.
void join_bits(const uint8_t *const *bits, size_t count, unsigned invert, uint8_t *plane);

// The implementations behind those two (the best one the CPU has), for the tests to compare.
enum class BitKernel { Portable, Sse2, Avx2, Gfni };
bool bit_kernel_available(BitKernel kernel);
void split_bits_with(BitKernel kernel, const uint8_t *plane, size_t count, uint8_t *bits);
void join_bits_with(BitKernel kernel, const uint8_t *const *bits, size_t count, unsigned invert,
                    uint8_t *plane);

// What the coder needs to know of one bit plane of n bytes: its set bits, and its bytes that are
// 0x00 (stored as is they are the sparse coding's zeros) or 0xff (complemented, they are).
struct BitplaneCounts {
    size_t ones, zeros, full;
};
BitplaneCounts bitplane_counts(const uint8_t *p, size_t n);
BitplaneCounts bitplane_counts_portable(const uint8_t *p, size_t n);
// Sse2 and Avx2: 16 bytes a step; Gfni: 64 (AVX-512 BITALG, where the CPU has it).
BitplaneCounts bitplane_counts_with(BitKernel kernel, const uint8_t *p, size_t n);

// Set bits in n bytes, 8 bytes a step: POPCNT where the CPU has it (chosen once), else SWAR
// (baseline x86-64 has no POPCNT instruction, and __builtin_popcount would call libgcc); the
// portable one for the tests to compare.
size_t count_set_bits(const uint8_t *p, size_t n);
size_t count_set_bits_portable(const uint8_t *p, size_t n);

} // namespace zip::fast_detail
