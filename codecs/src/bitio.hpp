// Small building blocks shared by the predictive floating-point codecs (fpc, dfcm, xorlz):
// unaligned little-endian loads/stores, leading-zero counts, the deterministic effective table
// size for small blocks, and the common block layout (header nibbles, payload, raw tail).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "zip/zip.h"

namespace zip::bitio
{

// Blocks are little-endian on the wire whatever the host is; memcpy makes any alignment safe and
// compiles to a plain load/store on x86-64.
template <class W> inline W byteswap_if_big(W w)
{
    if constexpr (std::endian::native == std::endian::big) {
        if constexpr (sizeof(W) == 8)
            return __builtin_bswap64(w);
        else if constexpr (sizeof(W) == 4)
            return __builtin_bswap32(w);
    }
    return w;
}

template <class W> inline W load_le(const uint8_t *p)
{
    W w;
    std::memcpy(&w, p, sizeof w);
    return byteswap_if_big(w);
}

template <class W> inline void store_le(uint8_t *p, W w)
{
    w = byteswap_if_big(w);
    std::memcpy(p, &w, sizeof w);
}

// Leading zero bits of x; the width of W when x == 0. Written so that no branch is needed for
// x == 0: std::countl_zero compiles to a test-and-jump around bsr when the baseline ISA has no
// lzcnt, and that branch is data-dependent in the codecs' hot loops.
template <class W> inline unsigned leading_zeros(W x)
{
    static_assert(std::is_unsigned_v<W> && (sizeof(W) == 4 || sizeof(W) == 8));
    if constexpr (sizeof(W) == 4) // a sentinel bit below x stops the count at 32
        return unsigned(__builtin_clzll(uint64_t(x) << 32 | 0x80000000u));
    else
        return unsigned(__builtin_clzll(x | 1)) + unsigned(x == 0);
}

inline unsigned ceil_log2(size_t x)
{
    return x <= 1 ? 0u : 64u - static_cast<unsigned>(std::countl_zero(uint64_t(x - 1)));
}

// Predictor tables are reset at the start of every block so that blocks decode independently.
// Resetting a 2^20-entry table for a 100-element block would dominate the cost, so both ends use
// min(configured, ceil_log2(elements) + 1) bits (at least 4): a table about twice the number of
// elements, which loses almost nothing to collisions. Both ends derive it from the block size
// alone, so it is not stored.
inline unsigned effective_table_bits(size_t elements, unsigned configured_bits)
{
    unsigned bits = ceil_log2(elements) + 1;
    if (bits < 4)
        bits = 4;
    return bits < configured_bits ? bits : configured_bits;
}

// Word size the predictive codecs work on: binary32 as 32-bit words, binary64 and opaque bytes
// as 64-bit words.
inline size_t word_bytes(zip_elem_type_t type)
{
    return type == ZIP_TYPE_F32 ? 4 : 8;
}

// Layout shared by the three codecs: [header nibbles: ceil(words/2) bytes][payload][raw tail].
// Everything is derived from the raw block size, which the frame records, so a block carries no
// length fields of its own.
struct BlockLayout {
    size_t words;        // whole words in the block
    size_t tail;         // bytes after the last whole word (only ZIP_TYPE_BYTES has any)
    size_t header_bytes; // one 4-bit header per word, two per byte, low nibble first
};

inline BlockLayout block_layout(size_t raw_bytes, size_t word_size)
{
    size_t words = raw_bytes / word_size;
    return {words, raw_bytes % word_size, (words + 1) / 2};
}

} // namespace zip::bitio
