// Unit tests of the fast block codec (codecs/src/fast.cpp) and its kernels
// (codecs/src/fast_transpose.cpp), through the BlockCodec interface where possible.
#include <random>

#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "fast.hpp"
#include "fast_transform.hpp"
#include "fast_transpose.hpp"
#include "test_support.hpp"

using namespace codectest;

namespace
{

std::unique_ptr<zip::BlockCodec> fast_default()
{
    return zip::make_fast(std::string_view{});
}
CodecFactory fast_spec(std::string options)
{
    return [options] { return zip::make_fast(options); };
}

// exp(-x^2) exp(-y^2) on [-2,2)^2, row-major: the smooth field the codec is tuned for.
Bytes gauss(size_t side, size_t count)
{
    std::vector<double> d(count);
    for (size_t k = 0; k < count; ++k) {
        double x = -2.0 + 4.0 * double(k % side) / double(side);
        double y = -2.0 + 4.0 * double(k / side % side) / double(side);
        d[k] = std::exp(-x * x) * std::exp(-y * y);
    }
    return as_bytes(d);
}

// Mode of plane k in a block (2 bits per plane after the predictor byte).
unsigned plane_mode(const Bytes &block, size_t k)
{
    return (block[1 + k / 4] >> (2 * (k % 4))) & 3;
}

} // namespace

TEST(FastCodec, RoundTripsSmoothDoublesAndShrinksThem)
{
    Bytes raw = smooth(ZIP_TYPE_F64, 8192);
    size_t len = expect_round_trip(fast_default, raw, ZIP_TYPE_F64);
    EXPECT_LT(len, raw.size() * 3 / 4);
}

TEST(FastCodec, BeatsThreeQuartersOnAGaussianBlock)
{
    size_t len = expect_round_trip(fast_default, gauss(1024, 8192), ZIP_TYPE_F64);
    EXPECT_LT(len, 65536u * 3 / 4);
}

TEST(FastCodec, RoundTripsSmoothFloats)
{
    Bytes raw = smooth(ZIP_TYPE_F32, 16384);
    size_t len = expect_round_trip(fast_default, raw, ZIP_TYPE_F32);
    EXPECT_LT(len, raw.size());
}

TEST(FastCodec, RoundTripsRandomBitsOfEveryType)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        expect_round_trip(fast_default, random_bytes(65536, 3), type);
}

TEST(FastCodec, RoundTripsNanPayloadsBitExact)
{
    expect_round_trip(fast_default, as_bytes(special_f64_bits()), ZIP_TYPE_F64);
    expect_round_trip(fast_default, as_bytes(special_f32_bits()), ZIP_TYPE_F32);
}

TEST(FastCodec, RoundTripsDenormalsBitExact)
{
    std::vector<double> d;
    std::vector<float> f;
    for (int i = 0; i < 1000; ++i) {
        d.push_back(std::numeric_limits<double>::denorm_min() * (i * 37 % 1001));
        d.push_back(-std::numeric_limits<double>::denorm_min() * i);
        f.push_back(std::numeric_limits<float>::denorm_min() * float(i % 97));
    }
    expect_round_trip(fast_default, as_bytes(d), ZIP_TYPE_F64);
    expect_round_trip(fast_default, as_bytes(f), ZIP_TYPE_F32);
}

TEST(FastCodec, RoundTripsSignedZerosAndInfinities)
{
    std::vector<double> d;
    for (int i = 0; i < 300; ++i)
        for (double v :
             {0.0, -0.0, std::numeric_limits<double>::infinity(),
              -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::min(),
              std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), double(i)})
            d.push_back(v);
    expect_round_trip(fast_default, as_bytes(d), ZIP_TYPE_F64);
}

TEST(FastCodec, RoundTripsTinyAndOddSizesOfEveryType)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        for (size_t count : {0,  1,  2,  3,  7,  8,   9,   15,  16,  17,  31,  32,
                             33, 34, 63, 64, 65, 255, 256, 257, 511, 513, 1000}) {
            SCOPED_TRACE(testing::Message() << "type " << type << " count " << count);
            expect_round_trip(fast_default, smooth(type, count), type);
            expect_round_trip(fast_default, random_bytes(count * elem_size(type), count), type);
        }
}

