// Damaged frames return an error code and never read or write out of bounds (this suite runs
// under ASan/UBSan in CI). Forged frames, whose checks were recomputed after the damage, reach
// the block decoders themselves.
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "codec.hpp"
#include "frame_format.hpp"
#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;
using ziptest::make_frame;

const char *const kSpecs[] = {"fast", "fpc",  "dfcm",     "xorlz",
                              "lz4",  "zstd", "temporal", "f32+fast"};

// Smooth data, and records of several fields with zeros (strided predictors, sparse planes).
const char *const kCorruptionData[] = {"gauss-256", "records-5"};

class FrameCorruption : public ::testing::TestWithParam<std::tuple<const char *, const char *>>
{
  protected:
    void SetUp() override
    {
        auto [spec, dataset] = GetParam();
        src_ = dataset_bytes(dataset, ZIP_TYPE_F64, 600);
        zip_ctx_t *enc = zip_ctx_create(spec, nullptr);
        ASSERT_NE(enc, nullptr);
        ASSERT_EQ(zip_ctx_set_block_size(enc, 1024), ZIP_OK); // several blocks in a small frame
        frame_.resize(zip_compress_bound(src_.size()));
        size_t len = 0;
        ASSERT_EQ(zip_compress(enc, 1, ZIP_TYPE_F64, src_.data(), 600, frame_.data(), frame_.size(),
                               &len),
                  ZIP_OK);
        frame_.resize(len);
        zip_ctx_destroy(enc);
        dec_ = zip_ctx_create("fast", nullptr);
    }
    void TearDown() override { zip_ctx_destroy(dec_); }

    zip_status_t decode(const std::vector<uint8_t> &frame)
    {
        // An exact-size heap copy so that ASan sees any read past the end.
        std::unique_ptr<uint8_t[]> in(new uint8_t[frame.size() + 1]);
        std::copy(frame.begin(), frame.end(), in.get());
        std::unique_ptr<uint8_t[]> out(new uint8_t[src_.size()]);
        size_t len = 0;
        return zip_decompress(dec_, 1, in.get(), frame.size(), out.get(), src_.size(), &len);
    }

    std::vector<uint8_t> src_, frame_;
    zip_ctx_t *dec_ = nullptr;
};

TEST_P(FrameCorruption, IntactFrameDecodes)
{
    EXPECT_EQ(decode(frame_), ZIP_OK);
}

TEST_P(FrameCorruption, EveryTruncationIsAnError)
{
    for (size_t len = 0; len < frame_.size(); ++len) {
        std::vector<uint8_t> cut(frame_.begin(), frame_.begin() + len);
        zip_status_t s = decode(cut);
        ASSERT_NE(s, ZIP_OK) << "truncated to " << len << " of " << frame_.size();
    }
}

TEST_P(FrameCorruption, EverySingleBitFlipIsDetected)
{
    for (size_t byte = 0; byte < frame_.size(); ++byte) {
        std::vector<uint8_t> bad = frame_;
        bad[byte] ^= uint8_t(1u << (byte % 8));
        ASSERT_NE(decode(bad), ZIP_OK) << "flip in byte " << byte;
    }
}

TEST_P(FrameCorruption, TrailingGarbageIsRejected)
{
    std::vector<uint8_t> longer = frame_;
    longer.push_back(0);
    EXPECT_EQ(decode(longer), ZIP_E_CORRUPT);
}

// Damage a block, then recompute every check so that the damage reaches the block decoder.
TEST_P(FrameCorruption, ForgedBlocksNeverCrashTheDecoder)
{
    zip::FrameHeader h;
    uint64_t total = 0;
    const char *why = nullptr;
    ASSERT_EQ(zip::parse_frame_header(frame_.data(), frame_.size(), &h, &total, &why), ZIP_OK);
    std::mt19937_64 rng(42);
    const size_t body = zip::kFrameHeaderBytes + zip::block_table_bytes(h.block_count);
    for (int trial = 0; trial < 2000 && frame_.size() > body; ++trial) {
        std::vector<uint8_t> bad = frame_;
        int flips = 1 + int(rng() % 8);
        for (int f = 0; f < flips; ++f)
            bad[body + rng() % (bad.size() - body)] ^= uint8_t(1u << (rng() % 8));
        if (trial % 3 == 0) // also random bytes, not only flips
            bad[body + rng() % (bad.size() - body)] = uint8_t(rng());
        size_t off = body;
        for (uint32_t i = 0; i < h.block_count; ++i) {
            zip::BlockEntry e = zip::read_block_entry(bad.data() + zip::kFrameHeaderBytes, i);
            e.check = zip::check32(bad.data() + off, e.stored_bytes);
            zip::write_block_entry(bad.data() + zip::kFrameHeaderBytes, i, e);
            off += e.stored_bytes;
        }
        zip::write_frame_header(h, bad.data());
        zip_status_t s = decode(bad);
        EXPECT_TRUE(s == ZIP_OK || s == ZIP_E_CORRUPT || s == ZIP_E_STATE) << zip_status_str(s);
    }
}

