// `fast`: a lossless block codec for arrays of doubles, floats and integers that aims to beat
// Blosc's shuffle+LZ4 on speed and ratio: integer prediction (from the element one or two
// records back), byte planes, per-plane zero/packed/run/sparse/LZ4/raw coding. The block format
// is documented at the top of fast.cpp; measurements in docs/fast-codec.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "codec.hpp"
#include "fast_runs.hpp"
#include "fast_transform.hpp"

namespace zip
{

// How each element is predicted from the ones one and two strides before it; the residual is
// what gets split into byte planes. Written in every block (values 0..3, with the stride).
enum class FastPredictor : uint8_t {
    None = 0,   // residual = the element itself (bit pattern)
    Delta1 = 1, // zigzag(x[i] - x[i-s])
    Delta2 = 2, // zigzag(x[i] - (2 x[i-s] - x[i-2s])): linear extrapolation, smooth fields
    Xor = 3,    // x[i] ^ x[i-s]
    Auto = 4,   // option only, never in a block: chosen per block from a sample
};

struct FastOptions {
    static constexpr unsigned kDefaultAccel = 2;
    static constexpr unsigned kMaxStride = 32;
    unsigned accel = kDefaultAccel; // LZ4 acceleration for the compressible planes, 1..64
    FastPredictor predictor = FastPredictor::Auto;
    unsigned stride = 0; // elements per record, 1..kMaxStride; 0: auto (1 with a fixed predictor)
    // Format of the frame parameter: 4 (this encoder), or 1..3 for a parameter read from a
    // frame of an earlier format, so that param() gives back the same value (and blocks of
    // that frame may not use what later formats added).
    unsigned param_format = 4;

    // 32-bit frame parameter. Format 2 (bit 24 set): bits 0-7 accel (0 = default), bits 8-10
    // 0 Auto or 1 + a fixed predictor, bits 11-16 stride (0 auto). Format 1 (bit 24 clear, the
    // first release): bits 0-7 accel, bits 8-9 0 Auto or 1 + predictor 0..2. Other bits zero.
    // Format 3: format 2 plus bit 25 (blocks may use the bit-plane coding 10). Format 4: format 3
    // plus bit 26 (blocks may take out element runs, fast_runs.hpp). Blocks may use
    // the modes of format N only in frames with a format-N parameter, so a build that knows an
    // earlier format only reports such frames as unsupported instead of corrupt.
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
                           uint64_t nonzero_bytes, uint8_t transform, const uint8_t *seed,
                           size_t seed_bytes, uint8_t *dst, size_t cap, bool bytes_lz4 = false);
    size_t code_plane(const uint8_t *plane, size_t count, bool &analyse, uint8_t *dst, size_t cap,
                      unsigned &mode);
    size_t compress_elements(const uint8_t *src, size_t count, size_t width,
                             fast_detail::Transform tf, uint8_t flag, uint8_t *dst, size_t cap);
    size_t compress_bytes(const uint8_t *src, size_t n, uint8_t *dst, size_t cap);
    template <class U>
    size_t compress_elem_runs(const uint8_t *src, size_t count, uint8_t *dst, size_t cap);
    zip_status_t decompress_planes(const uint8_t *src, size_t len, zip_elem_type_t type,
                                   uint8_t *dst, size_t raw_n);
    template <class U>
    zip_status_t decompress_elem_runs(const uint8_t *src, size_t len, zip_elem_type_t type,
                                      uint8_t *dst, size_t count);
    bool lz4_slice_pays(const uint8_t *plane, size_t count, size_t goal, unsigned accel);
    void reserve(size_t n);

    FastOptions options_;
    std::unique_ptr<Lz4State> lz4_;
    // Scratch, grown (once per larger block size) and then reused: no allocation per block.
    std::vector<uint8_t> planes_; // byte planes of one block (compress and decompress)
    std::vector<uint8_t> zeros_;  // an all-zero plane, read by the decoder for empty planes
    std::vector<uint8_t> bits_;   // the 8 bit planes of one byte plane (coding 10)
    std::vector<uint8_t> rest_;   // a block's elements outside its element runs (compress)
    std::vector<fast_detail::ElemRun> runs_; // element runs of one block
    std::vector<uint64_t> run_values_;       // their values (decompress)
};

} // namespace zip
