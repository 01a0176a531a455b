// Unit tests of the dfcm block codec (codecs/src/dfcm.cpp), through the BlockCodec interface.
#include <array>

#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "dfcm.hpp"
#include "lzn_reference.hpp"

using namespace codectest;

namespace
{

std::unique_ptr<zip::BlockCodec> dfcm_default()
{
    return zip::make_dfcm(std::string_view{});
}
CodecFactory dfcm_bits(unsigned bits)
{
    return [bits] { return zip::make_dfcm("bits=" + std::to_string(bits)); };
}

} // namespace

TEST(Dfcm, PredictsAConstantStrideExactlyAfterWarmUp)
{
    // Equal integer differences of the bit patterns: after warm-up every prediction is exact and
    // costs one 4-bit code (code 15, no EBits).
    std::vector<uint64_t> v(8192);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = 0x4000000000000000ull + 12345 * i;
    size_t len = expect_round_trip(dfcm_default, as_bytes(v), ZIP_TYPE_F64);
    EXPECT_LT(len, v.size() / 2 + 200);
}

TEST(Dfcm, CorrectsDriftWhenStoredDeltasAgree)
{
    // Second differences constant: the drift correction predicts d'' + (d'' - d') exactly.
    std::vector<uint64_t> v(8192);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = 0x4000000000000000ull + 3 * i * i;
    size_t len = expect_round_trip(dfcm_default, as_bytes(v), ZIP_TYPE_F64);
    EXPECT_LT(len, v.size());
}

TEST(Dfcm, RoundTripsWithEveryTableSize)
{
    for (unsigned bits = zip::DfcmCodec::kMinBits; bits <= zip::DfcmCodec::kMaxBits; ++bits)
        expect_round_trip(dfcm_bits(bits), smooth(ZIP_TYPE_F64, 5000), ZIP_TYPE_F64);
}

TEST(Dfcm, RejectsNonZeroPaddingAndThe32BitVariantsUnusedCodes)
{
    auto codec = dfcm_default();
    // One double, code 14 (8 EBits), one EBits byte: valid. Codes in the unused high nibble or
    // an extra byte are not.
    EXPECT_EQ(decode_exact(*codec, {0x0e, 0x5a}, ZIP_TYPE_F64, 8), ZIP_OK);
    EXPECT_EQ(decode_exact(*codec, {0x1e, 0x5a}, ZIP_TYPE_F64, 8), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, {0x0e, 0x5a, 0x00}, ZIP_TYPE_F64, 8), ZIP_E_CORRUPT);
    // One double, code 13 (12 EBits): the top 4 bits of the second byte are padding.
    EXPECT_EQ(decode_exact(*codec, {0x0d, 0x5a, 0x05}, ZIP_TYPE_F64, 8), ZIP_OK);
    EXPECT_EQ(decode_exact(*codec, {0x0d, 0x5a, 0x15}, ZIP_TYPE_F64, 8), ZIP_E_CORRUPT);
    // One float, code 9: more zero nibbles than a float has.
    EXPECT_EQ(decode_exact(*codec, {0x09}, ZIP_TYPE_F32, 4), ZIP_E_CORRUPT);
}

TEST(Dfcm, ParsesTableBitsAndRejectsBadOptions)
{
    EXPECT_EQ(zip::make_dfcm("bits=12")->param(), 12u);
    EXPECT_EQ(dfcm_default()->param(), 15u);
    EXPECT_THROW(zip::make_dfcm("bits=3"), zip::SpecError);
    EXPECT_THROW(zip::make_dfcm("bits=21"), zip::SpecError);
    EXPECT_THROW(zip::make_dfcm("order=3"), zip::SpecError);
}

TEST(Dfcm, BuildsFromFrameParamAndRefusesInvalidOnes)
{
    EXPECT_EQ(zip::make_dfcm(0u)->param(), 15u);
    EXPECT_EQ(zip::make_dfcm(10u)->param(), 10u);
    EXPECT_EQ(zip::make_dfcm(3u), nullptr);
    EXPECT_EQ(zip::make_dfcm(21u), nullptr);
    EXPECT_EQ(zip::make_dfcm(0x10fu), nullptr);
}

TEST(Dfcm, ReportsItsTableMemory)
{
    // The paper's 2^15 lines of two 64-bit deltas: 512 KiB.
    EXPECT_EQ(dfcm_default()->memory_bytes(), 512u * 1024u);
}

namespace
{

// The paper's predictor written as plainly as possible, for 64-bit words and 2^table_bits lines.
Bytes reference_dfcm(const std::vector<uint64_t> &v, unsigned table_bits)
{
    std::vector<std::array<uint64_t, 2>> table(size_t(1) << table_bits); // {recent, older}
    uint64_t last = 0, delta0 = 0, delta1 = 0, delta2 = 0;               // delta2 = newest
    std::vector<unsigned> codes;
    std::vector<bool> bits;
    for (uint64_t x : v) {
        size_t h = (delta2 ^ (delta1 << 5) ^ (delta0 << 10)) & (table.size() - 1);
        uint64_t recent = table[h][0], older = table[h][1];
        uint64_t dp = (recent >> 50) != (older >> 50) ? recent : recent + (recent - older);
        append_lzn(x ^ (last + dp), codes, bits);
        table[h] = {x - last, recent};
        delta0 = delta1;
        delta1 = delta2;
        delta2 = (x - last) >> 50;
        last = x;
    }
    return pack_block(codes, bits);
}

} // namespace

TEST(Dfcm, MatchesAPlainReferenceOfThePapersPredictor)
{
    // Effective table bits: min(15, max(4, ceil_log2(words) + 1)).
    struct Case {
        Bytes raw;
        unsigned table_bits;
    };
    std::vector<Case> cases = {{smooth(ZIP_TYPE_F64, 1000), 11},   {smooth(ZIP_TYPE_F64, 8192), 14},
                               {smooth(ZIP_TYPE_F64, 65536), 15},  {random_bytes(8 * 3000, 9), 13},
                               {as_bytes(special_f64_bits()), 10}, {smooth(ZIP_TYPE_F64, 5), 4}};
    for (const Case &c : cases) {
        auto codec = dfcm_default();
        EXPECT_EQ(compress(*codec, c.raw, ZIP_TYPE_F64, roomy_cap(c.raw.size())),
                  reference_dfcm(words_of(c.raw), c.table_bits))
            << c.raw.size() << " bytes";
    }
}
