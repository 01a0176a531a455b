// The speed-aware policy (zip.h): given speeds and a ratio it picks the faster path, it never
// takes a sample when the link is faster than the codec, and its estimates converge.
#include <algorithm>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "zip/zip.h"

namespace
{

constexpr double GBps = 1e9;
constexpr size_t MiB = 1 << 20;

zip_speeds_t speeds(double c, double d, double link)
{
    return zip_speeds_t{c * GBps, d * GBps, link * GBps, 0};
}

zip_verdict_t decide(const zip_speeds_t &s, size_t bytes, double ratio,
                     zip_transfer_shape_t shape = ZIP_TRANSFER_ONE_SHOT,
                     zip_policy_mode_t mode = ZIP_POLICY_AUTO)
{
    return zip_policy_decide(mode, &s, bytes, 65536, ratio, shape);
}

TEST(PolicyCostModel, OneShotAddsTheStagesPipelinedTakesTheSlowest)
{
    const zip_speeds_t s = speeds(2.0, 4.0, 0.125);
    const double b = double(8 * MiB);
    EXPECT_DOUBLE_EQ(zip_policy_time_raw(&s, 8 * MiB), b / (0.125 * GBps));
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, 8 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT),
                     b / (2 * GBps) + b / (2 * 0.125 * GBps) + b / (4 * GBps));
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, 8 * MiB, 2.0, ZIP_TRANSFER_PIPELINED),
                     b / (2 * 0.125 * GBps));
}

TEST(PolicyDecision, SlowLinkCompressibleDataIsCompressed)
{
    // 1 Gbit/s, fast codec, ratio 1.5: 0.0625 + 0.5/1.5... clearly faster compressed.
    EXPECT_EQ(decide(speeds(2.0, 4.0, 0.125), 4 * MiB, 1.5), ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(decide(speeds(2.0, 4.0, 0.125), 4 * MiB, 1.5, ZIP_TRANSFER_PIPELINED),
              ZIP_VERDICT_COMPRESS);
}

TEST(PolicyDecision, LinkFasterThanTheCodecIsNeverSampled)
{
    // Shared memory / InfiniBand: 10 GB/s against a 2 GB/s compressor. No ratio can pay, so the
    // verdict comes before any sample (ratio 0).
    EXPECT_EQ(decide(speeds(2.0, 4.0, 10.0), 16 * MiB, 0.0), ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(decide(speeds(2.0, 4.0, 10.0), 16 * MiB, 0.0, ZIP_TRANSFER_PIPELINED),
              ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(decide(speeds(2.0, 4.0, 10.0), 16 * MiB, 3.0), ZIP_VERDICT_LINK_FASTER);
}

TEST(PolicyDecision, PipelineMakesAMidSpeedLinkWorthIt)
{
    // 1.5 GB/s link, 2/4 GB/s codec, ratio 2: one shot 0.5+0.33+0.25 of 1/GB > 0.67 raw, but the
    // pipeline's slowest stage (0.5) beats raw.
    const zip_speeds_t s = speeds(2.0, 4.0, 1.5);
    EXPECT_EQ(decide(s, 8 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT), ZIP_VERDICT_LINK_FASTER);
    EXPECT_EQ(decide(s, 8 * MiB, 2.0, ZIP_TRANSFER_PIPELINED), ZIP_VERDICT_COMPRESS);
}

// An alltoall(v) rank encodes what it sends and decodes what it receives on one core: the two
// codec stages add up, while the link moves both directions at once. 3.1 GB/s link (25 Gbit/s),
// codec 4.6 / 7.8 GB/s (gauss), ratio 1.56: a pipeline's slowest stage (compress, 0.22 ns/B)
// beats raw (0.32), the exchange's (0.22 + 0.13 = 0.35) does not.
TEST(PolicyDecision, AnExchangeAddsTheCodecStagesOnOneCore)
{
    const zip_speeds_t s = speeds(4.6, 7.8, 3.1);
    const double b = double(8 * MiB);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, 8 * MiB, 1.56, ZIP_TRANSFER_EXCHANGE),
                     b / (4.6 * GBps) + b / (7.8 * GBps));
    EXPECT_EQ(decide(s, 8 * MiB, 1.56, ZIP_TRANSFER_PIPELINED), ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(decide(s, 8 * MiB, 1.56, ZIP_TRANSFER_EXCHANGE), ZIP_VERDICT_LINK_FASTER);
    // 10 Gbit/s: the wire is the slowest stage again, and the exchange compresses.
    const zip_speeds_t ten = speeds(4.6, 7.8, 1.25);
    EXPECT_EQ(decide(ten, 8 * MiB, 1.56, ZIP_TRANSFER_EXCHANGE), ZIP_VERDICT_COMPRESS);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&ten, 8 * MiB, 1.56, ZIP_TRANSFER_EXCHANGE),
                     b / (1.56 * 1.25 * GBps));
}