// The decoder joins and sums in chunks of 1024 (F64) / 2048 (F32) elements, the stride-1
// Delta2 sums two elements a step, strides up to 8 keep each field's sums in registers, longer
// ones go through memory: odd counts and counts around the chunk edges, random residuals.
TEST(FastCodec, RoundTripsEveryPredictorAndStrideAcrossDecodeChunkEdges)
{
    for (const char *pred : {"pred=0", "pred=1", "pred=2", "pred=3"})
        for (unsigned stride : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 17u, 32u}) {
            if (stride > 1 && pred == std::string("pred=0"))
                continue;
            const std::string opt = std::string(pred) + ",stride=" + std::to_string(stride);
            for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32})
                for (size_t count : {1, 5, 40, 1023, 1024, 1025, 2047, 2049, 3001, 8193}) {
                    SCOPED_TRACE(testing::Message()
                                 << opt << " type " << type << " count " << count);
                    expect_round_trip(fast_spec(opt), smooth(type, count), type);
                    expect_round_trip(fast_spec(opt), random_bytes(count * elem_size(type), count),
                                      type);
                }
        }
}

TEST(FastCodec, RoundTripsOneMillionElementsInOneBlock)
{
    expect_round_trip(fast_default, smooth(ZIP_TYPE_F64, 1 << 20), ZIP_TYPE_F64);
    expect_round_trip(fast_default, smooth(ZIP_TYPE_F32, 1 << 20), ZIP_TYPE_F32);
    expect_round_trip(fast_default, random_bytes(1 << 20, 9), ZIP_TYPE_BYTES);
}

TEST(FastCodec, RoundTripsAtEveryAlignment)
{
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES})
        for (size_t src_off = 0; src_off < 8; ++src_off)
            for (size_t dst_off = 0; dst_off < 8; dst_off += 3)
                expect_round_trip(fast_default, smooth(type, 1001), type, src_off, dst_off);
}

TEST(FastCodec, RoundTripsWithEveryPredictorAndAcceleration)
{
    for (const char *opt :
         {"pred=0", "pred=1", "pred=2", "pred=auto", "accel=1", "accel=64", "pred=1,accel=8"})
        for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32}) {
            SCOPED_TRACE(opt);
            expect_round_trip(fast_spec(opt), smooth(type, 5000), type);
            expect_round_trip(fast_spec(opt), as_bytes(special_f64_bits()), type);
        }
}

TEST(FastCodec, CodesAConstantBlockInAFewBytes)
{
    // Every residual is zero: all planes are flagged empty, only the header and x[0] remain.
    std::vector<double> d(8192, 3.25);
    EXPECT_EQ(expect_round_trip(fast_spec("pred=2"), as_bytes(d), ZIP_TYPE_F64), 1u + 2u + 8u);
}

TEST(FastCodec, AutoPredictorKeepsRepeatedValuesAndExtrapolatesSmoothOnes)
{
    auto codec = fast_default();
    Bytes smooth_block = compress(*codec, gauss(1024, 8192), ZIP_TYPE_F64, 65535);
    ASSERT_FALSE(smooth_block.empty());
    EXPECT_EQ(smooth_block[0], 2u); // Delta2
    std::vector<double> steps(8192);
    for (size_t i = 0; i < steps.size(); ++i)
        steps[i] = std::exp(-double(i / 4) * 1e-3); // every value 4 times, as sorted grids
    Bytes steps_block = compress(*codec, as_bytes(steps), ZIP_TYPE_F64, 65535);
    ASSERT_FALSE(steps_block.empty());
    EXPECT_EQ(steps_block[0], 0u); // None
    auto delta2 = zip::make_fast("pred=2");
    EXPECT_LT(steps_block.size(), compress(*delta2, as_bytes(steps), ZIP_TYPE_F64, 65535).size());
    expect_round_trip(fast_default, as_bytes(steps), ZIP_TYPE_F64);
}

TEST(FastCodec, BitPacksPlanesOfSmallValues)
{
    // An integer ramp with random steps 1..3: delta2 residuals are tiny, so the low plane is
    // packed (mode 3) in 2..3 bits a byte and the others are empty. (A periodic step would
    // go to LZ4, which finds the period.)
    std::vector<uint64_t> v(4096);
    uint64_t x = 1;
    Rng rng(5);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = x += 1 + rng.next() % 3;
    auto codec = fast_default();
    Bytes block = compress(*codec, as_bytes(v), ZIP_TYPE_F64, roomy_cap(v.size() * 8));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(plane_mode(block, 0), 3u);
    for (size_t k = 1; k < 8; ++k)
        EXPECT_EQ(plane_mode(block, k), 0u) << "plane " << k;
    EXPECT_LT(block.size(), v.size() / 2);
    expect_round_trip(fast_default, as_bytes(v), ZIP_TYPE_F64);
}

