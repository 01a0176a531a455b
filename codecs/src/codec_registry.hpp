// Constructors of every codec, one pair per codec: from a spec (name already matched; options
// "key=value,...") and from the 32-bit parameter a frame carries. The first throws SpecError on
// bad options; the second returns nullptr when the parameter is invalid (a corrupt frame).
#pragma once

#include "codec.hpp"

namespace zip
{

std::unique_ptr<BlockCodec> make_raw(std::string_view options);
std::unique_ptr<BlockCodec> make_raw(uint32_t param);
std::unique_ptr<BlockCodec> make_lz4(std::string_view options);
std::unique_ptr<BlockCodec> make_lz4(uint32_t param);
std::unique_ptr<BlockCodec> make_zstd(std::string_view options);
std::unique_ptr<BlockCodec> make_zstd(uint32_t param);
std::unique_ptr<BlockCodec> make_fpc(std::string_view options);
std::unique_ptr<BlockCodec> make_fpc(uint32_t param);
std::unique_ptr<BlockCodec> make_dfcm(std::string_view options);
std::unique_ptr<BlockCodec> make_dfcm(uint32_t param);
std::unique_ptr<BlockCodec> make_xorlz(std::string_view options);
std::unique_ptr<BlockCodec> make_xorlz(uint32_t param);
std::unique_ptr<BlockCodec> make_fast(std::string_view options);
std::unique_ptr<BlockCodec> make_fast(uint32_t param);

} // namespace zip
