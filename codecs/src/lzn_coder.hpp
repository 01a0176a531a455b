// Leading-zero-nibble coding of prediction residuals, shared by the dfcm and xorlz codecs
// (cMPI, Ke et al. SC 2004 section 2.2; Kumar et al. 2008 section 4.1). The codecs differ only in
// the predictor; this file holds the block format's residual part and the hot loops.
//
// Residual coding (both codecs): x = v ^ prediction (W-bit words, W = 64 or 32).
//   64-bit words: nz = leading zero nibbles of x (0..16).
//     code = 15        if x == 0              (no EBits)
//     code = min(nz,14) otherwise            (EBits = the low 64 - 4*code bits of x)
//     So code 14 covers 14 and 15 leading zero nibbles (8 EBits). The paper's plain "4*LZC
//     zeros" cannot say "all 64 bits zero"; exact predictions are far more common than residuals
//     in 1..15, so code 15 is spent on them (4 bits instead of 8).
//   32-bit words: code = nz (0..8), EBits = the low 32 - 4*code bits; codes 9..15 are invalid.
// Block bytes: [headers: ceil(words/2) bytes][EBits stream][tail: n % (W/8) raw bytes]
//   headers: the 4-bit code of word 2k in the low nibble of byte k, word 2k+1 in the high
//     nibble; if words is odd the last high nibble is 0.
//   EBits stream: each word's EBits appended LSB-first (bit i of the stream is bit i%8 of byte
//     i/8; a word's lowest EBit comes first); zero padding up to the next byte.
//   The block length must equal headers + EBits bytes + tail exactly, and padding must be zero.
#pragma once

#include <algorithm>
#include <array>

#include "bitio.hpp"

