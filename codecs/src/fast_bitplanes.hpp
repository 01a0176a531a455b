// Bit-plane coding of one byte plane of the `fast` codec (plane coding 10, frame format 3).
//
// A byte plane that no byte-level coding shrinks can still hold single bits that are (nearly)
// constant: random doubles in [0, 1) keep the low exponent bits at one value most of the time
// while the mantissa bits sharing their byte are noise (miniVite's coordinates: one bit at
// 99% ones, another always one; docs/fast-codec.md). Such a plane is split into its 8 bit
// planes; each is stored complemented or not (so that it is mostly zeros) and then as nothing
// (all zero), raw, or sparse (the nonzero-byte mask and literals of the sparse plane coding).
//
// Bit plane j of a byte plane of `count` bytes has bitplane_bytes(count) = ceil(count / 8)
// bytes: bit i of its byte g is bit j of plane byte 8g + i; bits past `count` are zero
// (fast_bitplane_kernels.hpp splits and joins them).
//
// Coded form (after the plane's coding byte):
//   invert   1 byte: bit j set when bit plane j is stored complemented (padding bits still 0)
//   kinds    2 bytes, little-endian: bits 2j..2j+1 the kind of bit plane j: 0 all zero
//            (nothing stored), 1 raw (ceil(count / 8) bytes), 2 sparse (ceil(ceil(count / 8)
//            / 8) mask bytes, bit i of mask byte g set when stored byte 8g + i is not zero,
//            then those bytes in order); 3 is corrupt.
//   planes   the stored bit planes, j = 7 down to 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fast_bitplane_kernels.hpp" // bitplane_bytes, the transpose, count_set_bits

namespace zip::fast_detail
{

// Whether a sample of the plane shows a bit that is (nearly) always 0 or always 1: cheap
// (a few hundred instructions), so it runs on every plane that would otherwise be stored raw.
bool has_skewed_bit(const uint8_t *plane, size_t count);

// Codes the plane (coded form above) into dst if that takes at most `limit` bytes: returns the
// size, or 0. `scratch` holds 8 * bitplane_bytes(count) bytes.
size_t encode_bitplanes(const uint8_t *plane, size_t count, uint8_t *scratch, uint8_t *dst,
                        size_t limit);
// Decodes a coded form at src (at most len bytes) into `count` plane bytes: returns the bytes
// it read, or 0 if they are corrupt (then `plane` may hold anything). `scratch` as above.
size_t decode_bitplanes(const uint8_t *src, size_t len, size_t count, uint8_t *scratch,
                        uint8_t *plane);

} // namespace zip::fast_detail
