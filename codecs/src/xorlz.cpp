/*
 * xorlz block codec (CodecId::XorLz): the intra-step lossless scheme of Kumar et al., "Impact of
 * message compression on the scalability of an atmospheric modeling application on clusters",
 * Parallel Computing 34, 2008, section 4.1.
 *
 * Frame parameter: always 0 (no options). Spec: "xorlz".
 *
 * Words: ZIP_TYPE_F64, I64 and BYTES blocks are 64-bit little-endian words, F32 and I32 blocks
 * 32-bit words (B bits). Prediction = the previous word of the block (0 for the first word);
 * residual x = v ^ prediction.
 *
 * Residual coding, as in lzn_coder.hpp: per word a 4-bit code, then its EBits, LSB-first.
 *   64-bit: code 0..14 = x has at least 4*code leading zero bits and its low 64 - 4*code bits
 *           are the EBits (code 14 also covers 15 zero nibbles); code 15 = x is zero, no EBits.
 *   32-bit: code 0..8 = 4*code leading zero bits, 32 - 4*code EBits; codes 9..15 are invalid.
 *
 * Block bytes: [headers: ceil(words/2) bytes, two codes per byte, low nibble first, an unused
 * last high nibble is 0][EBits stream, zero-padded to a byte][tail: n % (B/8) raw bytes].
 * The block length must match exactly; everything else is ZIP_E_CORRUPT.
 */
#include "xorlz.hpp"

#include "codec_registry.hpp"
#include "lzn_coder.hpp"

namespace zip
{
namespace
{

template <class W> struct PreviousValuePredictor {
    W last = 0;
    W predict() const { return last; }
    void update(W v) { last = v; }
};

} // namespace

size_t XorLzCodec::compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                            size_t cap)
{
    if (zip_elem_size(type) == 4) {
        PreviousValuePredictor<uint32_t> pred;
        return lzn::encode_block<uint32_t>(pred, src, bitio::block_layout(n, 4), dst, cap);
    }
    PreviousValuePredictor<uint64_t> pred;
    return lzn::encode_block<uint64_t>(pred, src, bitio::block_layout(n, 8), dst, cap);
}

zip_status_t XorLzCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                    uint8_t *dst, size_t raw_n)
{
    if (zip_elem_size(type) == 4) {
        PreviousValuePredictor<uint32_t> pred;
        return lzn::decode_block<uint32_t>(pred, src, len, bitio::block_layout(raw_n, 4), dst);
    }
    PreviousValuePredictor<uint64_t> pred;
    return lzn::decode_block<uint64_t>(pred, src, len, bitio::block_layout(raw_n, 8), dst);
}

std::unique_ptr<BlockCodec> make_xorlz(std::string_view options)
{
    if (!options.empty())
        throw SpecError{"xorlz takes no options (got '" + std::string(options) + "')"};
    return std::make_unique<XorLzCodec>();
}

std::unique_ptr<BlockCodec> make_xorlz(uint32_t param)
{
    if (param != 0)
        return nullptr;
    return std::make_unique<XorLzCodec>();
}

} // namespace zip