// A residual plane with runs of 1..6 equal bytes of any value: too wide to pack, runs too short
// for LZ4, so it is run-coded (mode 3, coding byte 8: literal mask + literals).
Bytes short_runs_f64(size_t count)
{
    std::vector<uint64_t> v(count);
    Rng rng(7);
    uint64_t level = 0x4000000000000000ull, x = 0;
    size_t left = 0;
    for (size_t i = 0; i < count; ++i) {
        if (left == 0) {
            left = 1 + rng.next() % 6;
            x = rng.next() & 0xff;
        }
        --left;
        // Only byte 3 varies (in runs); delta2 of a constant elsewhere leaves zero planes, but
        // the run byte makes residual byte 3/4 noisy: use None to see the plane as it is.
        v[i] = level | (x << 24);
    }
    return as_bytes(v);
}

TEST(FastCodec, RunCodesPlanesWithShortRuns)
{
    Bytes raw = short_runs_f64(8192);
    auto codec = zip::make_fast("pred=0");
    Bytes block = compress(*codec, raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(plane_mode(block, 3), 3u);
    EXPECT_EQ(plane_mode(block, 0), 0u);
    EXPECT_LT(block.size(), raw.size() / 8);
    expect_round_trip(fast_spec("pred=0"), raw, ZIP_TYPE_F64);
    expect_every_truncation_rejected(fast_spec("pred=0"), short_runs_f64(77), ZIP_TYPE_F64);
    expect_corruption_survived(fast_spec("pred=0"), short_runs_f64(700), ZIP_TYPE_F64, 9);
}

TEST(FastCodec, DecodesAHandMadeRunBlockAndRejectsMaskBitsPastTheEnd)
{
    // 13 doubles, predictor None, planes 7..1 zero, plane 0 run-coded: mask 0x01 0x00 (one
    // literal, at byte 0), literal 0x42 -> every element is 0x42.
    auto codec = fast_default();
    Bytes block = {0x00, 0x03, 0x00, 8, 0x01, 0x00, 0x42};
    Bytes out(13 * 8);
    ASSERT_EQ(codec->decompress(block.data(), block.size(), ZIP_TYPE_F64, out.data(), out.size()),
              ZIP_OK);
    for (size_t i = 0; i < out.size(); ++i)
        EXPECT_EQ(out[i], i % 8 == 0 ? 0x42 : 0) << "byte " << i;
    // Mask bit 15 (element 15 of 13) set, with a literal for it: still corrupt.
    Bytes bad = {0x00, 0x03, 0x00, 8, 0x01, 0x80, 0x42, 0x43};
    EXPECT_EQ(decode_exact(*codec, bad, ZIP_TYPE_F64, 13 * 8), ZIP_E_CORRUPT);
    // A literal too few or too many.
    EXPECT_EQ(
        decode_exact(*codec, Bytes{0x00, 0x03, 0x00, 8, 0x03, 0x00, 0x42}, ZIP_TYPE_F64, 13 * 8),
        ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, Bytes{0x00, 0x03, 0x00, 8, 0x01, 0x00, 0x42, 0x43}, ZIP_TYPE_F64,
                           13 * 8),
              ZIP_E_CORRUPT);
    // Coding bytes other than 1..10 (10, bit planes: tests/unit/test_fast_bitplanes.cpp).
    for (uint8_t coding : {0, 11, 255}) {
        Bytes odd = block;
        odd[3] = coding;
        EXPECT_EQ(decode_exact(*codec, odd, ZIP_TYPE_F64, 13 * 8), ZIP_E_CORRUPT);
    }
}

