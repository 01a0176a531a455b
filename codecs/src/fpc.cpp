/*
 * FPC block codec (CodecId::Fpc), after Burtscher & Ratanaworabhan, "FPC: A High-Speed Compressor
 * for Double-Precision Floating-Point Data", IEEE Trans. Computers 58(1), 2009. Written from the
 * paper's description.
 *
 * Frame parameter: bits 0-7 = N, the log2 of the configured table size (4..24); bits 8-31 must be
 * zero; a parameter of 0 means the default N (kDefaultBits). Spec: "fpc" or "fpc:bits=N".
 *
 * Words. ZIP_TYPE_F64, I64 and BYTES blocks are coded as 64-bit little-endian words, F32 and
 * I32 blocks as 32-bit words. W = word width in bytes (8 or 4). A block of n raw bytes has
 * words = n / W whole words and tail = n % W leftover bytes (only BYTES blocks have a tail).
 *
 * Predictors (state reset at the start of every block, both ends):
 *   T = effective table bits = min(N, max(4, ceil_log2(words) + 1))   (see bitio.hpp)
 *   fcm[2^T], dfcm[2^T]: zeroed tables of W-wide entries; fcm_hash = dfcm_hash = 0; last = 0.
 *   For each word v in order:
 *     fcm_pred  = fcm[fcm_hash]
 *     dfcm_pred = dfcm[dfcm_hash] + last                                  (mod 2^(8W))
 *     fcm[fcm_hash] = v
 *     fcm_hash  = ((fcm_hash << 6) ^ (v >> A)) & (2^T - 1)
 *     dfcm[dfcm_hash] = v - last                                          (mod 2^(8W))
 *     dfcm_hash = ((dfcm_hash << 2) ^ ((v - last) >> B)) & (2^T - 1)
 *     last = v
 *   64-bit words: A = 48, B = 40 (the paper's: top 16 bits of the value, top 24 of the stride).
 *   32-bit words: A = 16, B = 12 (top 16 bits of the value, top 20 of the stride: the best of
 *   A in 14..21, B in 8..17 on binary32 versions of the gauss, sincos, heat3d sets, by 0-3%).
 *
 * Residual: x = v ^ prediction, with the prediction whose XOR is numerically smaller (so it has
 * at least as many leading zero bytes); ties go to FCM. The decoder does not recompute this
 * choice, it reads it.
 *
 * Block bytes:
 *   [headers: ceil(words/2) bytes][residuals][tail: n % W raw bytes]
 *   headers: one 4-bit header per word, word 2k in the low nibble of byte k, word 2k+1 in the
 *     high nibble; if words is odd the last high nibble is 0.
 *     header bit 3 = predictor (0 FCM, 1 DFCM); bits 0-2 = code c for z leading zero bytes of x:
 *       64-bit: z 0,1,2,3 -> c = z; z = 4 -> c = 3 (one zero byte is sent, as in FPC: 4 is rare);
 *               z 5..8 -> c = z - 1.   Decoding: c 0..3 -> z = c, c 4..7 -> z = c + 1.
 *       32-bit: c = z (0..4); codes 5..7 are invalid.
 *   residuals: for each word, the low W - z' bytes of x, little-endian, concatenated, where z'
 *     is the zero-byte count its code decodes to (z' = 3 when z = 4).
 *   The block length must equal headers + residuals + tail exactly; anything else is corrupt.
 *
 * Default table size: N = 12 (2 x 32 KiB of tables, which stay in L1/L2). Measured with a
 * throwaway single-core benchmark on this project's 2-core Xeon (Sapphire Rapids, 2.6 GHz,
 * g++ 12 -O3), 1 Mi doubles, best time per block over 31 runs (the machine is shared); GB/s of
 * raw data, compress / decompress, ratio:
 *   N    64 KiB blocks: smooth          gauss2d           1 MiB blocks: gauss2d
 *   8    2.0/1.96 1.437    2.5/1.85 1.274              2.2/1.85 1.275
 *   10   2.5/1.94 1.435    2.3/1.79 1.295              2.1/1.86 1.306
 *   12   2.6/1.91 1.434    2.7/1.79 1.319              2.7/1.89 1.346
 *   14   2.3/1.71 1.432    2.2/1.41 1.333              2.7/1.55 1.374
 *   16   2.5/1.79 1.432    2.4/1.47 1.333              2.3/1.27 1.384
 *   20   2.4/1.73 1.432    2.3/1.41 1.333              1.5/0.97 1.385
 * (smooth = 1000 sin(0.001 i) + 0.5 cos(0.00037 i); gauss2d = exp(-x^2) exp(-y^2) on a 1024^2
 * grid of [-2,2]^2 in natural order, as in the Bcast/FPC paper.) Beyond 12 bits the tables
 * leave L1 and decompression slows by 20-50% for 1-3% more ratio; below 10 bits the ratio drops
 * on 2-D fields and compression slows (repeated hits on the same few entries serialise the
 * stores and loads). At 64 KiB blocks the effective size caps at 14 bits anyway.
 */
