// `fast`: a lossless block codec for arrays of doubles/floats that aims to beat Blosc's
// shuffle+LZ4 on speed and ratio: integer prediction, byte planes, per-plane zero/raw/LZ4.
// The block format is documented at the top of fast.cpp; measurements in docs/fast-codec.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "codec.hpp"

namespace zip
{

// How each element is predicted from the ones before it; the residual (zigzag-coded integer
// difference of the bit patterns) is what gets split into byte planes. Written in every block.
enum class FastPredictor : uint8_t {
    None = 0,   // residual = the element itself (bit pattern)
    Delta1 = 1, // x[i] - x[i-1]
    Delta2 = 2, // x[i] - (2 x[i-1] - x[i-2]): linear extrapolation, best on smooth fields
    Auto = 3,   // option only, never in a block: per block, None if values repeat, else Delta2
};

struct FastOptions {
    static constexpr unsigned kDefaultAccel = 1;
    unsigned accel = kDefaultAccel; // LZ4 acceleration for the compressible planes, 1..64
    FastPredictor predictor = FastPredictor::Auto;

    // 32-bit frame parameter: bits 0-7 accel (0 = default), bits 8-9: 0 Auto (default),
    // 1 + a fixed predictor. Other bits zero.
    uint32_t pack() const;
    static bool unpack(uint32_t param, FastOptions &out); // false: param is not valid
};

class FastCodec final : public BlockCodec
{
  public:
    explicit FastCodec(FastOptions options = {});
    ~FastCodec() override;

    CodecId id() const override { return CodecId::Fast; }
    uint32_t param() const override { return options_.pack(); }
    const FastOptions &options() const { return options_; }

    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                    size_t cap) override;
    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t type, uint8_t *dst,
                            size_t raw_n) override;
    size_t memory_bytes() const override;

  private:
    struct Lz4State;

    size_t compress_planes(const uint8_t *const *planes, size_t width, size_t count,
                           uint64_t nonzero_bytes, FastPredictor pred, const uint8_t *seed,
                           uint8_t *dst, size_t cap);
    void reserve(size_t n);

    FastOptions options_;
    std::unique_ptr<Lz4State> lz4_;
    // Scratch, grown (once per larger block size) and then reused: no allocation per block.
    std::vector<uint8_t> planes_; // byte planes of one block (compress and decompress)
    std::vector<uint8_t> zeros_;  // an all-zero plane, read by the decoder for empty planes
};

} // namespace zip
