// Unit tests of the fpc block codec (codecs/src/fpc.cpp), through the BlockCodec interface.
#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "fpc.hpp"

using namespace codectest;

namespace {

std::unique_ptr<zip::BlockCodec> fpc_default() { return zip::make_fpc(std::string_view{}); }
CodecFactory fpc_bits(unsigned bits)
{
    return [bits] { return zip::make_fpc("bits=" + std::to_string(bits)); };
}

}  // namespace

TEST(Fpc, RoundTripsSmoothDoublesAndShrinksThem)
{
    Bytes raw = smooth(ZIP_TYPE_F64, 8192);
    size_t len = expect_round_trip(fpc_default, raw, ZIP_TYPE_F64);
    EXPECT_LT(len, raw.size() * 3 / 4);
}

TEST(Fpc, CompressesAnArithmeticSequenceToUnderOneByteAValue)
{
    std::vector<double> d(8192);
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = 0.5 * double(i);
    size_t len = expect_round_trip(fpc_default, as_bytes(d), ZIP_TYPE_F64);
    EXPECT_LT(len, d.size());
}

TEST(Fpc, RoundTripsRandomBits)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        expect_round_trip(fpc_default, random_bytes(65536, 3), type);
}

TEST(Fpc, RoundTripsNanPayloadsBitExact)
{
    expect_round_trip(fpc_default, as_bytes(special_f64_bits()), ZIP_TYPE_F64);
    expect_round_trip(fpc_default, as_bytes(special_f32_bits()), ZIP_TYPE_F32);
}

TEST(Fpc, RoundTripsSignedZerosInfinitiesAndDenormals)
{
    std::vector<double> d;
    for (int i = 0; i < 300; ++i)
        for (double v : {0.0, -0.0, std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::denorm_min() * (i + 1),
                         -std::numeric_limits<double>::denorm_min() * i,
                         std::numeric_limits<double>::min(), std::numeric_limits<double>::max()})
            d.push_back(v);
    expect_round_trip(fpc_default, as_bytes(d), ZIP_TYPE_F64);
}

TEST(Fpc, RoundTripsTinyAndOddSizesOfEveryType)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        for (size_t count : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 511, 513, 1000}) {
            SCOPED_TRACE(testing::Message() << "type " << type << " count " << count);
            expect_round_trip(fpc_default, smooth(type, count), type);
            expect_round_trip(fpc_default, random_bytes(count * elem_size(type), count), type);
        }
}

TEST(Fpc, RoundTripsOneMillionDoublesInOneBlock)
{
    expect_round_trip(fpc_bits(16), smooth(ZIP_TYPE_F64, 1 << 20), ZIP_TYPE_F64);
}

TEST(Fpc, RoundTripsAtEveryAlignment)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        for (size_t src_off = 0; src_off < 8; ++src_off)
            for (size_t dst_off = 0; dst_off < 8; dst_off += 3)
                expect_round_trip(fpc_default, smooth(type, 1001), type, src_off, dst_off);
}

TEST(Fpc, RoundTripsWithEveryTableSize)
{
    for (unsigned bits = zip::FpcCodec::kMinBits; bits <= 18; ++bits)
        expect_round_trip(fpc_bits(bits), smooth(ZIP_TYPE_F64, 5000), ZIP_TYPE_F64);
}

TEST(Fpc, NeverWritesPastCapAndFailsCleanlyWhenTooSmall)
{
    expect_capacity_respected(fpc_default, smooth(ZIP_TYPE_F64, 1000), ZIP_TYPE_F64);
    expect_capacity_respected(fpc_default, random_bytes(4001, 5), ZIP_TYPE_BYTES);
    expect_capacity_respected(fpc_default, smooth(ZIP_TYPE_F32, 999), ZIP_TYPE_F32);
}

TEST(Fpc, RejectsEveryTruncationOfABlock)
{
    expect_every_truncation_rejected(fpc_default, smooth(ZIP_TYPE_F64, 61), ZIP_TYPE_F64);
    expect_every_truncation_rejected(fpc_default, smooth(ZIP_TYPE_F32, 61), ZIP_TYPE_F32);
    expect_every_truncation_rejected(fpc_default, random_bytes(99, 1), ZIP_TYPE_BYTES);
}

TEST(Fpc, SurvivesBitFlipsAndGarbageWithoutStrayAccess)
{
    expect_corruption_survived(fpc_default, smooth(ZIP_TYPE_F64, 300), ZIP_TYPE_F64, 1);
    expect_corruption_survived(fpc_default, smooth(ZIP_TYPE_F32, 301), ZIP_TYPE_F32, 2);
    expect_corruption_survived(fpc_default, random_bytes(1003, 3), ZIP_TYPE_BYTES, 3);
}

TEST(Fpc, RejectsThe32BitVariantsUnusedCodes)
{
    auto codec = fpc_default();
    Bytes block = {0x05, 0, 0, 0, 0};  // one float, code 5 (more zero bytes than a float has)
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_F32, 4), ZIP_E_CORRUPT);
}

TEST(Fpc, CodesEachBlockIndependently)
{
    expect_blocks_independent(fpc_default, ZIP_TYPE_F64);
    expect_blocks_independent(fpc_default, ZIP_TYPE_F32);
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
    EXPECT_EQ(zip::make_fpc(0x10cu), nullptr);  // reserved high bits set
}

TEST(Fpc, ReportsItsTableMemory)
{
    EXPECT_EQ(zip::make_fpc(10u)->memory_bytes(), 2u * 8u << 10);
}
