// xorlz: Kumar et al.'s intra-step lossless scheme (Parallel Computing 2008, section 4.1): XOR
// with the previous value, 4-bit leading-zero-nibble count, raw remaining bits. No tables.
// Byte format: see the top of xorlz.cpp.
#pragma once

#include "codec.hpp"

namespace zip
{

class XorLzCodec final : public BlockCodec
{
  public:
    CodecId id() const override { return CodecId::XorLz; }
    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                    size_t cap) override;
    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t type, uint8_t *dst,
                            size_t raw_n) override;
};

} // namespace zip