namespace zip::lzn
{

using bitio::BlockLayout;
using bitio::load_le;
using bitio::store_le;

template <class W> struct LznWord;

template <> struct LznWord<uint64_t> {
    static constexpr unsigned kValidCodes = 16;
    static unsigned code(uint64_t x)
    {
        unsigned nibbles = bitio::leading_zeros(x) / 4;
        return std::min(nibbles, 14u) + unsigned(x == 0);
    }
    static constexpr uint8_t kBits[16] = {64, 60, 56, 52, 48, 44, 40, 36,
                                          32, 28, 24, 20, 16, 12, 8,  0};
    static constexpr uint64_t kMask[16] = {~0ull,       ~0ull >> 4,  ~0ull >> 8,  ~0ull >> 12,
                                           ~0ull >> 16, ~0ull >> 20, ~0ull >> 24, ~0ull >> 28,
                                           ~0ull >> 32, ~0ull >> 36, ~0ull >> 40, ~0ull >> 44,
                                           ~0ull >> 48, ~0ull >> 52, ~0ull >> 56, 0};
};

template <> struct LznWord<uint32_t> {
    static constexpr unsigned kValidCodes = 9;
    static unsigned code(uint32_t x) { return bitio::leading_zeros(x) / 4; }
    // Codes 9..15 are invalid; 0 keeps the reader in bounds until the block is rejected.
    static constexpr uint8_t kBits[16] = {32, 28, 24, 20, 16, 12, 8, 4, 0, 0, 0, 0, 0, 0, 0, 0};
    static constexpr uint32_t kMask[16] = {
        ~0u, ~0u >> 4, ~0u >> 8, ~0u >> 12, ~0u >> 16, ~0u >> 20, ~0u >> 24, ~0u >> 28,
        0,   0,        0,        0,         0,         0,         0,         0};
};

// Appends bit fields LSB-first. The fast path stores 8 bytes per field, so it needs 8 writable
// bytes at the current position; the careful path writes only the bytes the stream occupies.
// Plain 64-bit registers: fewer than 8 bits are pending between fields, so a field of up to 64
// bits spills at most 7 bits past the 64-bit word stored at the current byte.
template <class W> class BitWriter
{
  public:
    explicit BitWriter(uint8_t *p) : p_(p) {}

    uint8_t *pos() const { return p_; }

    void put_fast(W x, unsigned bits) // x < 2^bits
    {
        uint64_t word = pending_ | uint64_t(x) << fill_;
        store_le<uint64_t>(p_, word);
        advance(x, bits, word);
    }

    bool put_careful(W x, unsigned bits, uint8_t *end)
    {
        if (size_t(end - p_) < (fill_ + bits + 7) / 8)
            return false;
        uint64_t word = pending_ | uint64_t(x) << fill_;
        uint64_t le = bitio::byteswap_if_big(word);
        std::memcpy(p_, &le, std::min<size_t>(8, size_t(end - p_)));
        advance(x, bits, word);
        return true;
    }

    // Flushes the last partial byte; returns the end of the stream, or nullptr if it does not fit.
    uint8_t *finish(uint8_t *end)
    {
        if (fill_ == 0)
            return p_;
        if (p_ >= end)
            return nullptr;
        *p_ = uint8_t(pending_);
        return p_ + 1;
    }

  private:
    // Moves past the whole bytes just completed; keeps the rest (< 8 bits) pending.
    void advance(W x, unsigned bits, uint64_t word)
    {
        unsigned total = fill_ + bits;
        p_ += total >> 3;
        uint64_t rest = word >> (total & 56);
        if constexpr (sizeof(W) == 8) {
            // total >= 64: the pending bits are those of x that did not fit in `word`
            // ((x >> 1) >> (63 - fill) is x >> (64 - fill), and 0 for fill == 0).
            uint64_t spilled = (uint64_t(x) >> 1) >> (63 - fill_);
            rest = total >= 64 ? spilled : rest;
        }
        pending_ = rest;
        fill_ = total & 7;
    }

    uint8_t *p_;
    uint64_t pending_ = 0; // fill_ bits not yet complete in a byte
    unsigned fill_ = 0;
};

// Reads bit fields LSB-first from [begin, end).
template <class W> class BitReader
{
  public:
    BitReader(const uint8_t *begin, const uint8_t *end) : begin_(begin), end_(end) {}

    // Bytes from the current byte to the end.
    size_t bytes_left() const { return size_t(end_ - begin_) - (bit_ >> 3); }

    // The EBits of a word whose header code is `code` (< 16).
    W get_fast(unsigned code)
    {
        W x = extract(begin_ + (bit_ >> 3), bit_ & 7, code);
        bit_ += LznWord<W>::kBits[code];
        return x;
    }

    // Near the end: copies the remaining bytes into a zero-padded buffer first.
    bool get_careful(unsigned code, W &x)
    {
        if (LznWord<W>::kBits[code] > size_t(end_ - begin_) * 8 - bit_)
            return false;
        uint8_t buf[9] = {};
        std::memcpy(buf, begin_ + (bit_ >> 3), std::min<size_t>(sizeof buf, bytes_left()));
        x = extract(buf, bit_ & 7, code);
        bit_ += LznWord<W>::kBits[code];
        return true;
    }

    // True if the stream ended exactly at end_ with zero padding bits.
    bool at_clean_end() const
    {
        if ((bit_ + 7) / 8 != size_t(end_ - begin_))
            return false;
        return (bit_ & 7) == 0 || (end_[-1] >> (bit_ & 7)) == 0;
    }

  private:
    // The EBits field of `code` starting `shift` bits into p[0]; reads 8 bytes (9 for W = 64).
    static W extract(const uint8_t *p, unsigned shift, unsigned code)
    {
        uint64_t v = load_le<uint64_t>(p) >> shift;
        if constexpr (sizeof(W) == 8) // a 64-bit field at shift s ends in the 9th byte
            v |= (uint64_t(p[8]) << 1) << (63 - shift);
        return W(v) & LznWord<W>::kMask[code];
    }

    const uint8_t *begin_;
    const uint8_t *end_;
    size_t bit_ = 0;
};

// EBits of the two words one header byte describes (both codes), so that the decoder can check
// a stretch of words against the input length exactly before running it without checks.
template <class W> constexpr std::array<uint8_t, 256> pair_bits_table()
{
    std::array<uint8_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
        t[b] = uint8_t(LznWord<W>::kBits[b & 15] + LznWord<W>::kBits[b >> 4]);
    return t;
}
template <class W> inline constexpr std::array<uint8_t, 256> kPairBits = pair_bits_table<W>();

// Whether words [i, stop) can be decoded without bounds checks when `left` input bytes remain:
// true if even 64 EBits per word fit, or else if their exact EBits do (near the end of a block).
// Either way the last extract's 9-byte read must stay inside too.
template <class W>
inline bool fits_unchecked(const uint8_t *header, size_t i, size_t stop, size_t left)
{
    if ((stop - i) * sizeof(W) + 10 <= left)
        return true;
    size_t bits = 0; // exact, except that an odd last word counts its padding nibble as code 0
    for (size_t k = i / 2; k < (stop + 1) / 2; ++k)
        bits += kPairBits<W>[header[k]];
    return bits / 8 + 10 <= left;
}

// Words per bounds check in the decoder (even, so header bytes stay whole). Only the last
// stretch of a block, and words within a few bytes of its end, take the careful path.
constexpr size_t kDecodeStretch = 32;

// Predictor concept: W predict(); void update(W actual); called alternately, once per word.
template <class W, class Predictor>
size_t encode_block(Predictor &pred, const uint8_t *src, const BlockLayout &layout, uint8_t *dst,
                    size_t cap)
{
    constexpr size_t w = sizeof(W);
    if (layout.header_bytes + layout.tail > cap)
        return 0;
    uint8_t *header = dst;
    uint8_t *const end = dst + cap - layout.tail;
    BitWriter<W> out(dst + layout.header_bytes);
    auto residual = [&](size_t i, unsigned &code) {
        W v = load_le<W>(src + i * w);
        W x = v ^ pred.predict();
        pred.update(v);
        code = LznWord<W>::code(x);
        return x;
    };
    size_t i = 0;
    while (i < layout.words) {
        // Words that surely fit: each advances at most w bytes and stores 8 at the current byte.
        size_t room = size_t(end - out.pos());
        size_t stop = std::min(layout.words, i + (room >= 8 ? (room - 8) / w : 0));
        if (stop < layout.words)
            stop &= ~size_t(1); // whole header bytes
        if (stop <= i)
            break;
        for (; i + 1 < stop; i += 2) {
            unsigned lo, hi;
            W x = residual(i, lo);
            out.put_fast(x, LznWord<W>::kBits[lo]);
            x = residual(i + 1, hi);
            out.put_fast(x, LznWord<W>::kBits[hi]);
            header[i / 2] = uint8_t(lo | hi << 4);
        }
        if (i < stop) { // the odd last word of the block
            unsigned lo;
            W x = residual(i, lo);
            out.put_fast(x, LznWord<W>::kBits[lo]);
            header[i / 2] = uint8_t(lo);
            ++i;
        }
    }
    for (; i < layout.words; ++i) { // near the end of dst
        unsigned code;
        W x = residual(i, code);
        if (!out.put_careful(x, LznWord<W>::kBits[code], end))
            return 0;
        header[i / 2] = uint8_t((i & 1) ? header[i / 2] | code << 4 : code);
    }
    uint8_t *p = out.finish(end);
    if (!p)
        return 0;
    if (layout.tail) // memcpy wants valid pointers even for 0 bytes
        std::memcpy(p, src + layout.words * w, layout.tail);
    return size_t(p - dst) + layout.tail;
}

template <class W, class Predictor>
zip_status_t decode_block(Predictor &pred, const uint8_t *src, size_t len,
                          const BlockLayout &layout, uint8_t *dst)
{
    constexpr size_t w = sizeof(W);
    if (len < layout.header_bytes + layout.tail)
        return ZIP_E_CORRUPT;
    const uint8_t *header = src;
    const uint8_t *const end = src + len - layout.tail;
    BitReader<W> in(src + layout.header_bytes, end);
    auto emit = [&](size_t i, W x) {
        W v = x ^ pred.predict();
        pred.update(v);
        store_le<W>(dst + i * w, v);
    };
    unsigned invalid_codes = 0; // only the 32-bit variant has unused codes; checked at the end
    size_t i = 0;
    while (i < layout.words) {
        size_t stop = std::min(layout.words, i + kDecodeStretch);
        if (fits_unchecked<W>(header, i, stop, in.bytes_left())) {
            for (; i + 1 < stop; i += 2) {
                unsigned lo = header[i / 2] & 15, hi = header[i / 2] >> 4;
                invalid_codes |= (lo >= LznWord<W>::kValidCodes) | (hi >= LznWord<W>::kValidCodes);
                emit(i, in.get_fast(lo));
                emit(i + 1, in.get_fast(hi));
            }
        }
        for (; i < stop; ++i) { // careful path, and the odd last word
            unsigned code = (header[i / 2] >> (4 * (i & 1))) & 15;
            W x;
            if (code >= LznWord<W>::kValidCodes || !in.get_careful(code, x))
                return ZIP_E_CORRUPT;
            emit(i, x);
        }
    }
    if (invalid_codes || !in.at_clean_end())
        return ZIP_E_CORRUPT;
    if ((layout.words & 1) && (header[layout.header_bytes - 1] >> 4) != 0)
        return ZIP_E_CORRUPT;
    if (layout.tail)
        std::memcpy(dst + layout.words * w, end, layout.tail);
    return ZIP_OK;
}

} // namespace zip::lzn