// An exchange whose sender codes only k blocks (a halo exchange's remote neighbours): the first
// block's coding fills the pipe, the others' overlaps the wire, and the blocks that arrive
// together at its end decode after it. One block is a one-shot; k = 0 means many, as
// alltoall(v).
TEST(PolicyCostModel, AnExchangeOfFewBlocksPaysItsFillAndDrain)
{
    zip_speeds_t s = speeds(4.6, 7.8, 45.6 / 32);
    const double b = double(MiB), c = b / (4.6 * GBps), d = b / (7.8 * GBps);
    const double w = b / (1.56 * 45.6 / 32 * GBps);
    s.ends = 1;
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, MiB, 1.56, ZIP_TRANSFER_EXCHANGE),
                     zip_policy_time_compressed(&s, MiB, 1.56, ZIP_TRANSFER_ONE_SHOT));
    s.ends = 3;
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, MiB, 1.56, ZIP_TRANSFER_EXCHANGE),
                     c / 3 + std::max(2 * c / 3, w) + d);
    s.ends = 0;
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, MiB, 1.56, ZIP_TRANSFER_EXCHANGE),
                     std::max(c + d, w));
    // A rank's share of a 400 Gbit/s NIC among 32 (1.4 GB/s): one or three remote blocks of
    // smooth data go raw (fill and drain cost more than the wire saves); at 100 Gbit/s three
    // compress.
    for (int k : {1, 3}) {
        s.ends = k;
        EXPECT_EQ(decide(s, MiB, 1.56, ZIP_TRANSFER_EXCHANGE), ZIP_VERDICT_INCOMPRESSIBLE) << k;
    }
    zip_speeds_t hundred = speeds(4.6, 7.8, 12.2 / 32);
    hundred.ends = 3;
    EXPECT_EQ(decide(hundred, MiB, 1.56, ZIP_TRANSFER_EXCHANGE), ZIP_VERDICT_COMPRESS);
}

// A gather(v)'s k senders compress a block each at once, then the root's link and decoder serve
// the blocks in turn; a scatter(v)'s root compresses its k blocks one after the other while its
// link sends the ones before, and each receiver decodes its own. The first block's coding fills
// the fan, the last one's drains it.
TEST(PolicyCostModel, AFanIsFilledByOneBlocksCodingAndDrainedByAnother)
{
    zip_speeds_t s = speeds(2.0, 4.0, 0.125);
    s.ends = 4;
    const double b = double(8 * MiB), c = b / (2 * GBps), d = b / (4 * GBps);
    const double w = b / (2 * 0.125 * GBps);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, 8 * MiB, 2.0, ZIP_TRANSFER_FAN_IN),
                     c / 4 + w + d / 4);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&s, 8 * MiB, 2.0, ZIP_TRANSFER_FAN_OUT),
                     c / 4 + w + d / 4);
    // Where the link is faster, the root's own stage is the bound: its decoder of a fan-in, its
    // encoder of a fan-out.
    zip_speeds_t fast_link = speeds(1.0, 0.5, 4.0);
    fast_link.ends = 4;
    const double c1 = b / (1.0 * GBps), d1 = b / (0.5 * GBps);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&fast_link, 8 * MiB, 2.0, ZIP_TRANSFER_FAN_IN),
                     c1 / 4 + d1);
    EXPECT_DOUBLE_EQ(zip_policy_time_compressed(&fast_link, 8 * MiB, 2.0, ZIP_TRANSFER_FAN_OUT),
                     c1 + d1 / 4);
    // One far end: nothing overlaps, a one-shot.
    for (int ends : {0, 1}) {
        fast_link.ends = ends;
        for (auto shape : {ZIP_TRANSFER_FAN_IN, ZIP_TRANSFER_FAN_OUT})
            EXPECT_DOUBLE_EQ(
                zip_policy_time_compressed(&fast_link, 8 * MiB, 2.0, shape),
                zip_policy_time_compressed(&fast_link, 8 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT));
    }
}

