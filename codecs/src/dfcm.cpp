/*
 * dfcm block codec (CodecId::Dfcm): the compressor of cMPI, Ke, Burtscher, Speight, "Runtime
 * Compression of MPI Messages to Improve the Performance and Scalability of Parallel
 * Applications", SC 2004, sections 2.2-2.3: a third-order DFCM predictor with two stored deltas
 * and drift correction, XOR with the prediction, 4-bit leading-zero-nibble count, raw EBits.
 *
 * Frame parameter: bits 0-7 = N, log2 of the configured table lines (4..20); bits 8-31 zero;
 * 0 means the default N = 15 (the paper's 2^15 lines). Spec: "dfcm" or "dfcm:bits=N".
 *
 * Words: ZIP_TYPE_F64, I64 and BYTES blocks are 64-bit little-endian words, F32 and I32 blocks
 * 32-bit words; B = word width in bits. Differences are of the bit patterns as unsigned integers,
 * mod 2^B, which keeps the scheme lossless for every value (NaN payloads, infinities, -0.0, ...).
 * top14(d) = d >> (B - 14): the 14 most significant bits (for binary64 the sign, the 11 exponent
 * bits and 2 mantissa bits, as in the paper; for binary32 sign, exponent, 5 mantissa bits).
 *
 * Predictor (reset at the start of every block, both ends):
 *   T = effective table bits = min(N, max(4, ceil_log2(words) + 1))   (see bitio.hpp)
 *   table[2^T] of lines {recent, older} (full B-bit deltas), all zero; last = 0;
 *   D0 = D1 = D2 = 0 (top14 of the third, second most recent and most recent difference).
 *   For each word v:
 *     h = (D2 ^ (D1 << 5) ^ (D0 << 10)) & (2^T - 1)       (the paper's lsb_0..14 when T = 15)
 *     {recent, older} = table[h]
 *     dp = recent                        if top14(recent) != top14(older)
 *        = recent + (recent - older)     otherwise (drift correction)
 *     prediction = last + dp
 *     d = v - last;  table[h] = {d, recent};  D0 = D1;  D1 = D2;  D2 = top14(d);  last = v
 *
 * Residual x = v ^ prediction, coded as in lzn_coder.hpp: per word a 4-bit code, then its
 * EBits, LSB-first.
 *   64-bit: code 0..14 = x has at least 4*code leading zero bits and its low 64 - 4*code bits
 *           are the EBits (code 14 also covers 15 zero nibbles); code 15 = x is zero, no EBits.
 *   32-bit: code 0..8 = 4*code leading zero bits, 32 - 4*code EBits; codes 9..15 are invalid.
 *
 * Block bytes: [headers: ceil(words/2) bytes, two codes per byte, low nibble first, an unused
 * last high nibble is 0][EBits stream, zero-padded to a byte][tail: n % (B/8) raw bytes].
 * The block length must match exactly; everything else is ZIP_E_CORRUPT.
 */
#include "dfcm.hpp"

#include <string>

#include "codec_registry.hpp"
#include "lzn_coder.hpp"