INSTANTIATE_TEST_SUITE_P(Codecs, FrameCorruption,
                         ::testing::Combine(::testing::ValuesIn(kSpecs),
                                            ::testing::ValuesIn(kCorruptionData)),
                         [](const auto &info) {
                             std::string s = std::string(std::get<0>(info.param)) + "_" +
                                             std::get<1>(info.param);
                             for (char &c : s)
                                 if (!isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return s;
                         });

// Garbage handed straight to each block decoder, at every length up to 64 bytes and some more.
TEST(BlockDecoders, RandomInputNeverCrashes)
{
    std::mt19937_64 rng(7);
    for (const char *name : {"fast", "fpc", "dfcm", "xorlz", "lz4", "zstd"}) {
        auto codec = zip::make_codec(name, {});
        for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES}) {
            for (size_t len = 1; len < 200; ++len) {
                std::unique_ptr<uint8_t[]> in(new uint8_t[len]);
                for (size_t i = 0; i < len; ++i)
                    in[i] = uint8_t(rng());
                size_t raw_n = 8 * (1 + rng() % 64);
                std::unique_ptr<uint8_t[]> out(new uint8_t[raw_n]);
                zip_status_t s = codec->decompress(in.get(), len, type, out.get(), raw_n);
                EXPECT_TRUE(s == ZIP_OK || s == ZIP_E_CORRUPT) << name;
            }
        }
    }
}

TEST(FrameHeader, WrongMagicIsCorruptAndNewerVersionIsUnsupported)
{
    auto frame = make_frame("fast", ZIP_TYPE_F64, dataset_bytes("linear", ZIP_TYPE_F64, 100));
    zip_frame_info_t info;
    auto bad = frame;
    bad[0] ^= 0xFF;
    EXPECT_EQ(zip_frame_inspect(bad.data(), bad.size(), &info), ZIP_E_CORRUPT);
    bad = frame;
    bad[4] = 2;
    EXPECT_EQ(zip_frame_inspect(bad.data(), bad.size(), &info), ZIP_E_VERSION);
    EXPECT_EQ(zip_frame_inspect(frame.data(), frame.size(), &info), ZIP_OK);
    EXPECT_EQ(info.count, 100u);
    EXPECT_EQ(info.type, ZIP_TYPE_F64);
    EXPECT_EQ(info.frame_bytes, frame.size());
}

// Codec ids are on the wire. 7 is reserved (a draft's "temporal", which is a frame flag, not a
// block codec) and, like every id without a codec, cannot decode a compressed block: the decoder
// says ZIP_E_UNSUPPORTED and nothing else. A frame whose blocks are all raw needs no codec.
TEST(FrameHeader, CodecIdWithoutACodecIsUnsupported)
{
    const auto src = dataset_bytes("gauss-256", ZIP_TYPE_F64, 600);
    for (const char *name : {"raw", "lz4", "zstd", "fpc", "dfcm", "xorlz", "fast"})
        EXPECT_NE(zip::make_codec(name, {})->id(), zip::CodecId(7)) << name;
    auto temporal = make_frame("temporal", ZIP_TYPE_F64, src);
    zip_frame_info_t info;
    ASSERT_EQ(zip_frame_inspect(temporal.data(), temporal.size(), &info), ZIP_OK);
    EXPECT_EQ(info.codec_id, unsigned(zip::CodecId::Fast)) << "temporal frames name their codec";

    const auto frame = make_frame("fast", ZIP_TYPE_F64, src);
    zip::FrameHeader h;
    uint64_t total = 0;
    const char *why = nullptr;
    ASSERT_EQ(zip::parse_frame_header(frame.data(), frame.size(), &h, &total, &why), ZIP_OK);
    ASSERT_FALSE(zip::read_block_entry(frame.data() + zip::kFrameHeaderBytes, 0).raw);
    for (unsigned id : {7u, 8u, 15u, 16u, 255u}) {
        EXPECT_EQ(zip::make_codec(zip::CodecId(id), h.codec_param), nullptr) << id;
        zip::FrameHeader forged = h;
        forged.codec = uint8_t(id);
        auto bad = frame;
        zip::write_frame_header(forged, bad.data()); // the header check matches the new id
        zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
        std::vector<uint8_t> out(src.size());
        size_t len = 0;
        EXPECT_EQ(zip_decompress(ctx, 0, bad.data(), bad.size(), out.data(), out.size(), &len),
                  ZIP_E_UNSUPPORTED)
            << "codec id " << id;
        EXPECT_STRNE(zip_ctx_last_error(ctx), "");
        zip_ctx_destroy(ctx);
    }

    auto random = dataset_bytes("random", ZIP_TYPE_F64, 600);
    auto stored = make_frame("fast", ZIP_TYPE_F64, random);
    ASSERT_EQ(zip_frame_inspect(stored.data(), stored.size(), &info), ZIP_OK);
    ASSERT_TRUE(info.stored_raw);
    ASSERT_EQ(zip::parse_frame_header(stored.data(), stored.size(), &h, &total, &why), ZIP_OK);
    h.codec = 7;
    zip::write_frame_header(h, stored.data());
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    std::vector<uint8_t> out(random.size());
    size_t len = 0;
    EXPECT_EQ(zip_decompress(ctx, 0, stored.data(), stored.size(), out.data(), out.size(), &len),
              ZIP_OK);
    EXPECT_EQ(out, random);
    zip_ctx_destroy(ctx);
}

TEST(FrameHeader, DecodeFailureLeavesAMessage)
{
    auto frame = make_frame("fpc", ZIP_TYPE_F64, dataset_bytes("linear", ZIP_TYPE_F64, 100));
    frame.resize(frame.size() - 1);
    zip_ctx_t *ctx = zip_ctx_create("fpc", nullptr);
    std::vector<uint8_t> out(800);
    size_t len;
    EXPECT_EQ(zip_decompress(ctx, 0, frame.data(), frame.size(), out.data(), out.size(), &len),
              ZIP_E_TRUNCATED);
    EXPECT_STRNE(zip_ctx_last_error(ctx), "");
    zip_ctx_destroy(ctx);
}

} // namespace
