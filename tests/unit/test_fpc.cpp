// Unit tests of the fpc block codec (codecs/src/fpc.cpp), through the BlockCodec interface.
#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "fpc.hpp"

using namespace codectest;

namespace
{

std::unique_ptr<zip::BlockCodec> fpc_default()
{
    return zip::make_fpc(std::string_view{});
}
CodecFactory fpc_bits(unsigned bits)
{
    return [bits] { return zip::make_fpc("bits=" + std::to_string(bits)); };
}

} // namespace

TEST(Fpc, CompressesAnArithmeticSequenceToUnderOneByteAValue)
{
    std::vector<double> d(8192);
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = 0.5 * double(i);
    size_t len = expect_round_trip(fpc_default, as_bytes(d), ZIP_TYPE_F64);
    EXPECT_LT(len, d.size());
}

TEST(Fpc, RoundTripsWithEveryTableSize)
{
    for (unsigned bits = zip::FpcCodec::kMinBits; bits <= 18; ++bits)
        expect_round_trip(fpc_bits(bits), smooth(ZIP_TYPE_F64, 5000), ZIP_TYPE_F64);
}

TEST(Fpc, RejectsThe32BitVariantsUnusedCodes)
{
    auto codec = fpc_default();
    Bytes block = {0x05, 0, 0, 0, 0}; // one float, code 5 (more zero bytes than a float has)
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_F32, 4), ZIP_E_CORRUPT);
}

TEST(Fpc, ParsesTableBitsAndRejectsBadOptions)
{
    EXPECT_EQ(zip::make_fpc("bits=20")->param(), 20u);
    EXPECT_EQ(fpc_default()->param(), zip::FpcCodec::kDefaultBits);
    EXPECT_THROW(zip::make_fpc("bits=3"), zip::SpecError);
    EXPECT_THROW(zip::make_fpc("bits=25"), zip::SpecError);
    EXPECT_THROW(zip::make_fpc("level=3"), zip::SpecError);
    EXPECT_THROW(zip::make_fpc("bits"), zip::SpecError);
}

TEST(Fpc, BuildsFromFrameParamAndRefusesInvalidOnes)
{
    EXPECT_EQ(zip::make_fpc(0u)->param(), zip::FpcCodec::kDefaultBits);
    EXPECT_EQ(zip::make_fpc(12u)->param(), 12u);
    EXPECT_EQ(zip::make_fpc(3u), nullptr);
    EXPECT_EQ(zip::make_fpc(25u), nullptr);
    EXPECT_EQ(zip::make_fpc(0x10cu), nullptr); // reserved high bits set
}

TEST(Fpc, ReportsItsTableMemory)
{
    EXPECT_EQ(zip::make_fpc(10u)->memory_bytes(), 2u * 8u << 10);
}

namespace
{

// FPC as described in the paper, written plainly, for 64-bit words and 2^table_bits entries.
Bytes reference_fpc(const std::vector<uint64_t> &v, unsigned table_bits)
{
    std::vector<uint64_t> fcm(size_t(1) << table_bits), dfcm(size_t(1) << table_bits);
    size_t mask = fcm.size() - 1, fcm_hash = 0, dfcm_hash = 0;
    uint64_t last = 0;
    Bytes headers((v.size() + 1) / 2, 0), residuals;
    for (size_t i = 0; i < v.size(); ++i) {
        uint64_t x_fcm = v[i] ^ fcm[fcm_hash], x_dfcm = v[i] ^ (dfcm[dfcm_hash] + last);
        bool use_dfcm = x_dfcm < x_fcm;
        uint64_t x = use_dfcm ? x_dfcm : x_fcm;
        unsigned zero_bytes = x == 0 ? 8 : unsigned(__builtin_clzll(x)) / 8;
        unsigned code = zero_bytes < 4 ? zero_bytes : zero_bytes == 4 ? 3 : zero_bytes - 1;
        unsigned sent = 8 - (code < 4 ? code : code + 1);
        headers[i / 2] |= uint8_t((code | unsigned(use_dfcm) << 3) << (4 * (i & 1)));
        for (unsigned b = 0; b < sent; ++b)
            residuals.push_back(uint8_t(x >> (8 * b)));
        fcm[fcm_hash] = v[i];
        fcm_hash = ((fcm_hash << 6) ^ (v[i] >> 48)) & mask;
        dfcm[dfcm_hash] = v[i] - last;
        dfcm_hash = ((dfcm_hash << 2) ^ ((v[i] - last) >> 40)) & mask;
        last = v[i];
    }
    headers.insert(headers.end(), residuals.begin(), residuals.end());
    return headers;
}

} // namespace

TEST(Fpc, MatchesAPlainReferenceOfThePapersAlgorithm)
{
    // Effective table bits: min(configured, max(4, ceil_log2(words) + 1)).
    struct Case {
        Bytes raw;
        unsigned configured, effective;
    };
    std::vector<Case> cases = {
        {smooth(ZIP_TYPE_F64, 1000), 12, 11},   {smooth(ZIP_TYPE_F64, 8192), 12, 12},
        {smooth(ZIP_TYPE_F64, 8192), 20, 14},   {random_bytes(8 * 3000, 9), 16, 13},
        {as_bytes(special_f64_bits()), 12, 10}, {smooth(ZIP_TYPE_F64, 5), 12, 4}};
    for (const Case &c : cases) {
        auto codec = fpc_bits(c.configured)();
        EXPECT_EQ(compress(*codec, c.raw, ZIP_TYPE_F64, roomy_cap(c.raw.size())),
                  reference_fpc(words_of(c.raw), c.effective))
            << c.raw.size() << " bytes, bits=" << c.configured;
    }
}
