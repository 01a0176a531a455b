// Lossy stages are only active when named in the spec, and then their bound holds on every
// element; NaN and infinities survive.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;
using ziptest::round_trip;

std::vector<double> as_doubles(const std::vector<uint8_t> &b)
{
    std::vector<double> d(b.size() / 8);
    std::memcpy(d.data(), b.data(), d.size() * 8);
    return d;
}

std::vector<float> as_floats(const std::vector<uint8_t> &b)
{
    std::vector<float> d(b.size() / 4);
    std::memcpy(d.data(), b.data(), d.size() * 4);
    return d;
}

const char *const kSmoothAndSpecial[] = {"gauss-256",   "sincos-256", "heat3d",
                                         "random-unit", "special",    "random"};

class LossyBound : public ::testing::TestWithParam<const char *>
{
};

TEST_P(LossyBound, TruncKeepsRelativeErrorBelowTwoToTheDroppedBitsMinus52)
{
    auto src = dataset_bytes(GetParam(), ZIP_TYPE_F64, 20000);
    for (unsigned n : {1u, 12u, 20u, 40u, 52u}) {
        auto r = round_trip("trunc:" + std::to_string(n) + "+fast", ZIP_TYPE_F64, src);
        ASSERT_EQ(r.decompress_status, ZIP_OK);
        auto in = as_doubles(src), out = as_doubles(r.output);
        for (size_t i = 0; i < in.size(); ++i) {
            if (!std::isfinite(in[i])) {
                ASSERT_EQ(std::bit_cast<uint64_t>(in[i]), std::bit_cast<uint64_t>(out[i]));
                continue;
            }
            ASSERT_LE(std::fabs(out[i]), std::fabs(in[i])) << "truncation rounds toward zero";
            // Normal values keep a relative bound; subnormals, whose precision is absolute, an
            // absolute one of the same number of dropped bits.
            double bound = std::fpclassify(in[i]) == FP_SUBNORMAL
                               ? std::ldexp(1.0, int(n) - 1074)
                               : std::ldexp(std::fabs(in[i]), int(n) - 52);
            ASSERT_LE(std::fabs(out[i] - in[i]), bound) << "trunc:" << n << " element " << i;
        }
    }
}

TEST_P(LossyBound, AbsoluteBoundHoldsOnEveryElement)
{
    auto src = dataset_bytes(GetParam(), ZIP_TYPE_F64, 20000);
    for (double eb : {1e-12, 1e-6, 1e-3, 0.5, 100.0}) {
        char spec[64];
        std::snprintf(spec, sizeof spec, "abs:%g+fpc", eb);
        auto r = round_trip(spec, ZIP_TYPE_F64, src);
        ASSERT_EQ(r.decompress_status, ZIP_OK) << spec;
        auto in = as_doubles(src), out = as_doubles(r.output);
        for (size_t i = 0; i < in.size(); ++i) {
            if (!std::isfinite(in[i])) {
                ASSERT_EQ(std::bit_cast<uint64_t>(in[i]), std::bit_cast<uint64_t>(out[i]));
                continue;
            }
            ASSERT_LE(std::fabs(out[i] - in[i]), eb) << spec << " element " << i;
        }
    }
}

TEST_P(LossyBound, RelativeBoundHoldsOnEveryElement)
{
    auto src = dataset_bytes(GetParam(), ZIP_TYPE_F64, 20000);
    for (double rel : {1e-15, 1e-9, 1e-4, 0.1}) {
        char spec[64];
        std::snprintf(spec, sizeof spec, "rel:%g+zstd", rel);
        auto r = round_trip(spec, ZIP_TYPE_F64, src);
        ASSERT_EQ(r.decompress_status, ZIP_OK) << spec;
        auto in = as_doubles(src), out = as_doubles(r.output);
        for (size_t i = 0; i < in.size(); ++i) {
            if (!std::isfinite(in[i])) {
                ASSERT_EQ(std::bit_cast<uint64_t>(in[i]), std::bit_cast<uint64_t>(out[i]));
                continue;
            }
            ASSERT_LE(std::fabs(out[i] - in[i]), rel * std::fabs(in[i]))
                << spec << " element " << i;
        }
    }
}

