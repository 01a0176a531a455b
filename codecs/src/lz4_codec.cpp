// "lz4": Debian's liblz4 block format, for payloads that are not floating point.
// Block = one LZ4 block (no frame); the frame's block table gives both sizes.
#include <lz4.h>

#include <vector>

#include "codec_registry.hpp"

namespace zip
{

namespace
{

class Lz4Codec final : public BlockCodec
{
  public:
    explicit Lz4Codec(unsigned accel) : accel_(accel), state_((size_t(LZ4_sizeofState()) + 7) / 8)
    {
    }
    CodecId id() const override { return CodecId::Lz4; }
    uint32_t param() const override { return accel_; }

    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t, uint8_t *dst,
                    size_t cap) override
    {
        if (n > size_t(LZ4_MAX_INPUT_SIZE))
            return 0;
        int cap_i = cap > size_t(INT32_MAX) ? INT32_MAX : int(cap);
        int r =
            LZ4_compress_fast_extState(state_.data(), reinterpret_cast<const char *>(src),
                                       reinterpret_cast<char *>(dst), int(n), cap_i, int(accel_));
        return r > 0 ? size_t(r) : 0;
    }

    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t, uint8_t *dst,
                            size_t raw_n) override
    {
        if (len > size_t(INT32_MAX) || raw_n > size_t(INT32_MAX))
            return ZIP_E_CORRUPT;
        int r = LZ4_decompress_safe(reinterpret_cast<const char *>(src),
                                    reinterpret_cast<char *>(dst), int(len), int(raw_n));
        return r == int(raw_n) ? ZIP_OK : ZIP_E_CORRUPT;
    }

    size_t memory_bytes() const override { return state_.size() * 8; }

  private:
    unsigned accel_;
    // LZ4's hash table, reused for every block instead of allocated per call.
    std::vector<uint64_t> state_;
};

constexpr unsigned kDefaultAccel = 1;

} // namespace

std::unique_ptr<BlockCodec> make_lz4(std::string_view options)
{
    unsigned accel = kDefaultAccel;
    for_each_option(options, [&](std::string_view k, std::string_view v) {
        if (k != "accel")
            throw SpecError{"lz4 has no option '" + std::string(k) + "' (accel=1..64)"};
        accel = parse_uint_option(k, v, 1, 64);
    });
    return std::make_unique<Lz4Codec>(accel);
}

std::unique_ptr<BlockCodec> make_lz4(uint32_t param)
{
    if (param == 0)
        param = kDefaultAccel;
    return param <= 64 ? std::make_unique<Lz4Codec>(param) : nullptr;
}

} // namespace zip
