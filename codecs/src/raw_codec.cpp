// "raw": never compresses; every block is stored as is. Useful as a baseline and to switch
// compression off while keeping the frame (and its integrity checks).
#include <cstring>

#include "codec_registry.hpp"

namespace zip
{

namespace
{

class RawCodec final : public BlockCodec
{
  public:
    CodecId id() const override { return CodecId::Raw; }
    size_t compress(const uint8_t *, size_t, zip_elem_type_t, uint8_t *, size_t) override
    {
        return 0;
    }
    zip_status_t decompress(const uint8_t *, size_t, zip_elem_type_t, uint8_t *, size_t) override
    {
        return ZIP_E_CORRUPT; // raw frames hold only stored blocks
    }
};

} // namespace

std::unique_ptr<BlockCodec> make_raw(std::string_view options)
{
    if (!options.empty())
        throw SpecError{"raw takes no options"};
    return std::make_unique<RawCodec>();
}

std::unique_ptr<BlockCodec> make_raw(uint32_t param)
{
    return param == 0 ? std::make_unique<RawCodec>() : nullptr;
}

} // namespace zip