namespace zip
{
namespace
{

constexpr unsigned kHashBits = 14; // the paper's 14 most significant bits of each difference

template <class W> class DfcmPredictor
{
  public:
    DfcmPredictor(uint8_t *table, unsigned bits)
        : table_(table), mask_((size_t(1) << bits) - 1),
          newest_mask_((mask_ * kLineBytes) & (kTop14Mask * kLineBytes))
    {
        std::memset(table_, 0, (mask_ + 1) * kLineBytes);
    }

    W predict()
    {
        std::memcpy(&recent_, table_ + line_offset_, sizeof(W));
        W older;
        std::memcpy(&older, table_ + line_offset_ + sizeof(W), sizeof(W));
        W drift = top14(W(recent_ ^ older)) == 0 ? W(recent_ - older) : W(0);
        return W(last_ + recent_ + drift);
    }

    void update(W v)
    {
        W d = W(v - last_);
        std::memcpy(table_ + line_offset_, &d, sizeof(W));
        std::memcpy(table_ + line_offset_ + sizeof(W), &recent_, sizeof(W));
        d0_ = d1_;
        d1_ = d2_;
        d2_ = size_t(top14(d));
        last_ = v;
        // Byte offset of the next line, hash * kLineBytes. The decoder's loop-carried chain
        // runs through here, so the older deltas' part is combined first and the newest delta
        // goes straight from d to a scaled, masked offset: top14(d) * kLineBytes & mask*kLineBytes
        // is one shift and one AND.
        size_t older_part = (((d1_ << 5) ^ (d0_ << 10)) & mask_) * kLineBytes;
        size_t newest_part = size_t(d >> (sizeof(W) * 8 - kHashBits - kLineShift)) & newest_mask_;
        line_offset_ = newest_part ^ older_part;
    }

  private:
    static constexpr size_t kLineBytes = 2 * sizeof(W);
    static constexpr unsigned kLineShift = sizeof(W) == 8 ? 4 : 3; // log2(kLineBytes)
    static constexpr size_t kTop14Mask = (size_t(1) << kHashBits) - 1;
    static W top14(W d) { return W(d >> (sizeof(W) * 8 - kHashBits)); }

    uint8_t *table_;
    size_t mask_;
    size_t newest_mask_;     // (mask_ & kTop14Mask) * kLineBytes
    size_t line_offset_ = 0; // hash(D0, D1, D2) * kLineBytes: the line of the next word
    W recent_ = 0;           // the current line's most recent delta, from predict() to update()
    W last_ = 0;
    size_t d0_ = 0, d1_ = 0, d2_ = 0;
};

size_t table_bytes(unsigned bits)
{
    return (size_t(1) << bits) * 2 * sizeof(uint64_t);
}

} // namespace

DfcmCodec::DfcmCodec(unsigned table_bits)
    : table_bits_(table_bits),
      table_(std::make_unique_for_overwrite<uint8_t[]>(table_bytes(table_bits)))
{
}

size_t DfcmCodec::memory_bytes() const
{
    return table_bytes(table_bits_);
}

size_t DfcmCodec::compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                           size_t cap)
{
    if (zip_elem_size(type) == 4) {
        bitio::BlockLayout layout = bitio::block_layout(n, 4);
        DfcmPredictor<uint32_t> pred(table_.get(),
                                     bitio::effective_table_bits(layout.words, table_bits_));
        return lzn::encode_block<uint32_t>(pred, src, layout, dst, cap);
    }
    bitio::BlockLayout layout = bitio::block_layout(n, 8);
    DfcmPredictor<uint64_t> pred(table_.get(),
                                 bitio::effective_table_bits(layout.words, table_bits_));
    return lzn::encode_block<uint64_t>(pred, src, layout, dst, cap);
}

zip_status_t DfcmCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                   uint8_t *dst, size_t raw_n)
{
    if (zip_elem_size(type) == 4) {
        bitio::BlockLayout layout = bitio::block_layout(raw_n, 4);
        DfcmPredictor<uint32_t> pred(table_.get(),
                                     bitio::effective_table_bits(layout.words, table_bits_));
        return lzn::decode_block<uint32_t>(pred, src, len, layout, dst);
    }
    bitio::BlockLayout layout = bitio::block_layout(raw_n, 8);
    DfcmPredictor<uint64_t> pred(table_.get(),
                                 bitio::effective_table_bits(layout.words, table_bits_));
    return lzn::decode_block<uint64_t>(pred, src, len, layout, dst);
}

std::unique_ptr<BlockCodec> make_dfcm(std::string_view options)
{
    unsigned bits = DfcmCodec::kDefaultBits;
    for_each_option(options, [&](std::string_view key, std::string_view value) {
        if (key != "bits")
            throw SpecError{"dfcm: unknown option '" + std::string(key) + "' (known: bits)"};
        bits = parse_uint_option(key, value, DfcmCodec::kMinBits, DfcmCodec::kMaxBits);
    });
    return std::make_unique<DfcmCodec>(bits);
}

std::unique_ptr<BlockCodec> make_dfcm(uint32_t param)
{
    if (param == 0)
        return std::make_unique<DfcmCodec>(DfcmCodec::kDefaultBits);
    if (param < DfcmCodec::kMinBits || param > DfcmCodec::kMaxBits) // also rejects bits 8-31
        return nullptr;
    return std::make_unique<DfcmCodec>(param);
}

} // namespace zip
