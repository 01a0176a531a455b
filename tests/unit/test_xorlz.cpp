// Unit tests of the xorlz block codec (codecs/src/xorlz.cpp), through the BlockCodec interface.
#include <array>

#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "xorlz.hpp"
#include "lzn_reference.hpp"

using namespace codectest;

namespace
{

std::unique_ptr<zip::BlockCodec> xorlz()
{
    return zip::make_xorlz(std::string_view{});
}

} // namespace

TEST(XorLz, CodesARepeatedValueInFourBits)
{
    std::vector<double> d(8192, 3.25);
    size_t len = expect_round_trip(xorlz, as_bytes(d), ZIP_TYPE_F64);
    EXPECT_EQ(len, d.size() / 2 + 8); // headers + the first value's 64 bits
}

TEST(XorLz, MatchesTheFormatOnAHandWorkedExample)
{
    // 1.0 = 0x3ff0000000000000: XOR with 0 has no leading zero nibble -> code 0, 64 EBits.
    // 1.5 = 0x3ff8000000000000: XOR with 1.0 = 0x0008000000000000 -> code 3, 52 EBits.
    std::vector<double> d = {1.0, 1.5};
    auto codec = xorlz();
    Bytes block = compress(*codec, as_bytes(d), ZIP_TYPE_F64, 64);
    Bytes expected = {0x30,                                           // headers: 0 | 3 << 4
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, // 1.0, LSB first
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08};      // 52 bits, 4 bits padding
    EXPECT_EQ(block, expected);
}

TEST(XorLz, CodesFloatsAsThirtyTwoBitWordsOnAHandWorkedExample)
{
    // 1.0f = 0x3f800000: no leading zero nibble -> code 0, 32 EBits. 1.5f = 0x3fc00000: XOR
    // 0x00400000 -> code 2, 24 EBits. 1.5f again: XOR 0 -> code 8, no EBits.
    std::vector<float> f = {1.0f, 1.5f, 1.5f};
    auto codec = xorlz();
    Bytes block = compress(*codec, as_bytes(f), ZIP_TYPE_F32, 64);
    Bytes expected = {0x20, 0x08,             // headers: 0 | 2 << 4, then 8 and a zero nibble
                      0x00, 0x00, 0x80, 0x3f, // 1.0f
                      0x00, 0x00, 0x40};      // 24 bits of 0x00400000
    EXPECT_EQ(block, expected);
}

TEST(XorLz, TakesNoOptionsAndOnlyParamZero)
{
    EXPECT_EQ(xorlz()->param(), 0u);
    EXPECT_EQ(xorlz()->memory_bytes(), 0u);
    EXPECT_THROW(zip::make_xorlz("bits=12"), zip::SpecError);
    EXPECT_NE(zip::make_xorlz(0u), nullptr);
    EXPECT_EQ(zip::make_xorlz(1u), nullptr);
}

namespace
{

Bytes reference_xorlz(const Bytes &raw)
{
    std::vector<unsigned> codes;
    std::vector<bool> bits;
    uint64_t previous = 0;
    for (size_t i = 0; i + 8 <= raw.size(); i += 8) {
        uint64_t v;
        std::memcpy(&v, raw.data() + i, 8);
        append_lzn(v ^ previous, codes, bits);
        previous = v;
    }
    Bytes out = pack_block(codes, bits);
    out.insert(out.end(), raw.end() - long(raw.size() % 8), raw.end()); // raw tail
    return out;
}

} // namespace

TEST(XorLz, MatchesAPlainReferenceOfKumarsScheme)
{
    for (const Bytes &raw : {smooth(ZIP_TYPE_F64, 1000), random_bytes(8 * 3000, 9),
                             as_bytes(special_f64_bits()), random_bytes(8 * 77 + 5, 4)}) {
        zip_elem_type_t type = raw.size() % 8 ? ZIP_TYPE_BYTES : ZIP_TYPE_F64;
        auto codec = xorlz();
        EXPECT_EQ(compress(*codec, raw, type, roomy_cap(raw.size())), reference_xorlz(raw))
            << raw.size() << " bytes";
    }
}
