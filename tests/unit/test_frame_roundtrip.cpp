// Every lossless codec returns every data set bit for bit, at every size, from and to
// misaligned buffers, through the public C API and two separate contexts (sender, receiver).
#include <gtest/gtest.h>

#include <tuple>

#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;
using ziptest::round_trip;

const char *const kLosslessSpecs[] = {
    "fast", "fpc",  "fpc:bits=8", "dfcm",     "xorlz",
    "lz4",  "zstd", "raw",        "temporal", "temporal:inner=fpc"};
const char *const kDatasets[] = {"linear",    "gauss-256",   "gauss-256-sorted", "sincos-256",
                                 "heat3d",    "heat3d-halo", "random",           "special",
                                 "records-3", "records-5",   "records-8",        "complex-decay"};
const size_t kSizes[] = {0, 1, 2, 7, 1000, 70000};

using Case = std::tuple<const char *, const char *, size_t, zip_elem_type_t>;

class LosslessRoundTrip : public ::testing::TestWithParam<Case>
{
};

TEST_P(LosslessRoundTrip, IsBitExactFromMisalignedBuffers)
{
    auto [spec, dataset, n, type] = GetParam();
    auto src = dataset_bytes(dataset, type, n);
    for (size_t offset : {size_t(0), size_t(1), size_t(5)}) {
        auto r = round_trip(spec, type, src, offset, (offset + 2) % 8);
        ASSERT_EQ(r.compress_status, ZIP_OK) << spec << " " << dataset << " n=" << n;
        ASSERT_EQ(r.decompress_status, ZIP_OK) << spec << " " << dataset << " n=" << n;
        ASSERT_EQ(r.output.size(), src.size());
        ASSERT_TRUE(r.output == src)
            << spec << " " << dataset << " n=" << n << " offset=" << offset;
        EXPECT_LE(r.frame_bytes, zip_compress_bound(src.size()));
    }
}

std::string case_name(const ::testing::TestParamInfo<Case> &info)
{
    auto [spec, dataset, n, type] = info.param;
    std::string s = std::string(spec) + "_" + dataset + "_" + std::to_string(n) + "_" +
                    (type == ZIP_TYPE_F64   ? "f64"
                     : type == ZIP_TYPE_F32 ? "f32"
                     : type == ZIP_TYPE_I32 ? "i32"
                     : type == ZIP_TYPE_I64 ? "i64"
                                            : "bytes");
    for (char &c : s)
        if (!isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Doubles, LosslessRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kLosslessSpecs),
                                            ::testing::ValuesIn(kDatasets),
                                            ::testing::ValuesIn(kSizes),
                                            ::testing::Values(ZIP_TYPE_F64)),
                         case_name);

INSTANTIATE_TEST_SUITE_P(FloatsAndBytes, LosslessRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kLosslessSpecs),
                                            ::testing::Values("gauss-256", "random", "special"),
                                            ::testing::Values(size_t(0), size_t(1), size_t(7),
                                                              size_t(1001), size_t(70001)),
                                            ::testing::Values(ZIP_TYPE_F32, ZIP_TYPE_BYTES)),
                         case_name);

// Integers: the integer data sets and, as integers, doubles and noise.
INSTANTIATE_TEST_SUITE_P(Integers, LosslessRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kLosslessSpecs),
                                            ::testing::Values("keys-i32", "keys-sorted-i32",
                                                              "indices-i32", "ids-i64", "gauss-256",
                                                              "random"),
                                            ::testing::Values(size_t(0), size_t(1), size_t(7),
                                                              size_t(1001), size_t(70001)),
                                            ::testing::Values(ZIP_TYPE_I32, ZIP_TYPE_I64)),
                         case_name);

// One million elements: several blocks, the last one partial.
INSTANTIATE_TEST_SUITE_P(Million, LosslessRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kLosslessSpecs),
                                            ::testing::Values("sincos-1024", "random", "special"),
                                            ::testing::Values(size_t(1) << 20),
                                            ::testing::Values(ZIP_TYPE_F64)),
                         case_name);

TEST(FrameRoundTrip, SmoothDataShrinksWithEveryFloatCodec)
{
    auto src = dataset_bytes("gauss-512-sorted", ZIP_TYPE_F64, 1 << 16);
    for (const char *spec : {"fast", "fpc", "dfcm", "xorlz"}) {
        auto r = round_trip(spec, ZIP_TYPE_F64, src);
        ASSERT_EQ(r.decompress_status, ZIP_OK);
        EXPECT_LT(r.frame_bytes * 2, src.size()) << spec << " should halve sorted smooth data";
    }
}

TEST(FrameRoundTrip, RandomDataIsStoredRawWithSmallOverhead)
{
    auto src = dataset_bytes("random", ZIP_TYPE_F64, 1 << 17);
    for (const char *spec : {"fast", "fpc", "dfcm", "xorlz", "lz4", "zstd"}) {
        auto frame = ziptest::make_frame(spec, ZIP_TYPE_F64, src);
        zip_frame_info_t info;
        ASSERT_EQ(zip_frame_inspect(frame.data(), frame.size(), &info), ZIP_OK);
        EXPECT_TRUE(info.stored_raw) << spec;
        EXPECT_LE(frame.size(), src.size() + src.size() / 1000 + 64) << spec;
    }
}