TEST(PolicyDecision, AWeakRatioIsNotWorthItWhereAStrongOneIs)
{
    const zip_speeds_t s = speeds(1.0, 2.0, 0.25);
    EXPECT_EQ(decide(s, 8 * MiB, 0.0), ZIP_VERDICT_COMPRESS); // worth a sample
    EXPECT_EQ(decide(s, 8 * MiB, 1.05), ZIP_VERDICT_INCOMPRESSIBLE);
    EXPECT_EQ(decide(s, 8 * MiB, 6.0), ZIP_VERDICT_COMPRESS);
}

TEST(PolicyDecision, PicksTheFasterPathAcrossAGridOfSpeeds)
{
    for (double link : {0.05, 0.125, 0.5, 1.25, 3.0, 12.5})
        for (double ratio : {1.01, 1.3, 2.0, 4.0})
            for (auto shape : {ZIP_TRANSFER_ONE_SHOT, ZIP_TRANSFER_PIPELINED, ZIP_TRANSFER_EXCHANGE,
                               ZIP_TRANSFER_FAN_IN, ZIP_TRANSFER_FAN_OUT}) {
                zip_speeds_t s = speeds(1.5, 3.0, link);
                s.ends = shape == ZIP_TRANSFER_FAN_IN || shape == ZIP_TRANSFER_FAN_OUT ? 7 : 0;
                const double raw = zip_policy_time_raw(&s, 4 * MiB);
                const double zip = zip_policy_time_compressed(&s, 4 * MiB, ratio, shape);
                const zip_verdict_t v = decide(s, 4 * MiB, ratio, shape);
                if (v == ZIP_VERDICT_COMPRESS)
                    EXPECT_LT(zip, raw) << link << " " << ratio << " " << shape;
                else
                    EXPECT_GE(zip, ZIP_POLICY_MARGIN * raw) << link << " " << ratio << " " << shape;
            }
}

TEST(PolicyDecision, ModesAndSizes)
{
    const zip_speeds_t fast = speeds(2.0, 4.0, 10.0);
    EXPECT_EQ(decide(fast, 16 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT, ZIP_POLICY_ALWAYS),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(decide(fast, 16 * MiB, 1.0, ZIP_TRANSFER_ONE_SHOT, ZIP_POLICY_ALWAYS),
              ZIP_VERDICT_INCOMPRESSIBLE);
    const zip_speeds_t slow = speeds(2.0, 4.0, 0.1);
    EXPECT_EQ(decide(slow, 16 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT, ZIP_POLICY_NEVER),
              ZIP_VERDICT_NEVER);
    EXPECT_EQ(decide(slow, 16 * MiB, 2.0, ZIP_TRANSFER_ONE_SHOT, ZIP_POLICY_OBSERVE),
              ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(decide(slow, 1000, 2.0), ZIP_VERDICT_TOO_SMALL);
    EXPECT_EQ(decide(slow, 0, 2.0, ZIP_TRANSFER_ONE_SHOT, ZIP_POLICY_ALWAYS),
              ZIP_VERDICT_TOO_SMALL);
    // A link zip has not seen yet is taken as fast: it goes raw, and is observed.
    EXPECT_EQ(decide(speeds(2.0, 4.0, 0.0), 16 * MiB, 0.0), ZIP_VERDICT_LINK_FASTER);
}

TEST(PolicyModes, NamesRoundTrip)
{
    for (int m = 0; m < 4; ++m)
        EXPECT_EQ(zip_policy_mode_parse(zip_policy_mode_name(zip_policy_mode_t(m))), m);
    EXPECT_EQ(zip_policy_mode_parse("sometimes"), -1);
    EXPECT_EQ(zip_policy_mode_parse(nullptr), -1);
}

TEST(PolicyEstimator, CodecSpeedsConvergeToWhatIsObserved)
{
    zip_estimator_t *e = zip_estimator_create();
    zip_estimator_observe_codec(e, 0, MiB, 1e-3); // 1 GiB/s
    for (int i = 0; i < 60; ++i)
        zip_estimator_observe_codec(e, 0, MiB, 0.5e-3); // now 2 GiB/s
    const zip_speeds_t s = zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1);
    EXPECT_NEAR(s.compress_Bps, 2.0 * MiB / 1e-3, 0.01 * 2.0 * MiB / 1e-3);
    EXPECT_EQ(s.decompress_Bps, 0.0);
    zip_estimator_destroy(e);
}

TEST(PolicyEstimator, LinkIsTheFastestRecentObservationAndFollowsASlowdown)
{
    zip_estimator_t *e = zip_estimator_create();
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 8e-3, 1);  // 131 MB/s
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 80e-3, 1); // a late receiver
    EXPECT_NEAR(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, MiB / 8e-3,
                MiB / 8e-3 * 0.02);
    for (int i = 0; i < 600; ++i)
        zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 16e-3, 1); // congestion halves it
    EXPECT_NEAR(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, MiB / 16e-3,
                MiB / 16e-3 * 0.02);
    // The local class is separate.
    EXPECT_EQ(zip_estimator_speeds(e, ZIP_PEER_LOCAL, 1).link_Bps, 0.0);
    zip_estimator_destroy(e);
}