TEST(FastCodec, DecodesAHandMadeSparseBlock)
{
    // 13 doubles, predictor None, planes 7..1 zero, plane 0 sparse (coding 9): mask 0x05 0x10
    // (bytes 0, 2 and 12 not zero), literals 0x42 0x43 0x44; every other byte is zero.
    auto codec = fast_default();
    Bytes block = {0x00, 0x03, 0x00, 9, 0x05, 0x10, 0x42, 0x43, 0x44};
    Bytes out(13 * 8, 0xaa);
    ASSERT_EQ(codec->decompress(block.data(), block.size(), ZIP_TYPE_F64, out.data(), out.size()),
              ZIP_OK);
    for (size_t i = 0; i < out.size(); ++i) {
        uint8_t want = i == 0 ? 0x42 : i == 16 ? 0x43 : i == 96 ? 0x44 : 0;
        EXPECT_EQ(out[i], want) << "byte " << i;
    }
    // A literal missing, one too many, a mask bit past the end.
    EXPECT_EQ(decode_exact(*codec, Bytes{0x00, 0x03, 0x00, 9, 0x05, 0x10, 0x42, 0x43}, ZIP_TYPE_F64,
                           13 * 8),
              ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, Bytes{0x00, 0x03, 0x00, 9, 0x05, 0x10, 0x42, 0x43, 0x44, 0},
                           ZIP_TYPE_F64, 13 * 8),
              ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, Bytes{0x00, 0x03, 0x00, 9, 0x05, 0x30, 0x42, 0x43, 0x44, 0x45},
                           ZIP_TYPE_F64, 13 * 8),
              ZIP_E_CORRUPT);
}

TEST(FastCodec, CompressesRepetitiveBytesWithLz4)
{
    Bytes b(65536);
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = uint8_t("ompi-zip compresses MPI messages "[i % 33]);
    size_t len = expect_round_trip(fast_default, b, ZIP_TYPE_BYTES);
    EXPECT_LT(len, b.size() / 20);
}

TEST(FastCodec, NeverWritesPastCapAndFailsCleanlyWhenTooSmall)
{
    expect_capacity_respected(fast_default, smooth(ZIP_TYPE_F64, 1000), ZIP_TYPE_F64);
    expect_capacity_respected(fast_default, gauss(64, 1000), ZIP_TYPE_F64);
    expect_capacity_respected(fast_default, random_bytes(4001, 5), ZIP_TYPE_BYTES);
    expect_capacity_respected(fast_default, smooth(ZIP_TYPE_F32, 999), ZIP_TYPE_F32);
}

TEST(FastCodec, RejectsEveryTruncationOfABlock)
{
    expect_every_truncation_rejected(fast_default, smooth(ZIP_TYPE_F64, 61), ZIP_TYPE_F64);
    expect_every_truncation_rejected(fast_default, gauss(32, 700), ZIP_TYPE_F64);
    expect_every_truncation_rejected(fast_default, smooth(ZIP_TYPE_F32, 61), ZIP_TYPE_F32);
    Bytes text(999);
    for (size_t i = 0; i < text.size(); ++i)
        text[i] = uint8_t(i % 17);
    expect_every_truncation_rejected(fast_default, text, ZIP_TYPE_BYTES);
}

TEST(FastCodec, SurvivesBitFlipsAndGarbageWithoutStrayAccess)
{
    expect_corruption_survived(fast_default, smooth(ZIP_TYPE_F64, 300), ZIP_TYPE_F64, 1);
    expect_corruption_survived(fast_default, gauss(64, 2000), ZIP_TYPE_F64, 4);
    expect_corruption_survived(fast_default, smooth(ZIP_TYPE_F32, 301), ZIP_TYPE_F32, 2);
    expect_corruption_survived(fast_default, random_bytes(1003, 3), ZIP_TYPE_BYTES, 3);
}

TEST(FastCodec, RejectsBlocksDecodedWithTheWrongSizeOrType)
{
    auto codec = fast_default();
    Bytes raw = gauss(64, 512);
    Bytes block = compress(*codec, raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_F64, raw.size() - 8), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_F64, raw.size() + 8), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_F64, raw.size() + 1), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_BYTES, raw.size()), ZIP_E_CORRUPT);
}

TEST(FastCodec, CodesEachBlockIndependently)
{
    expect_blocks_independent(fast_default, ZIP_TYPE_F64);
    expect_blocks_independent(fast_default, ZIP_TYPE_F32);
    expect_blocks_independent(fast_default, ZIP_TYPE_BYTES);
}

TEST(FastCodec, IsDeterministicAcrossManyBlocksOnOneInstance)
{
    // LZ4's stream state is reused without clearing; its output must not depend on history.
    auto warm = fast_default();
    Bytes raw = gauss(1024, 8192);
    Bytes first = compress(*warm, raw, ZIP_TYPE_F64, raw.size() - 1);
    for (int i = 0; i < 300; ++i)
        compress(*warm, random_bytes(65536, uint64_t(i)), ZIP_TYPE_BYTES, 65535);
    EXPECT_EQ(compress(*warm, raw, ZIP_TYPE_F64, raw.size() - 1), first);
    EXPECT_EQ(compress(*fast_default(), raw, ZIP_TYPE_F64, raw.size() - 1), first);
}