TEST_P(LossyBound, F32KeepsValuesWithinFloatRoundingAndNansStayNan)
{
    auto src = dataset_bytes(GetParam(), ZIP_TYPE_F64, 20000);
    auto r = round_trip("f32+fast", ZIP_TYPE_F64, src);
    ASSERT_EQ(r.decompress_status, ZIP_OK);
    auto in = as_doubles(src), out = as_doubles(r.output);
    for (size_t i = 0; i < in.size(); ++i) {
        if (std::isnan(in[i])) {
            ASSERT_TRUE(std::isnan(out[i]));
            continue;
        }
        ASSERT_EQ(out[i], double(float(in[i]))) << "element " << i;
        if (std::fabs(in[i]) >= double(std::numeric_limits<float>::min()) &&
            std::fabs(in[i]) <= double(std::numeric_limits<float>::max())) {
            ASSERT_LE(std::fabs(out[i] - in[i]), std::ldexp(std::fabs(in[i]), -24));
        }
    }
}

TEST_P(LossyBound, FloatPayloadsKeepTheirBoundToo)
{
    auto src = dataset_bytes(GetParam(), ZIP_TYPE_F32, 20000);
    auto r = round_trip("rel:1e-3+fast", ZIP_TYPE_F32, src);
    ASSERT_EQ(r.decompress_status, ZIP_OK);
    auto in = as_floats(src), out = as_floats(r.output);
    for (size_t i = 0; i < in.size(); ++i) {
        if (std::isfinite(in[i])) {
            ASSERT_LE(std::fabs(double(out[i]) - double(in[i])), 1e-3 * std::fabs(double(in[i])));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Datasets, LossyBound, ::testing::ValuesIn(kSmoothAndSpecial),
                         [](const auto &info) {
                             std::string s = info.param;
                             for (char &c : s)
                                 if (!isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return s;
                         });

TEST(Lossy, IsNeverOnUnlessAsked)
{
    auto src = dataset_bytes("gauss-256", ZIP_TYPE_F64, 5000);
    for (const char *spec : {"fast", "fpc", "dfcm", "xorlz", "zstd", "temporal"}) {
        auto frame = ziptest::make_frame(spec, ZIP_TYPE_F64, src);
        zip_frame_info_t info;
        ASSERT_EQ(zip_frame_inspect(frame.data(), frame.size(), &info), ZIP_OK);
        EXPECT_FALSE(info.lossy) << spec;
    }
}

TEST(Lossy, MarksItsFramesAndShrinksSmoothDataFurther)
{
    auto src = dataset_bytes("gauss-512", ZIP_TYPE_F64, 1 << 16);
    auto lossless = ziptest::make_frame("fast", ZIP_TYPE_F64, src);
    auto lossy = ziptest::make_frame("trunc:32+fast", ZIP_TYPE_F64, src);
    zip_frame_info_t info;
    ASSERT_EQ(zip_frame_inspect(lossy.data(), lossy.size(), &info), ZIP_OK);
    EXPECT_TRUE(info.lossy);
    EXPECT_LT(lossy.size(), lossless.size());
    auto narrowed = ziptest::make_frame("f32+fast", ZIP_TYPE_F64, src);
    EXPECT_LT(narrowed.size(), src.size() / 2 + 1024);
}

TEST(Lossy, BytePayloadsPassThroughUnchanged)
{
    auto src = dataset_bytes("sincos-256", ZIP_TYPE_BYTES, 4099);
    auto r = round_trip("trunc:30+lz4", ZIP_TYPE_BYTES, src);
    ASSERT_EQ(r.decompress_status, ZIP_OK);
    EXPECT_EQ(r.output, src);
}

TEST(Lossy, IntegerPayloadsPassThroughUnchanged)
{
    for (zip_elem_type_t type : {ZIP_TYPE_I32, ZIP_TYPE_I64})
        for (const char *spec : {"trunc:30+fast", "f32+fast", "abs:0.5+fast", "rel:1e-2+fpc"}) {
            auto src = dataset_bytes("sincos-256", type, 4099); // doubles' bits, as integers
            auto r = round_trip(spec, type, src);
            ASSERT_EQ(r.decompress_status, ZIP_OK) << spec;
            EXPECT_EQ(r.output, src) << spec << " type " << type;
            zip_frame_info_t info;
            auto frame = ziptest::make_frame(spec, type, src);
            ASSERT_EQ(zip_frame_inspect(frame.data(), frame.size(), &info), ZIP_OK);
            EXPECT_FALSE(info.lossy) << spec;
            EXPECT_EQ(info.type, type);
        }
}

} // namespace