#include "fpc.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "bitio.hpp"
#include "codec_registry.hpp"

namespace zip
{
namespace
{

using bitio::BlockLayout;
using bitio::load_le;
using bitio::store_le;

template <class W> struct FpcWord;

template <> struct FpcWord<uint64_t> {
    static constexpr unsigned kFcmShift = 48;  // A above
    static constexpr unsigned kDfcmShift = 40; // B above
    static constexpr unsigned kValidCodes = 8;
    static constexpr uint8_t kCodeOfZeroBytes[9] = {0, 1, 2, 3, 3, 4, 5, 6, 7};
    static constexpr uint8_t kResidualBytes[8] = {8, 7, 6, 5, 3, 2, 1, 0};
    static constexpr uint64_t kResidualMask[8] = {~0ull,
                                                  0x00ffffffffffffffull,
                                                  0xffffffffffffull,
                                                  0xffffffffffull,
                                                  0xffffffull,
                                                  0xffffull,
                                                  0xffull,
                                                  0};
};

template <> struct FpcWord<uint32_t> {
    static constexpr unsigned kFcmShift = 16;
    static constexpr unsigned kDfcmShift = 12;
    static constexpr unsigned kValidCodes = 5;
    static constexpr uint8_t kCodeOfZeroBytes[9] = {0, 1, 2, 3, 4, 4, 4, 4, 4}; // z <= 4 only
    // Invalid codes 5..7 keep a full-width residual so that reads stay bounded until the
    // decoder reports the block corrupt.
    static constexpr uint8_t kResidualBytes[8] = {4, 3, 2, 1, 0, 4, 4, 4};
    static constexpr uint32_t kResidualMask[8] = {~0u, 0xffffffu, 0xffffu, 0xffu, 0, ~0u, ~0u, ~0u};
};

constexpr unsigned kFcmHashShift = 6;
constexpr unsigned kDfcmHashShift = 2;

// Words per bounds check in the decoder (even, so header bytes stay whole). Only the last
// stretch of a block, and words within a few bytes of its end, take the careful path.
constexpr size_t kDecodeStretch = 32;
// Longest stretch the encoder runs between looks at the room left in dst.
constexpr size_t kEncodeStretch = 256;

template <class W> class FpcPredictor
{
  public:
    FpcPredictor(uint8_t *fcm, uint8_t *dfcm, unsigned bits)
        : fcm_(fcm), dfcm_(dfcm), mask_((size_t(1) << bits) - 1)
    {
        std::memset(fcm_, 0, (mask_ + 1) * sizeof(W));
        std::memset(dfcm_, 0, (mask_ + 1) * sizeof(W));
    }

    W fcm_prediction() const { return entry(fcm_, fcm_hash_); }
    W dfcm_prediction() const { return W(entry(dfcm_, dfcm_hash_) + last_); }

    void update(W v)
    {
        set_entry(fcm_, fcm_hash_, v);
        fcm_hash_ = ((fcm_hash_ << kFcmHashShift) ^ size_t(v >> FpcWord<W>::kFcmShift)) & mask_;
        W stride = W(v - last_);
        set_entry(dfcm_, dfcm_hash_, stride);
        dfcm_hash_ =
            ((dfcm_hash_ << kDfcmHashShift) ^ size_t(stride >> FpcWord<W>::kDfcmShift)) & mask_;
        last_ = v;
    }

  private:
    static W entry(const uint8_t *table, size_t i)
    {
        W w;
        std::memcpy(&w, table + i * sizeof(W), sizeof(W));
        return w;
    }
    static void set_entry(uint8_t *table, size_t i, W w)
    {
        std::memcpy(table + i * sizeof(W), &w, sizeof(W));
    }

    uint8_t *fcm_;
    uint8_t *dfcm_;
    size_t mask_;
    size_t fcm_hash_ = 0;
    size_t dfcm_hash_ = 0;
    W last_ = 0;
};

// Predicts v, updates the predictor, and returns the 4-bit header; x = the residual.
template <class W> inline unsigned fpc_residual(FpcPredictor<W> &pred, W v, W &x)
{
    W x_fcm = v ^ pred.fcm_prediction();
    W x_dfcm = v ^ pred.dfcm_prediction();
    pred.update(v);
    bool use_dfcm = x_dfcm < x_fcm;
    x = use_dfcm ? x_dfcm : x_fcm;
    unsigned code = FpcWord<W>::kCodeOfZeroBytes[bitio::leading_zeros(x) / 8];
    return code | unsigned(use_dfcm) << 3;
}

// Caller guarantees sizeof(W) writable bytes at p.
template <class W> inline unsigned fpc_encode_fast(FpcPredictor<W> &pred, W v, uint8_t *&p)
{
    W x;
    unsigned header = fpc_residual(pred, v, x);
    store_le<W>(p, x);
    p += FpcWord<W>::kResidualBytes[header & 7];
    return header;
}

// Near the end of dst: writes only the residual bytes; false if they do not fit.
template <class W>
inline bool fpc_encode_careful(FpcPredictor<W> &pred, W v, uint8_t *&p, uint8_t *end,
                               unsigned &header)
{
    W x;
    header = fpc_residual(pred, v, x);
    size_t r = FpcWord<W>::kResidualBytes[header & 7];
    if (size_t(end - p) < r)
        return false;
    x = bitio::byteswap_if_big(x);
    std::memcpy(p, &x, r);
    p += r;
    return true;
}

template <class W>
size_t fpc_encode(FpcPredictor<W> &pred, const uint8_t *src, const BlockLayout &layout,
                  uint8_t *dst, size_t cap)
{
    constexpr size_t w = sizeof(W);
    if (layout.header_bytes + layout.tail > cap)
        return 0;
    uint8_t *header = dst;
    uint8_t *p = dst + layout.header_bytes;
    uint8_t *const end = dst + cap - layout.tail;
    size_t i = 0;
    while (i < layout.words) {
        // Words that surely fit: each residual store writes w bytes and advances at most w.
        size_t stop = std::min(layout.words, i + std::min(kEncodeStretch, size_t(end - p) / w));
        if (stop < layout.words)
            stop &= ~size_t(1); // whole header bytes
        if (stop <= i)
            break;
        for (; i + 1 < stop; i += 2) {
            unsigned lo = fpc_encode_fast<W>(pred, load_le<W>(src + i * w), p);
            unsigned hi = fpc_encode_fast<W>(pred, load_le<W>(src + (i + 1) * w), p);
            header[i / 2] = uint8_t(lo | hi << 4);
        }
        if (i < stop) { // the odd last word of the block
            header[i / 2] = uint8_t(fpc_encode_fast<W>(pred, load_le<W>(src + i * w), p));
            ++i;
        }
    }
    for (; i < layout.words; ++i) { // near the end of dst
        unsigned h;
        if (!fpc_encode_careful<W>(pred, load_le<W>(src + i * w), p, end, h))
            return 0;
        header[i / 2] = uint8_t((i & 1) ? header[i / 2] | h << 4 : h);
    }
    if (layout.tail) // memcpy wants valid pointers even for 0 bytes
        std::memcpy(p, src + layout.words * w, layout.tail);
    return size_t(p - dst) + layout.tail;
}

template <class W> inline W fpc_value(FpcPredictor<W> &pred, unsigned header, W x)
{
    W prediction = (header & 8) ? pred.dfcm_prediction() : pred.fcm_prediction();
    W v = x ^ prediction;
    pred.update(v);
    return v;
}

// Caller guarantees sizeof(W) readable bytes at p.
template <class W>
inline W fpc_decode_fast(FpcPredictor<W> &pred, unsigned header, const uint8_t *&p)
{
    unsigned code = header & 7;
    W x = load_le<W>(p) & FpcWord<W>::kResidualMask[code];
    p += FpcWord<W>::kResidualBytes[code];
    return fpc_value(pred, header, x);
}

// Residual bytes of the two words one header byte describes, so that the decoder can check a
// stretch of words against the input length exactly before running it without checks.
template <class W> constexpr std::array<uint8_t, 256> pair_residual_bytes_table()
{
    std::array<uint8_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
        t[b] = uint8_t(FpcWord<W>::kResidualBytes[b & 7] + FpcWord<W>::kResidualBytes[b >> 4 & 7]);
    return t;
}
template <class W>
inline constexpr std::array<uint8_t, 256> kPairResidualBytes = pair_residual_bytes_table<W>();

// Whether words [i, stop) can be decoded without bounds checks when `left` input bytes remain:
// true if full-width residuals fit, or else if their exact residuals do (near the end of a
// block). Either way the last word's sizeof(W)-byte load must stay inside too.
template <class W>
inline bool fits_unchecked(const uint8_t *header, size_t i, size_t stop, size_t left)
{
    if ((stop - i) * sizeof(W) <= left)
        return true;
    size_t bytes = 0; // exact, except that an odd last word counts its padding nibble (code 0)
    for (size_t k = i / 2; k < (stop + 1) / 2; ++k)
        bytes += kPairResidualBytes<W>[header[k]];
    return bytes + sizeof(W) <= left;
}

template <class W>
zip_status_t fpc_decode(FpcPredictor<W> &pred, const uint8_t *src, size_t len,
                        const BlockLayout &layout, uint8_t *dst)
{
    constexpr size_t w = sizeof(W);
    if (len < layout.header_bytes + layout.tail)
        return ZIP_E_CORRUPT;
    const uint8_t *header = src;
    const uint8_t *p = src + layout.header_bytes;
    const uint8_t *const end = src + len - layout.tail;
    unsigned invalid_codes = 0; // the 32-bit variant has unused codes; checked once at the end
    size_t i = 0;
    while (i < layout.words) {
        size_t stop = std::min(layout.words, i + kDecodeStretch);
        if (fits_unchecked<W>(header, i, stop, size_t(end - p))) {
            for (; i + 1 < stop; i += 2) {
                unsigned h = header[i / 2];
                invalid_codes |= ((h & 7) >= FpcWord<W>::kValidCodes) |
                                 ((h >> 4 & 7) >= FpcWord<W>::kValidCodes);
                store_le<W>(dst + i * w, fpc_decode_fast<W>(pred, h & 15, p));
                store_le<W>(dst + (i + 1) * w, fpc_decode_fast<W>(pred, h >> 4, p));
            }
            if (i < stop) {
                unsigned h = header[i / 2];
                invalid_codes |= (h & 7) >= FpcWord<W>::kValidCodes;
                store_le<W>(dst + i * w, fpc_decode_fast<W>(pred, h & 15, p));
                ++i;
            }
        } else {
            for (; i < stop; ++i) {
                unsigned h = (header[i / 2] >> (4 * (i & 1))) & 15;
                unsigned code = h & 7;
                if (code >= FpcWord<W>::kValidCodes)
                    return ZIP_E_CORRUPT;
                size_t r = FpcWord<W>::kResidualBytes[code];
                if (size_t(end - p) < r)
                    return ZIP_E_CORRUPT;
                W x = 0;
                std::memcpy(&x, p, r);
                p += r;
                store_le<W>(dst + i * w, fpc_value(pred, h, bitio::byteswap_if_big(x)));
            }
        }
    }
    if (invalid_codes || p != end)
        return ZIP_E_CORRUPT;
    if ((layout.words & 1) && (header[layout.header_bytes - 1] >> 4) != 0)
        return ZIP_E_CORRUPT;
    if (layout.tail)
        std::memcpy(dst + layout.words * w, end, layout.tail);
    return ZIP_OK;
}

size_t table_bytes(unsigned bits)
{
    return (size_t(1) << bits) * sizeof(uint64_t);
}

} // namespace

FpcCodec::FpcCodec(unsigned table_bits)
    : table_bits_(table_bits),
      fcm_(std::make_unique_for_overwrite<uint8_t[]>(table_bytes(table_bits))),
      dfcm_(std::make_unique_for_overwrite<uint8_t[]>(table_bytes(table_bits)))
{
}

size_t FpcCodec::memory_bytes() const
{
    return 2 * table_bytes(table_bits_);
}

size_t FpcCodec::compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                          size_t cap)
{
    if (zip_elem_size(type) == 4) {
        BlockLayout layout = bitio::block_layout(n, 4);
        FpcPredictor<uint32_t> pred(fcm_.get(), dfcm_.get(),
                                    bitio::effective_table_bits(layout.words, table_bits_));
        return fpc_encode(pred, src, layout, dst, cap);
    }
    BlockLayout layout = bitio::block_layout(n, 8);
    FpcPredictor<uint64_t> pred(fcm_.get(), dfcm_.get(),
                                bitio::effective_table_bits(layout.words, table_bits_));
    return fpc_encode(pred, src, layout, dst, cap);
}