TEST(PolicyEstimator, SharingDividesTheNic)
{
    zip_estimator_t *e = zip_estimator_create();
    // 8 ranks sending off-node at once each got 1/8 of a 1 GB/s NIC.
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, MiB / 0.125e9, 8);
    EXPECT_NEAR(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, 1e9, 1e6);
    EXPECT_NEAR(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 4).link_Bps, 0.25e9, 1e6);
    zip_estimator_destroy(e);
}

TEST(PolicyEstimator, AResetLinkTakesTheNextObservationEvenIfSlower)
{
    zip_estimator_t *e = zip_estimator_create();
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 1e-3, 1); // buffered: 1 GB/s, too fast
    zip_estimator_reset_link(e, ZIP_PEER_REMOTE);
    EXPECT_EQ(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, 0.0);
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 8e-3, 1); // what arrived: 131 MB/s
    EXPECT_NEAR(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, MiB / 8e-3, 1.0);
    // A fixed rate stays.
    zip_estimator_fix_link(e, ZIP_PEER_LOCAL, 12.5e9);
    zip_estimator_reset_link(e, ZIP_PEER_LOCAL);
    EXPECT_EQ(zip_estimator_speeds(e, ZIP_PEER_LOCAL, 1).link_Bps, 12.5e9);
    zip_estimator_destroy(e);
}

TEST(PolicyEstimator, AFixedLinkIgnoresObservations)
{
    zip_estimator_t *e = zip_estimator_create();
    zip_estimator_fix_link(e, ZIP_PEER_REMOTE, 12.5e9);
    zip_estimator_observe_link(e, ZIP_PEER_REMOTE, MiB, 1.0, 1);
    EXPECT_EQ(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps, 12.5e9);
    zip_estimator_destroy(e);
}

TEST(PolicyCalibration, MeasuresBothDirectionsOnEveryCodec)
{
    for (const char *spec : {"fast", "fpc", "lz4", "zstd"}) {
        zip_ctx_t *ctx = zip_ctx_create(spec, nullptr);
        ASSERT_NE(ctx, nullptr) << spec;
        double c = 0, d = 0;
        ASSERT_EQ(zip_calibrate(ctx, &c, &d), ZIP_OK) << spec;
        // Any real machine: between 10 MB/s and 1 TB/s.
        EXPECT_GT(c, 1e7) << spec;
        EXPECT_LT(c, 1e12) << spec;
        EXPECT_GT(d, 1e7) << spec;
        EXPECT_LT(d, 1e12) << spec;
        zip_ctx_destroy(ctx);
    }
}

} // namespace
