#include "codec_registry.hpp"

#include <charconv>
#include <string>

namespace zip
{

unsigned parse_uint_option(std::string_view key, std::string_view value, unsigned lo, unsigned hi)
{
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || ptr != value.data() + value.size() || v < lo || v > hi)
        throw SpecError{std::string(key) + " must be an integer in " + std::to_string(lo) + ".." +
                        std::to_string(hi) + ", got '" + std::string(value) + "'"};
    return v;
}

namespace
{

struct Entry {
    const char *name;
    CodecId id;
    std::unique_ptr<BlockCodec> (*from_spec)(std::string_view);
    std::unique_ptr<BlockCodec> (*from_param)(uint32_t);
};

const Entry kCodecs[] = {
    {"raw", CodecId::Raw, make_raw, make_raw},
    {"lz4", CodecId::Lz4, make_lz4, make_lz4},
    {"zstd", CodecId::Zstd, make_zstd, make_zstd},
    {"fpc", CodecId::Fpc, make_fpc, make_fpc},
    {"dfcm", CodecId::Dfcm, make_dfcm, make_dfcm},
    {"xorlz", CodecId::XorLz, make_xorlz, make_xorlz},
    {"fast", CodecId::Fast, make_fast, make_fast},
};

} // namespace

std::unique_ptr<BlockCodec> make_codec(std::string_view name, std::string_view options)
{
    for (const Entry &e : kCodecs)
        if (name == e.name)
            return e.from_spec(options);
    throw SpecError{"unknown codec '" + std::string(name) +
                    "' (known: raw, lz4, zstd, fpc, dfcm, xorlz, fast, temporal)"};
}

std::unique_ptr<BlockCodec> make_codec(CodecId id, uint32_t param)
{
    for (const Entry &e : kCodecs)
        if (id == e.id)
            return e.from_param(param);
    return nullptr;
}

} // namespace zip