zip_status_t FpcCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                  uint8_t *dst, size_t raw_n)
{
    if (zip_elem_size(type) == 4) {
        BlockLayout layout = bitio::block_layout(raw_n, 4);
        FpcPredictor<uint32_t> pred(fcm_.get(), dfcm_.get(),
                                    bitio::effective_table_bits(layout.words, table_bits_));
        return fpc_decode(pred, src, len, layout, dst);
    }
    BlockLayout layout = bitio::block_layout(raw_n, 8);
    FpcPredictor<uint64_t> pred(fcm_.get(), dfcm_.get(),
                                bitio::effective_table_bits(layout.words, table_bits_));
    return fpc_decode(pred, src, len, layout, dst);
}

std::unique_ptr<BlockCodec> make_fpc(std::string_view options)
{
    unsigned bits = FpcCodec::kDefaultBits;
    for_each_option(options, [&](std::string_view key, std::string_view value) {
        if (key != "bits")
            throw SpecError{"fpc: unknown option '" + std::string(key) + "' (known: bits)"};
        bits = parse_uint_option(key, value, FpcCodec::kMinBits, FpcCodec::kMaxBits);
    });
    return std::make_unique<FpcCodec>(bits);
}

std::unique_ptr<BlockCodec> make_fpc(uint32_t param)
{
    if (param == 0)
        return std::make_unique<FpcCodec>(FpcCodec::kDefaultBits);
    if (param < FpcCodec::kMinBits || param > FpcCodec::kMaxBits) // also rejects bits 8-31
        return nullptr;
    return std::make_unique<FpcCodec>(param);
}

} // namespace zip