TEST(FrameRoundTrip, DestinationTooSmallIsReportedNotOverrun)
{
    auto src = dataset_bytes("random", ZIP_TYPE_F64, 1000);
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    ASSERT_NE(ctx, nullptr);
    std::vector<uint8_t> dst(src.size() / 2 + 16, 0xAB);
    size_t len = 0;
    EXPECT_EQ(
        zip_compress(ctx, 0, ZIP_TYPE_F64, src.data(), 1000, dst.data(), src.size() / 2, &len),
        ZIP_E_CAPACITY);
    for (size_t i = src.size() / 2; i < dst.size(); ++i)
        ASSERT_EQ(dst[i], 0xAB) << "wrote past dst_cap at " << i;
    zip_ctx_destroy(ctx);
}

TEST(FrameRoundTrip, DecompressRejectsTooSmallOutputBuffer)
{
    auto src = dataset_bytes("linear", ZIP_TYPE_F64, 1000);
    auto frame = ziptest::make_frame("fpc", ZIP_TYPE_F64, src);
    zip_ctx_t *ctx = zip_ctx_create("fpc", nullptr);
    std::vector<uint8_t> out(src.size() - 8);
    size_t len = 0;
    EXPECT_EQ(zip_decompress(ctx, 0, frame.data(), frame.size(), out.data(), out.size(), &len),
              ZIP_E_CAPACITY);
    zip_ctx_destroy(ctx);
}

TEST(FrameRoundTrip, AnyContextDecodesAnyCodecsFrame)
{
    auto src = dataset_bytes("sincos-256", ZIP_TYPE_F64, 5000);
    zip_ctx_t *receiver = zip_ctx_create("lz4", nullptr);
    for (const char *spec : {"fast", "fpc", "dfcm", "xorlz", "zstd"}) {
        auto frame = ziptest::make_frame(spec, ZIP_TYPE_F64, src);
        std::vector<uint8_t> out(src.size());
        size_t len = 0;
        ASSERT_EQ(
            zip_decompress(receiver, 0, frame.data(), frame.size(), out.data(), out.size(), &len),
            ZIP_OK)
            << spec;
        EXPECT_EQ(out, src) << spec;
    }
    zip_ctx_destroy(receiver);
}

TEST(FrameRoundTrip, SmallBlocksSplitTheFrame)
{
    auto src = dataset_bytes("gauss-256", ZIP_TYPE_F64, 10000);
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    ASSERT_EQ(zip_ctx_set_block_size(ctx, 4096), ZIP_OK);
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t len = 0;
    ASSERT_EQ(
        zip_compress(ctx, 0, ZIP_TYPE_F64, src.data(), 10000, frame.data(), frame.size(), &len),
        ZIP_OK);
    zip_frame_info_t info;
    ASSERT_EQ(zip_frame_inspect(frame.data(), len, &info), ZIP_OK);
    EXPECT_EQ(info.block_count, (80000u + 4095) / 4096);
    EXPECT_EQ(info.count, 10000u);
    std::vector<uint8_t> out(src.size());
    size_t raw = 0;
    ASSERT_EQ(zip_decompress(ctx, 0, frame.data(), len, out.data(), out.size(), &raw), ZIP_OK);
    EXPECT_EQ(out, src);
    zip_ctx_destroy(ctx);
}

TEST(CodecSpec, UnknownCodecIsRejectedWithAReason)
{
    zip_status_t err = ZIP_OK;
    EXPECT_EQ(zip_ctx_create("gzip", &err), nullptr);
    EXPECT_EQ(err, ZIP_E_ARG);
    EXPECT_NE(std::string(zip_spec_error()).find("unknown codec"), std::string::npos);
    EXPECT_EQ(zip_ctx_create("fpc:bits=99", &err), nullptr);
    EXPECT_EQ(zip_ctx_create("trunc:0+fast", &err), nullptr);
    EXPECT_EQ(zip_ctx_create("trunc:4+f32+fast", &err), nullptr);
    EXPECT_EQ(zip_ctx_create("", &err), nullptr);
}

} // namespace

namespace
{

TEST(BlockChecks, UncheckedFramesRoundTripAndStillCheckHeaderAndTable)
{
    auto src = dataset_bytes("heat3d", ZIP_TYPE_F64, 20000);
    zip_ctx_t *enc = zip_ctx_create("fast", nullptr);
    zip_ctx_t *dec = zip_ctx_create("fpc", nullptr); // the frame's flag decides, not the context
    ASSERT_EQ(zip_ctx_set_block_checks(enc, 0), ZIP_OK);
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t len = 0, raw = 0;
    ASSERT_EQ(
        zip_compress(enc, 0, ZIP_TYPE_F64, src.data(), 20000, frame.data(), frame.size(), &len),
        ZIP_OK);
    frame.resize(len);
    std::vector<uint8_t> out(src.size());
    ASSERT_EQ(zip_decompress(dec, 0, frame.data(), len, out.data(), out.size(), &raw), ZIP_OK);
    EXPECT_EQ(out, src);
    for (size_t byte = 0; byte < 52 + 8 * 3; ++byte) { // header and block table
        auto bad = frame;
        bad[byte] ^= 0x10;
        EXPECT_NE(zip_decompress(dec, 0, bad.data(), len, out.data(), out.size(), &raw), ZIP_OK)
            << "byte " << byte;
    }
    zip_ctx_destroy(enc);
    zip_ctx_destroy(dec);
}

} // namespace
