// dfcm: cMPI's third-order DFCM value predictor with leading-zero-nibble residual coding
// (Ke, Burtscher, Speight, SC 2004). Byte format and algorithm: see the top of dfcm.cpp.
#pragma once

#include <memory>

#include "codec.hpp"

namespace zip
{

class DfcmCodec final : public BlockCodec
{
  public:
    static constexpr unsigned kMinBits = 4;
    static constexpr unsigned kMaxBits = 20;     // the hash has at most 24 significant bits
    static constexpr unsigned kDefaultBits = 15; // the paper's 2^15 lines

    // table_bits in [kMinBits, kMaxBits]: the table has 2^table_bits lines of two deltas.
    explicit DfcmCodec(unsigned table_bits);

    CodecId id() const override { return CodecId::Dfcm; }
    uint32_t param() const override { return table_bits_; }
    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                    size_t cap) override;
    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t type, uint8_t *dst,
                            size_t raw_n) override;
    size_t memory_bytes() const override;

  private:
    unsigned table_bits_;
    // 2^table_bits lines of two 64-bit deltas (the 32-bit variant packs two 32-bit deltas into
    // the first half); accessed with memcpy so one allocation serves both widths.
    std::unique_ptr<uint8_t[]> table_;
};

} // namespace zip
