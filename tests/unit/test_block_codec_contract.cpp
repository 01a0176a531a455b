// The contract every leading-zero float codec (fpc, dfcm, xorlz) keeps through the BlockCodec
// interface: bit-exact round trips of every type, size and alignment, smooth doubles shrunk,
// capacity respected, every truncation rejected, corruption survived, blocks independent.
// Codec-specific behaviour (formats, predictors, options) is tested in test_<codec>.cpp.
#include "block_codec_checks.hpp"
#include "codec_registry.hpp"

#include <limits>

using namespace codectest;

namespace
{

struct Fraction {
    size_t num, den;
};

struct ContractCase {
    const char *name;
    CodecFactory make;
    CodecFactory make_for_million; // fpc is checked at 16 table bits there
    zip_elem_type_t second_independent_type;
    Fraction smooth_size_limit; // xorlz predicts only the previous value, so it shrinks less
};

const ContractCase kCases[] = {
    {"fpc", [] { return zip::make_fpc(std::string_view{}); },
     [] { return zip::make_fpc(std::string_view{"bits=16"}); }, ZIP_TYPE_F32, Fraction{3, 4}},
    {"dfcm", [] { return zip::make_dfcm(std::string_view{}); },
     [] { return zip::make_dfcm(std::string_view{}); }, ZIP_TYPE_F32, Fraction{3, 4}},
    {"xorlz", [] { return zip::make_xorlz(std::string_view{}); },
     [] { return zip::make_xorlz(std::string_view{}); }, ZIP_TYPE_BYTES, Fraction{9, 10}},
};

class BlockCodecContract : public ::testing::TestWithParam<ContractCase>
{
};

TEST_P(BlockCodecContract, RoundTripsSmoothDoublesAndShrinksThem)
{
    Bytes raw = smooth(ZIP_TYPE_F64, 8192);
    size_t len = expect_round_trip(GetParam().make, raw, ZIP_TYPE_F64);
    const Fraction &limit = GetParam().smooth_size_limit;
    EXPECT_LT(len, raw.size() * limit.num / limit.den);
}

TEST_P(BlockCodecContract, RoundTripsRandomBits)
{
    for (zip_elem_type_t type :
         {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES, ZIP_TYPE_I32, ZIP_TYPE_I64})
        expect_round_trip(GetParam().make, random_bytes(65536, 3), type);
}

TEST_P(BlockCodecContract, RoundTripsNanPayloadsBitExact)
{
    expect_round_trip(GetParam().make, as_bytes(special_f64_bits()), ZIP_TYPE_F64);
    expect_round_trip(GetParam().make, as_bytes(special_f32_bits()), ZIP_TYPE_F32);
}

TEST_P(BlockCodecContract, RoundTripsSignedZerosInfinitiesAndDenormals)
{
    std::vector<double> d;
    for (int i = 0; i < 300; ++i)
        for (double v : {0.0, -0.0, std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::denorm_min() * (i + 1),
                         -std::numeric_limits<double>::denorm_min() * i,
                         std::numeric_limits<double>::min(), std::numeric_limits<double>::max()})
            d.push_back(v);
    expect_round_trip(GetParam().make, as_bytes(d), ZIP_TYPE_F64);
}

TEST_P(BlockCodecContract, RoundTripsTinyAndOddSizesOfEveryType)
{
    for (zip_elem_type_t type :
         {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES, ZIP_TYPE_I32, ZIP_TYPE_I64})
        for (size_t count : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 511, 513, 1000}) {
            SCOPED_TRACE(testing::Message() << "type " << type << " count " << count);
            expect_round_trip(GetParam().make, smooth(type, count), type);
            expect_round_trip(GetParam().make, random_bytes(count * elem_size(type), count), type);
        }
}

TEST_P(BlockCodecContract, RoundTripsOneMillionDoublesInOneBlock)
{
    expect_round_trip(GetParam().make_for_million, smooth(ZIP_TYPE_F64, 1 << 20), ZIP_TYPE_F64);
}

TEST_P(BlockCodecContract, RoundTripsAtEveryAlignment)
{
    for (zip_elem_type_t type :
         {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES, ZIP_TYPE_I32, ZIP_TYPE_I64})
        for (size_t src_off = 0; src_off < 8; ++src_off)
            for (size_t dst_off = 0; dst_off < 8; dst_off += 3)
                expect_round_trip(GetParam().make, smooth(type, 1001), type, src_off, dst_off);
}

TEST_P(BlockCodecContract, NeverWritesPastCapAndFailsCleanlyWhenTooSmall)
{
    expect_capacity_respected(GetParam().make, smooth(ZIP_TYPE_F64, 1000), ZIP_TYPE_F64);
    expect_capacity_respected(GetParam().make, random_bytes(4001, 5), ZIP_TYPE_BYTES);
    expect_capacity_respected(GetParam().make, smooth(ZIP_TYPE_F32, 999), ZIP_TYPE_F32);
}

TEST_P(BlockCodecContract, RejectsEveryTruncationOfABlock)
{
    expect_every_truncation_rejected(GetParam().make, smooth(ZIP_TYPE_F64, 61), ZIP_TYPE_F64);
    expect_every_truncation_rejected(GetParam().make, smooth(ZIP_TYPE_F32, 61), ZIP_TYPE_F32);
    expect_every_truncation_rejected(GetParam().make, random_bytes(99, 1), ZIP_TYPE_BYTES);
}

TEST_P(BlockCodecContract, SurvivesBitFlipsAndGarbageWithoutStrayAccess)
{
    expect_corruption_survived(GetParam().make, smooth(ZIP_TYPE_F64, 300), ZIP_TYPE_F64, 1);
    expect_corruption_survived(GetParam().make, smooth(ZIP_TYPE_F32, 301), ZIP_TYPE_F32, 2);
    expect_corruption_survived(GetParam().make, random_bytes(1003, 3), ZIP_TYPE_BYTES, 3);
}

TEST_P(BlockCodecContract, HandlesAnEmptyBlockWithNullPointers)
{
    expect_empty_block_handled(GetParam().make);
}

TEST_P(BlockCodecContract, CodesEachBlockIndependently)
{
    expect_blocks_independent(GetParam().make, ZIP_TYPE_F64);
    expect_blocks_independent(GetParam().make, GetParam().second_independent_type);
}

INSTANTIATE_TEST_SUITE_P(FloatCodecs, BlockCodecContract, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