TEST(FastCodec, ParsesOptionsAndPacksThemIntoTheParam)
{
    constexpr uint32_t kFormat2 = 1u << 24, kFormat3 = kFormat2 | (1u << 25),
                       kFormat4 = kFormat3 | (1u << 26);
    EXPECT_EQ(fast_default()->param(), kFormat4);
    EXPECT_GT(fast_default()->memory_bytes(), 65536u);
    for (const char *spec : {"accel=8,pred=1", "pred=3,stride=5", "pred=2,stride=32", "pred=0"}) {
        auto c = zip::make_fast(spec);
        uint32_t p = c->param();
        EXPECT_NE(p, kFormat4) << spec;
        auto again = zip::make_fast(p);
        ASSERT_NE(again, nullptr) << spec;
        EXPECT_EQ(again->param(), p) << spec;
    }
    EXPECT_THROW(zip::make_fast("accel=0"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("accel=65"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("pred=4"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("pred=delta"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("stride=0,pred=1"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("stride=33,pred=1"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("stride=4"), zip::SpecError); // stride needs a fixed predictor
    EXPECT_EQ(zip::make_fast("pred=auto")->param(), kFormat4);
    // Parameters of the first format (frames of earlier releases) are accepted and given back.
    for (uint32_t param :
         {0u, 8u, 0x100u, 0x200u, 0x340u, kFormat2 | 0x400u | (5u << 11), kFormat2,
          kFormat3 | 0x400u | (5u << 11), kFormat3, kFormat4 | 0x400u | (5u << 11)}) {
        auto made = zip::make_fast(param);
        ASSERT_NE(made, nullptr) << param;
        EXPECT_EQ(made->param(), param);
    }
    EXPECT_THROW(zip::make_fast("level=3"), zip::SpecError);
    EXPECT_THROW(zip::make_fast("accel"), zip::SpecError);
    EXPECT_NE(zip::make_fast(0u), nullptr);
    EXPECT_EQ(zip::make_fast(65u), nullptr);                             // accel out of range
    EXPECT_EQ(zip::make_fast(1u << 10), nullptr);                        // unknown bits (format 1)
    EXPECT_EQ(zip::make_fast(kFormat2 | (1u << 20)), nullptr);           // unknown bits (format 2)
    EXPECT_EQ(zip::make_fast(kFormat2 | (5u << 8)), nullptr);            // predictor 4
    EXPECT_EQ(zip::make_fast(kFormat2 | (33u << 11) | 0x200u), nullptr); // stride 33
    EXPECT_EQ(zip::make_fast(kFormat2 | (3u << 11)), nullptr);           // stride without predictor
    EXPECT_EQ(zip::make_fast(0xffffffffu), nullptr);
}

namespace
{
using zip::fast_detail::Kernels;

// A plane's mask coding (runs or sparse: `encode` and `decode` name the kernels) at every SIMD
// level this CPU has (AVX-512 VBMI2 and BMI2), each against the portable one: the same bytes,
// nothing written past them, a one-byte-short output refused, and the plane back.
void check_mask_coding(const Bytes &plane, size_t literals,
                       zip::fast_detail::EncodeRunsFn Kernels::*encode,
                       zip::fast_detail::DecodeRunsFn Kernels::*decode)
{
    using namespace zip::fast_detail;
    const Kernels &plain = scalar_kernels();
    const size_t count = plane.size(), size = runs_size(count, literals);
    Bytes eb(size + 1, 0xee);
    EXPECT_EQ((plain.*encode)(plane.data(), count, eb.data(), size), size);
    for (const Kernels *k : {&plain, &kernels(), &kernels_without_avx512()}) {
        SCOPED_TRACE(k == &plain       ? "portable kernels"
                     : k == &kernels() ? "best kernels"
                                       : "kernels without AVX-512");
        Bytes ea(size + 1, 0xee);
        EXPECT_EQ((k->*encode)(plane.data(), count, ea.data(), size), size);
        EXPECT_EQ(ea, eb);
        EXPECT_EQ(ea[size], 0xee) << "wrote past the end";
        if (literals > 0) { // one byte short: refused, nothing written past it
            Bytes short_out(size, 0xee);
            EXPECT_EQ((k->*encode)(plane.data(), count, short_out.data(), size - 1), 0u);
            EXPECT_EQ(short_out[size - 1], 0xee) << "wrote past the end";
        }
        const uint8_t *lits = eb.data() + (count + 7) / 8;
        Bytes back(count + 1, 0xdd);
        (k->*decode)(eb.data(), lits, lits + literals, count, back.data());
        EXPECT_EQ(Bytes(back.begin(), back.end() - 1), plane);
        EXPECT_EQ(back[count], 0xdd) << "wrote past the end";
    }
}

} // namespace

TEST(FastKernels, SimdAndScalarSplitJoinPackAndRunsAgree)
{
    using namespace zip::fast_detail;
    const Kernels &best = kernels(), &plain = scalar_kernels();
    for (size_t count : {0, 1, 2, 3, 31, 32, 33, 34, 63, 64, 65, 66, 127, 128, 129, 1000, 4099}) {
        Bytes src = random_bytes(count * 8 + 8, count);
        for (unsigned pred = 0; pred < 4; ++pred)
            for (size_t width : {4, 8})
                for (size_t stride : {1, 2, 3, 5, 8, 17, 32}) {
                    if (stride > 1 && pred == kPredNone)
                        continue;
                    SCOPED_TRACE(testing::Message() << "count " << count << " pred " << pred
                                                    << " width " << width << " stride " << stride);
                    const uint8_t *in = src.data() + 1; // misaligned on purpose
                    Bytes b(count * width);
                    uint64_t or_b = width == 8 ? plain.split8(in, count, pred, stride, b.data())
                                               : plain.split4(in, count, pred, stride, b.data());
                    // Every SIMD level this CPU has; 64 guard bytes after the planes.
                    Bytes a;
                    for (const Kernels *k : {&kernels_without_avx512(), &best}) {
                        a.assign(count * width + 64, 0xcd);
                        uint64_t or_a = width == 8 ? k->split8(in, count, pred, stride, a.data())
                                                   : k->split4(in, count, pred, stride, a.data());
                        EXPECT_EQ(Bytes(a.begin() + count * width, a.end()), Bytes(64, 0xcd))
                            << "wrote past the planes";
                        a.resize(count * width);
                        EXPECT_EQ(a, b) << (k == &best ? "best" : "without AVX-512");
                        EXPECT_EQ(or_a, or_b) << (k == &best ? "best" : "without AVX-512");
                    }
                    const uint8_t *planes[8];
                    for (size_t k = 0; k < width; ++k)
                        planes[k] = a.data() + k * count;
                    // One byte before and 64 after the elements: a join writes neither.
                    Bytes ja(count * width + 65, 0xab), jb(count * width + 65, 0xab);
                    for (bool unzig : {false, true}) {
                        if (width == 8) {
                            plain.join8(planes, count, unzig, jb.data() + 1);
                        } else {
                            plain.join4(planes, count, unzig, jb.data() + 1);
                        }
                        for (const Kernels *k : {&kernels_without_avx512(), &best}) {
                            if (width == 8) {
                                k->join8(planes, count, unzig, ja.data() + 1);
                            } else {
                                k->join4(planes, count, unzig, ja.data() + 1);
                            }
                            EXPECT_EQ(ja, jb) << (k == &best ? "best" : "without AVX-512");
                        }
                        if (pred == 0 && !unzig) { // split then join is the identity
                            EXPECT_EQ(0, std::memcmp(ja.data() + 1, in, count * width));
                        }
                    }
                }
        for (unsigned bits = 1; bits < 8; ++bits) {
            Bytes plane(count);
            for (size_t i = 0; i < count; ++i)
                plane[i] = uint8_t(src[i] & ((1u << bits) - 1));
            Bytes pa(packed_size(count, bits)), pb(packed_size(count, bits));
            best.pack_bits(plane.data(), count, bits, pa.data());
            plain.pack_bits(plane.data(), count, bits, pb.data());
            EXPECT_EQ(pa, pb) << "bits " << bits;
            Bytes back(count);
            best.unpack_bits(pa.data(), count, bits, back.data());
            EXPECT_EQ(back, plane) << "bits " << bits;
            plain.unpack_bits(pa.data(), count, bits, back.data());
            EXPECT_EQ(back, plane) << "bits " << bits;
        }
        for (unsigned run : {1u, 2u, 5u, 9u, 100u}) {
            SCOPED_TRACE(testing::Message() << "count " << count << " run " << run);
            Bytes plane(count);
            size_t literals = 0;
            for (size_t i = 0; i < count; ++i) {
                plane[i] = i % run == 0 ? src[i] : plane[i - 1];
                literals += plane[i] != (i ? plane[i - 1] : 0);
            }
            check_mask_coding(plane, literals, &Kernels::encode_runs, &Kernels::decode_runs);
        }
        for (unsigned run : {1u, 3u, 4u, 5u, 40u}) {
            // Plane statistics: SIMD against the portable kernel against a plain count.
            Bytes plane(count);
            for (size_t i = 0; i < count; ++i)
                plane[i] = i / run % 3 == 0 ? 0 : uint8_t(src[i / run] & 0x3f);
            size_t literals = 0, nonzero = 0, in_runs = 0;
            unsigned any = 0;
            for (size_t i = 0; i < count; ++i) {
                literals += plane[i] != (i ? plane[i - 1] : 0);
                nonzero += plane[i] != 0;
                in_runs += i >= 3 && plane[i] == plane[i - 1] && plane[i] == plane[i - 2] &&
                           plane[i] == plane[i - 3];
                any |= plane[i];
            }
            for (const Kernels *k : {&best, &plain}) {
                PlaneStats st = k->plane_stats(plane.data(), count);
                EXPECT_EQ(st.literals, literals) << "run " << run;
                EXPECT_EQ(st.nonzero, nonzero) << "run " << run;
                EXPECT_EQ(st.in_runs, in_runs) << "run " << run;
                EXPECT_EQ(st.bits, any ? 32u - unsigned(__builtin_clz(any)) : 0u);
            }
        }
        for (unsigned every : {1u, 2u, 3u, 7u, 64u, 1000u}) {
            SCOPED_TRACE(testing::Message() << "count " << count << " nonzero every " << every);
            Bytes plane(count);
            size_t literals = 0;
            for (size_t i = 0; i < count; ++i) {
                plane[i] = i % every == 0 ? src[i] : 0;
                literals += plane[i] != 0;
            }
            check_mask_coding(plane, literals, &Kernels::encode_sparse, &Kernels::decode_sparse);
        }
    }
}

TEST(FastTransform, SimdAndPortableCostsChooseTheSame)
{
    using namespace zip::fast_detail;
    for (const char *set : {"records-3", "records-5", "records-8", "gauss-256", "heat3d", "random",
                            "complex-decay", "keys-i32", "ids-i64", "sincos-256", "special"})
        for (size_t count : {80, 81, 100, 1000, 8191})
            for (size_t width : {4, 8}) {
                SCOPED_TRACE(testing::Message() << set << " count " << count << " width " << width);
                Bytes raw =
                    ziptest::dataset_bytes(set, width == 8 ? ZIP_TYPE_F64 : ZIP_TYPE_F32, count, 3);
                if (std::string(set).find("-i") != std::string::npos)
                    raw = ziptest::dataset_bytes(set, ZIP_TYPE_BYTES, count * width, 3);
                Transform got = width == 8
                                    ? choose_transform<uint64_t>(raw.data(), count).transform
                                    : choose_transform<uint32_t>(raw.data(), count).transform;
                if (got.pred == kPredNone && got.stride == 1)
                    continue; // the exact-repeat rule, before any cost is computed
                Transform want =
                    width == 8 ? choose_transform_portable<uint64_t>(raw.data(), count).transform
                               : choose_transform_portable<uint32_t>(raw.data(), count).transform;
                EXPECT_EQ(got.byte(), want.byte());
            }
}

// The decoder's running sums, SIMD (AVX-512 where the CPU has it) against the one-at-a-time
// loop: every predictor, every stride the format allows up to 10, residuals of every size
// (wrapping sums included), blocks undone in one call or in decode chunks of odd lengths.
template <class U> void expect_running_sums_agree(uint64_t seed)
{
    using namespace zip::fast_detail;
    std::mt19937_64 rng(seed);
    const size_t count = 1000;
    Bytes residuals(count * sizeof(U)), first(64 * sizeof(U));
    for (auto &b : residuals)
        b = static_cast<uint8_t>(rng());
    for (size_t k = 0; k < count; k += 3) // small residuals as well as wide ones
        residuals[k * sizeof(U)] &= 0x0f;
    for (auto &b : first)
        b = static_cast<uint8_t>(rng());
    for (unsigned pred : {kPredDelta1, kPredDelta2, kPredXor})
        for (size_t stride = 1; stride <= 10; ++stride)
            for (size_t chunk : {count, size_t{7}, size_t{33}, size_t{256}}) {
                SCOPED_TRACE(testing::Message() << "width " << sizeof(U) << " pred " << pred
                                                << " stride " << stride << " chunk " << chunk);
                Transform t{pred, stride};
                Bytes simd = residuals, portable = residuals;
                for (size_t from = 0; from < count; from += chunk) {
                    size_t n = std::min(chunk, count - from);
                    unpredict<U>(simd.data(), from, n, t, first.data());
                    unpredict_portable<U>(portable.data(), from, n, t, first.data());
                }
                ASSERT_EQ(simd, portable);
                ASSERT_NE(simd, residuals);
            }
}

TEST(FastTransform, SimdAndPortableRunningSumsAgree)
{
    expect_running_sums_agree<uint64_t>(11);
    expect_running_sums_agree<uint32_t>(12);
}

TEST(FastTransform, FindsTheRecordLengthOfInterleavedFields)
{
    using namespace zip::fast_detail;
    for (size_t fields : {3, 5, 8}) {
        std::string set = "records-" + std::to_string(fields);
        Bytes raw = ziptest::dataset_bytes(set, ZIP_TYPE_F64, 8192);
        Transform t = choose_transform<uint64_t>(raw.data(), 8192).transform;
        EXPECT_EQ(t.stride, fields) << set;
        EXPECT_NE(t.pred, kPredNone) << set;
    }
    Transform smooth = choose_transform<uint64_t>(gauss(1024, 8192).data(), 8192).transform;
    EXPECT_EQ(smooth.byte(), Transform({kPredDelta2, 1}).byte());
}

// Noise around a level (CG vectors, random coordinates): Delta1 leaves ~0.8 bits per element
// fewer than Delta2 (variance 2 vs 6 times the noise's), which is less than 1/32 of ~45-bit
// residuals; the choice's margin is at most half a bit per sampled element, so Delta1 wins.
TEST(FastTransform, PicksDelta1OnNoiseAroundALevel)
{
    using namespace zip::fast_detail;
    std::vector<double> d(8192);
    uint64_t state = 12345;
    for (double &v : d) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = 1.0 + double(state >> 11) * 0x1p-53 * 0x1p-8;
    }
    Bytes raw = as_bytes(d);
    Transform t = choose_transform<uint64_t>(raw.data(), d.size()).transform;
    EXPECT_EQ(t.byte(), Transform({kPredDelta1, 1}).byte());
    Transform portable = choose_transform_portable<uint64_t>(raw.data(), d.size()).transform;
    EXPECT_EQ(portable.byte(), t.byte());
}

TEST(FastCodec, CodesRecordLikeBytesAsWords)
{
    // Untyped records of doubles (MPI_BYTE structs): the block is coded as 8-byte words (bit 7
    // of the transform byte), far smaller than as one byte plane.
    Bytes raw = ziptest::dataset_bytes("records-5", ZIP_TYPE_BYTES, 65536);
    auto codec = fast_default();
    Bytes block = compress(*codec, raw, ZIP_TYPE_BYTES, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(block[0] & 0x80, 0x80);
    EXPECT_EQ((block[0] & 0x7f) >> 2, 4u); // stride 5
    EXPECT_LT(block.size(), raw.size() / 2);
    expect_round_trip(fast_default, raw, ZIP_TYPE_BYTES);
    // The words flag on a block whose size is not a whole number of words is corrupt.
    EXPECT_EQ(decode_exact(*codec, block, ZIP_TYPE_BYTES, raw.size() - 4), ZIP_E_CORRUPT);
    expect_corruption_survived(
        fast_default, ziptest::dataset_bytes("records-3", ZIP_TYPE_BYTES, 4096), ZIP_TYPE_BYTES, 4);
}

TEST(FastCodec, StoresIncompressibleBytesAsOnePlaneOrDeclines)
{
    // LZ4 fails its probe on noise: with room the block is a raw plane, without it the codec
    // declines (the frame stores the block raw) instead of running LZ4 over all of it.
    Bytes raw = random_bytes(65536, 17);
    auto codec = fast_default();
    Bytes roomy = compress(*codec, raw, ZIP_TYPE_BYTES, roomy_cap(raw.size()));
    ASSERT_EQ(roomy.size(), raw.size() + 2);
    EXPECT_EQ(roomy[0], 0u);
    EXPECT_EQ(roomy[1], 1u); // raw plane
    EXPECT_TRUE(compress(*codec, raw, ZIP_TYPE_BYTES, raw.size() - 1).empty());
}
