// The codec meter (codec_meter.h): the codec speed the ranks agree on again from their data.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "codec_meter.h"
#include "zip_algo.h"

namespace
{

zip_algo_codec_binding_t timed(uint64_t c_bytes, uint64_t c_ns, uint64_t d_bytes, uint64_t d_ns)
{
    zip_algo_codec_binding_t b{};
    b.compress_bytes = c_bytes;
    b.compress_ns = c_ns;
    b.decompress_bytes = d_bytes;
    b.decompress_ns = d_ns;
    return b;
}

constexpr uint64_t kMiB = 1 << 20;

} // namespace

TEST(CodecMeter, GivesSecondsPerByteOfWhatItTimed)
{
    zip_codec_meter_t m{};
    // 1 MiB in 100 us (about 10 GB/s) compressing, 1 MiB in 50 us decompressing, in two calls.
    const auto half = timed(kMiB / 2, 50000, kMiB / 2, 25000);
    zip_codec_meter_add(&m, &half);
    zip_codec_meter_add(&m, &half);
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    EXPECT_DOUBLE_EQ(mine[0], 100e-6 / double(kMiB));
    EXPECT_DOUBLE_EQ(mine[1], 50e-6 / double(kMiB));
}

TEST(CodecMeter, SaysNothingOfADirectionItSawTooLittleOf)
{
    zip_codec_meter_t m{};
    const auto b = timed(ZIP_CODEC_METER_MIN_BYTES - 8, 1000, ZIP_CODEC_METER_MIN_BYTES, 1000);
    zip_codec_meter_add(&m, &b);
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    EXPECT_EQ(mine[0], 0.0);
    EXPECT_GT(mine[1], 0.0);
}

TEST(CodecMeter, AgreementTakesTheReducedSpeedsAndKeepsWhatNoRankMeasured)
{
    zip_codec_meter_t m{};
    zip_algo_agreed_t speeds{};
    speeds.compress_Bps = 4.6e9;
    speeds.decompress_Bps = 7.8e9;
    // The slowest rank compressed at 16 GB/s; no rank decompressed enough to say.
    const double all[2] = {1.0 / 16e9, 0.0};
    EXPECT_TRUE(zip_codec_meter_agreed(&m, all, &speeds));
    EXPECT_DOUBLE_EQ(speeds.compress_Bps, 16e9);
    EXPECT_DOUBLE_EQ(speeds.decompress_Bps, 7.8e9);
    // The same values again change nothing (the routes need not be found anew).
    EXPECT_FALSE(zip_codec_meter_agreed(&m, all, &speeds));
}

TEST(CodecMeter, EachAgreementHalvesWhatTheMeterHolds)
{
    zip_codec_meter_t m{};
    // The data coded at 1 ns a byte, then got slower (3 ns a byte): after the agreement the
    // old window weighs as much as the new one.
    const auto fast = timed(4 * kMiB, 4 * kMiB, 4 * kMiB, 4 * kMiB);
    zip_codec_meter_add(&m, &fast);
    zip_algo_agreed_t speeds{};
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    zip_codec_meter_agreed(&m, mine, &speeds);
    EXPECT_DOUBLE_EQ(speeds.compress_Bps, 1e9);
    const auto slow = timed(2 * kMiB, 6 * kMiB, 2 * kMiB, 6 * kMiB);
    zip_codec_meter_add(&m, &slow);
    zip_codec_meter_mine(&m, mine);
    EXPECT_DOUBLE_EQ(mine[0], 2e-9); // (2 + 6) ns over (2 + 2) bytes
    // Halved until too little is left: a meter that saw nothing new keeps the agreed speed.
    for (int i = 0; i < 8; ++i)
        zip_codec_meter_agreed(&m, mine, &speeds);
    zip_codec_meter_mine(&m, mine);
    EXPECT_EQ(mine[0], 0.0);
    EXPECT_DOUBLE_EQ(speeds.compress_Bps, 0.5e9);
}

TEST(CodecMeter, RanksAgreeEarlyThenEveryPeriod)
{
    std::vector<uint64_t> at;
    for (uint64_t n = 1; n <= 4096; ++n)
        if (zip_codec_meter_agree_at(n, 1024))
            at.push_back(n);
    EXPECT_EQ(at, (std::vector<uint64_t>{4, 16, 64, 256, 1024, 2048, 3072, 4096}));
    for (uint64_t n = 1; n <= 4096; ++n)
        ASSERT_FALSE(zip_codec_meter_agree_at(n, 0)) << n;
    // A short period: every multiple of it, the early counts below it only.
    at.clear();
    for (uint64_t n = 1; n <= 40; ++n)
        if (zip_codec_meter_agree_at(n, 10))
            at.push_back(n);
    EXPECT_EQ(at, (std::vector<uint64_t>{4, 10, 20, 30, 40}));
}

TEST(CodecMeter, SamplesFewerAndFewerCallsHandedOn)
{
    std::vector<uint64_t> at;
    for (uint64_t k = 0; k <= 1100; ++k)
        if (zip_codec_meter_probe_at(k))
            at.push_back(k);
    EXPECT_EQ(at, (std::vector<uint64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
}

TEST(CodecMeter, ASampleTimesBothDirectionsOfTheCodecOnTheData)
{
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    ASSERT_NE(ctx, nullptr);
    zip_algo_codec_binding_t binding{};
    binding.codec = ctx;
    zip_codec_ops_t ops{};
    zip_algo_codec_bind(&ops, &binding);
    std::vector<double> data(1 << 15); // 256 KiB: only the first 64 KiB are coded
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = double(i / 16) * 0.25;
    ASSERT_EQ(zip_codec_meter_probe(&ops, ZIP_ALGO_F64, data.data(), data.size() * 8), 0);
    EXPECT_EQ(binding.compress_bytes, 65536u);
    EXPECT_EQ(binding.decompress_bytes, 65536u);
    EXPECT_GT(binding.compress_ns, 0u);
    EXPECT_GT(binding.decompress_ns, 0u);
    zip_codec_meter_t m{};
    zip_codec_meter_add(&m, &binding);
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    EXPECT_GT(mine[0], 0.0);
    EXPECT_GT(mine[1], 0.0);
    zip_ctx_destroy(ctx);
}
