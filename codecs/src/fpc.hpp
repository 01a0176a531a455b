// FPC: lossless floating-point block codec after Burtscher & Ratanaworabhan (IEEE ToC 2009).
// Byte format and algorithm: see the comment at the top of fpc.cpp.
#pragma once

#include <memory>

#include "codec.hpp"

namespace zip
{

class FpcCodec final : public BlockCodec
{
  public:
    static constexpr unsigned kMinBits = 4;
    static constexpr unsigned kMaxBits = 24;
    static constexpr unsigned kDefaultBits = 12; // why 12: measurements in fpc.cpp

    // table_bits in [kMinBits, kMaxBits]: each predictor table has 2^table_bits entries.
    explicit FpcCodec(unsigned table_bits);

    CodecId id() const override { return CodecId::Fpc; }
    uint32_t param() const override { return table_bits_; }
    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                    size_t cap) override;
    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t type, uint8_t *dst,
                            size_t raw_n) override;
    size_t memory_bytes() const override;

  private:
    unsigned table_bits_;
    // FCM and DFCM tables, 2^table_bits 64-bit entries each (the 32-bit variant uses the first
    // half of each as 32-bit entries). Accessed with memcpy so one allocation serves both widths.
    std::unique_ptr<uint8_t[]> fcm_;
    std::unique_ptr<uint8_t[]> dfcm_;
};

} // namespace zip
