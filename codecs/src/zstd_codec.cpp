// "zstd": Debian's libzstd, for payloads that are not floating point and links slow enough to
// pay for a stronger byte codec. Block = one zstd frame without checksum (the ompi-zip frame
// checks integrity).
#include <zstd.h>

#include "codec_registry.hpp"

namespace zip
{

namespace
{

class ZstdCodec final : public BlockCodec
{
  public:
    explicit ZstdCodec(int level)
        : level_(level), cctx_(ZSTD_createCCtx()), dctx_(ZSTD_createDCtx())
    {
        if (!cctx_ || !dctx_)
            throw std::bad_alloc();
    }
    ~ZstdCodec() override
    {
        ZSTD_freeCCtx(cctx_);
        ZSTD_freeDCtx(dctx_);
    }
    ZstdCodec(const ZstdCodec &) = delete;
    ZstdCodec &operator=(const ZstdCodec &) = delete;

    CodecId id() const override { return CodecId::Zstd; }
    uint32_t param() const override { return uint32_t(level_); }

    size_t compress(const uint8_t *src, size_t n, zip_elem_type_t, uint8_t *dst,
                    size_t cap) override
    {
        size_t r = ZSTD_compressCCtx(cctx_, dst, cap, src, n, level_);
        return ZSTD_isError(r) ? 0 : r;
    }

    zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t, uint8_t *dst,
                            size_t raw_n) override
    {
        size_t r = ZSTD_decompressDCtx(dctx_, dst, raw_n, src, len);
        return !ZSTD_isError(r) && r == raw_n ? ZIP_OK : ZIP_E_CORRUPT;
    }

    size_t memory_bytes() const override
    {
        return ZSTD_sizeof_CCtx(cctx_) + ZSTD_sizeof_DCtx(dctx_);
    }

  private:
    int level_;
    ZSTD_CCtx *cctx_;
    ZSTD_DCtx *dctx_;
};

constexpr unsigned kDefaultLevel = 1;

} // namespace

std::unique_ptr<BlockCodec> make_zstd(std::string_view options)
{
    unsigned level = kDefaultLevel;
    for_each_option(options, [&](std::string_view k, std::string_view v) {
        if (k != "level")
            throw SpecError{"zstd has no option '" + std::string(k) + "' (level=1..19)"};
        level = parse_uint_option(k, v, 1, 19);
    });
    return std::make_unique<ZstdCodec>(int(level));
}

std::unique_ptr<BlockCodec> make_zstd(uint32_t param)
{
    if (param == 0)
        param = kDefaultLevel;
    return param <= 19 ? std::make_unique<ZstdCodec>(int(param)) : nullptr;
}

} // namespace zip
