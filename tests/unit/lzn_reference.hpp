// Pieces of the plain reference encoders that the dfcm and xorlz tests compare the codecs
// against: the leading-zero-nibble code and block layout documented in codecs/src/lzn_coder.hpp,
// written again from that description rather than shared with the codec, so that a slip in
// lzn_coder.hpp cannot hide in both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "block_codec_checks.hpp"

namespace codectest
{

// Packs 4-bit codes (two per byte, low nibble first) followed by an LSB-first bit stream.
inline Bytes pack_block(const std::vector<unsigned> &codes, const std::vector<bool> &bits)
{
    Bytes out((codes.size() + 1) / 2, 0);
    for (size_t i = 0; i < codes.size(); ++i)
        out[i / 2] |= uint8_t(codes[i] << (4 * (i & 1)));
    size_t base = out.size();
    out.resize(base + (bits.size() + 7) / 8, 0);
    for (size_t i = 0; i < bits.size(); ++i)
        out[base + i / 8] |= uint8_t(bits[i] << (i % 8));
    return out;
}

// Leading-zero-nibble code of a 64-bit residual and its EBits, as documented in lzn_coder.hpp.
inline void append_lzn(uint64_t r, std::vector<unsigned> &codes, std::vector<bool> &bits)
{
    unsigned nibbles = r == 0 ? 16 : unsigned(__builtin_clzll(r)) / 4;
    unsigned code = r == 0 ? 15 : std::min(nibbles, 14u);
    codes.push_back(code);
    unsigned n = code == 15 ? 0 : 64 - 4 * code;
    for (unsigned b = 0; b < n; ++b)
        bits.push_back((r >> b) & 1);
}

} // namespace codectest
