// The codec meter (codec_meter.h): the codec speed the ranks agree on again from their data.
#include <cstdint>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#include <gtest/gtest.h>

#include "codec_meter.h"
#include "zip_algo.h"

namespace
{

constexpr uint64_t kMiB = 1 << 20;

// n calls of `bytes` raw bytes, each in ns nanoseconds, in one direction.
void timed(zip_codec_meter_t *m, int decompress, int n, uint64_t bytes, uint64_t ns)
{
    for (int i = 0; i < n; ++i)
        zip_codec_meter_time(m, decompress, bytes, ns);
}

// Samples allocate their buffers, which fault where the allocator does not reuse memory at once
// (ASan's quarantine), and a round that faulted is not counted.
struct FaultsUnchecked {
    FaultsUnchecked() { zip_codec_meter_check_faults(false); }
    ~FaultsUnchecked() { zip_codec_meter_check_faults(true); }
};

double mine_of(const zip_codec_meter_t &m, int dir)
{
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    return mine[dir];
}

} // namespace

TEST(CodecMeter, GivesSecondsPerByteOfWhatItTimed)
{
    zip_codec_meter_t m{};
    // 64 KiB calls at 6.5536 us (10 GB/s) compressing, 3.2768 us (20 GB/s) decompressing.
    timed(&m, 0, 16, 65536, 6554);
    timed(&m, 1, 16, 65536, 3277);
    EXPECT_NEAR(mine_of(m, 0), 6554e-9 / 65536, 1e-15);
    EXPECT_NEAR(mine_of(m, 1), 3277e-9 / 65536, 1e-15);
}

TEST(CodecMeter, SaysNothingOfADirectionItSawTooLittleOf)
{
    zip_codec_meter_t m{};
    // Too few bytes in enough calls, and enough bytes in too few calls.
    timed(&m, 0, ZIP_CODEC_METER_MIN_CALLS,
          ZIP_CODEC_METER_MIN_BYTES / ZIP_CODEC_METER_MIN_CALLS - 8, 1000);
    timed(&m, 1, ZIP_CODEC_METER_MIN_CALLS - 1, ZIP_CODEC_METER_MIN_BYTES, 1000);
    EXPECT_EQ(mine_of(m, 0), 0.0);
    EXPECT_EQ(mine_of(m, 1), 0.0);
    timed(&m, 0, 1, 8 * ZIP_CODEC_METER_MIN_CALLS, 1000);
    timed(&m, 1, 1, ZIP_CODEC_METER_MIN_BYTES, 1000);
    EXPECT_GT(mine_of(m, 0), 0.0);
    EXPECT_GT(mine_of(m, 1), 0.0);
}

TEST(CodecMeter, OneCallThatLostItsCoreCannotSpeakAlone)
{
    // A rank's first call waited 9 ms for its core (64 KiB: 7 MB/s); three calls at the
    // codec's speed outvote it.
    zip_codec_meter_t m{};
    timed(&m, 0, 1, 65536, 9000000);
    EXPECT_EQ(mine_of(m, 0), 0.0);
    timed(&m, 0, 3, 65536, 16384);
    EXPECT_NEAR(1.0 / mine_of(m, 0), 4e9, 0.01e9);
}

TEST(CodecMeter, ACallThatLostItsCoreDoesNotSetTheSpeed)
{
    zip_codec_meter_t m{};
    // Nine 1 MiB calls at about 4 GB/s, and one that waited 4 ms for its core: the mean
    // would read 1.3 GB/s, the median stays with the nine.
    timed(&m, 0, 9, kMiB, 262144);
    timed(&m, 0, 1, kMiB, 262144 + 4000000);
    EXPECT_NEAR(1.0 / mine_of(m, 0), 4e9, 0.01e9);
}

TEST(CodecMeter, TheMedianIsWeightedByBytes)
{
    zip_codec_meter_t m{};
    // Many small slow calls (16 KiB at 1 GB/s) and fewer large fast ones (1 MiB at 8 GB/s)
    // that carry most of the bytes.
    timed(&m, 0, 20, 16384, 16384);
    timed(&m, 0, 4, kMiB, kMiB / 8);
    EXPECT_NEAR(1.0 / mine_of(m, 0), 8e9, 0.01e9);
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
    EXPECT_EQ(speeds.decompress_seen, 0); // still the calibration's
    // The same values again change nothing (the routes need not be found anew).
    EXPECT_FALSE(zip_codec_meter_agreed(&m, all, &speeds));
    // A decoder timed on the data, even at the calibration's speed, is news: a gather's route
    // trusts it from then on.
    const double decoded[2] = {1.0 / 16e9, 1.0 / 7.8e9};
    EXPECT_TRUE(zip_codec_meter_agreed(&m, decoded, &speeds));
    EXPECT_EQ(speeds.decompress_seen, 1);
    EXPECT_FALSE(zip_codec_meter_agreed(&m, decoded, &speeds));
}

TEST(CodecMeter, EachAgreementHalvesWhatTheMeterHolds)
{
    zip_codec_meter_t m{};
    // 4 MiB at 1 GB/s, agreed; then 3 MiB at 0.25 GB/s: with the first window halved to
    // 2 MiB the median is the slower class, which it would not be unhalved (4 MiB of 7).
    timed(&m, 0, 4, kMiB, kMiB);
    zip_algo_agreed_t speeds{};
    double mine[2];
    zip_codec_meter_mine(&m, mine);
    zip_codec_meter_agreed(&m, mine, &speeds);
    EXPECT_DOUBLE_EQ(speeds.compress_Bps, 1e9);
    timed(&m, 0, 3, kMiB, 4 * kMiB);
    EXPECT_DOUBLE_EQ(mine_of(m, 0), 4e-9);
    // Halved until too little is left: a meter that saw nothing new keeps the agreed speed.
    zip_codec_meter_mine(&m, mine);
    for (int i = 0; i < 12; ++i)
        zip_codec_meter_agreed(&m, mine, &speeds);
    EXPECT_EQ(mine_of(m, 0), 0.0);
    EXPECT_DOUBLE_EQ(speeds.compress_Bps, 0.25e9);
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
    zip_codec_meter_t m{};
    zip_algo_codec_binding_t binding{};
    binding.codec = ctx;
    zip_codec_ops_t ops{};
    zip_algo_codec_bind(&ops, &binding);
    std::vector<double> data(1 << 15); // 256 KiB: only the first 64 KiB are coded
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = double(i / 16) * 0.25;
    const FaultsUnchecked what_is_counted; // not whether its buffers were fresh
    // A call of 64 KiB counts as itself; the meter hears of each round of both directions.
    for (int i = 0; i < ZIP_CODEC_METER_MIN_CALLS / 2; ++i)
        ASSERT_EQ(
            zip_codec_meter_probe(&m, &ops, ZIP_ALGO_F64, data.data(), data.size() * 8, 65536), 0);
    uint64_t bytes[2] = {0, 0};
    for (int dir = 0; dir < 2; ++dir)
        for (int c = 0; c < ZIP_CODEC_METER_CLASSES; ++c)
            bytes[dir] += m.bytes[dir][c];
    EXPECT_EQ(bytes[0], 65536u * ZIP_CODEC_METER_MIN_CALLS);
    EXPECT_EQ(bytes[1], 65536u * ZIP_CODEC_METER_MIN_CALLS);
    EXPECT_EQ(m.calls[0], uint64_t(ZIP_CODEC_METER_MIN_CALLS));
    EXPECT_GT(mine_of(m, 0), 0.0);
    EXPECT_GT(mine_of(m, 1), 0.0);
    EXPECT_GT(binding.codec_ns, 0u);
    zip_ctx_destroy(ctx);
}

// A call handed on weighs in the meter what a call zip took weighs: its sample of 64 KiB counts
// for the call's bytes, at the sample's speed.
TEST(CodecMeter, ASampleCountsForTheCallItStandsFor)
{
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    ASSERT_NE(ctx, nullptr);
    zip_algo_codec_binding_t binding{};
    binding.codec = ctx;
    zip_codec_ops_t ops{};
    zip_algo_codec_bind(&ops, &binding);
    std::vector<double> data(1 << 13);
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = double(i / 16) * 0.25;
    const FaultsUnchecked what_is_counted;
    zip_codec_meter_t m{};
    ASSERT_EQ(
        zip_codec_meter_probe(&m, &ops, ZIP_ALGO_F64, data.data(), data.size() * 8, 16 * kMiB), 0);
    uint64_t bytes[2] = {0, 0}, ns = 0;
    for (int dir = 0; dir < 2; ++dir)
        for (int c = 0; c < ZIP_CODEC_METER_CLASSES; ++c) {
            bytes[dir] += m.bytes[dir][c];
            ns += m.ns[dir][c];
        }
    EXPECT_EQ(bytes[0], 16 * kMiB);
    EXPECT_EQ(bytes[1], 16 * kMiB);
    // The sample's own speed, scaled alike: each direction coded 2 x 64 KiB, and the meter's
    // clock encloses the binding's, so the scaled time is at least the binding's and exceeds it
    // only by the clock reads (not by a factor of 256 - 1, as unscaled or unweighted would).
    const double per_byte = double(ns) / double(bytes[0]);
    const double binding_per_byte = double(binding.codec_ns) / (2.0 * 65536);
    EXPECT_GT(binding.codec_ns, 0u);
    EXPECT_GE(per_byte, binding_per_byte * 0.999);
    EXPECT_LT(per_byte, binding_per_byte * 1.5);
    zip_ctx_destroy(ctx);
}

// The case the weighting is for: a window of large calls that coded slowly (first touch of
// fresh buffers), then calls handed on whose samples read the codec's speed; after one halving
// the samples of four calls of the same size outvote the window. With samples counting as
// 64 KiB they did not, and the slow speed held for the rest of the run.
TEST(CodecMeter, SamplesOfCallsHandedOnOutvoteASlowStart)
{
    zip_codec_meter_t m{};
    // 4 calls of 16 MiB in 1 MiB segments at 350 MB/s.
    timed(&m, 0, 64, kMiB, 2996000);
    const double all_slow[2] = {mine_of(m, 0), 0.0};
    zip_algo_agreed_t speeds{};
    zip_codec_meter_agreed(&m, all_slow, &speeds);
    EXPECT_NEAR(speeds.compress_Bps, 350e6, 1e6);
    // Samples of four 16 MiB calls at 3.5 GB/s: two rounds of each count 8 MiB.
    timed(&m, 0, 8, 8 * kMiB, 2396745);
    EXPECT_NEAR(1.0 / mine_of(m, 0), 3.5e9, 0.01e9);
    // At 64 KiB a sample the slow window would still speak.
    zip_codec_meter_t old{};
    timed(&old, 0, 64, kMiB, 2996000);
    zip_codec_meter_agreed(&old, all_slow, &speeds);
    timed(&old, 0, 8, 65536, 18725);
    EXPECT_NEAR(1.0 / mine_of(old, 0), 350e6, 1e6);
}

namespace
{

// Pages nobody has written yet: writing them faults.
struct FreshPages {
    size_t bytes;
    char *p;
    explicit FreshPages(size_t n)
        : bytes(n), p(static_cast<char *>(mmap(nullptr, n, PROT_READ | PROT_WRITE,
                                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
    {
    }
    ~FreshPages() { munmap(p, bytes); }
};

} // namespace

// A codec call that wrote fresh pages paid their faults inside its time (11 us a page on the
// project's VM: a 4 MiB gatherv's first calls read compression at 126-130 MB/s, the codec runs
// at 3-4 GB/s), so it does not count; one that faulted nothing does.
TEST(CodecMeter, ACallThatFaultedInPagesIsNotTheCodecsSpeed)
{
    zip_codec_meter_t m{};
    FreshPages fresh(kMiB);
    ASSERT_NE(fresh.p, MAP_FAILED);
    uint64_t before = zip_codec_meter_faults_before(&m, 0, kMiB);
    ASSERT_NE(before, ZIP_CODEC_METER_UNCHECKED);
    std::memset(fresh.p, 1, kMiB); // the "codec call": it writes its frame
    EXPECT_FALSE(zip_codec_meter_time_unfaulted(&m, 0, kMiB, 4000000, before));
    EXPECT_EQ(m.calls[0], 0u);

    before = zip_codec_meter_faults_before(&m, 0, kMiB);
    std::memset(fresh.p, 2, kMiB); // the same pages again: no fault
    EXPECT_TRUE(zip_codec_meter_time_unfaulted(&m, 0, kMiB, 250000, before));
    EXPECT_EQ(m.calls[0], 1u);
    EXPECT_EQ(m.ns[0][0] + m.ns[0][ZIP_CODEC_METER_CLASSES - 1], 0u) << "counted the fast one";
}

// The check costs two getrusage calls, about 2 us: every call of 1 MiB and more pays it, and
// every call while the meter is young (a job's first calls, when buffers are fresh); later,
// smaller calls are counted unchecked.
TEST(CodecMeter, SmallCallsAreCheckedOnlyWhileTheMeterIsYoung)
{
    zip_codec_meter_t m{};
    const uint64_t small = 64 * 1024;
    EXPECT_NE(zip_codec_meter_faults_before(&m, 1, small), ZIP_CODEC_METER_UNCHECKED);
    timed(&m, 1, ZIP_CODEC_METER_CHECKED_CALLS, small, 13000);
    EXPECT_EQ(zip_codec_meter_faults_before(&m, 1, small), ZIP_CODEC_METER_UNCHECKED);
    EXPECT_NE(zip_codec_meter_faults_before(&m, 1, ZIP_CODEC_METER_CHECKED_FROM),
              ZIP_CODEC_METER_UNCHECKED);
    EXPECT_NE(zip_codec_meter_faults_before(&m, 0, small), ZIP_CODEC_METER_UNCHECKED)
        << "the other direction is still young";
    EXPECT_EQ(zip_codec_meter_faults_before(nullptr, 0, kMiB), ZIP_CODEC_METER_UNCHECKED);

    FreshPages fresh(small);
    ASSERT_NE(fresh.p, MAP_FAILED);
    std::memset(fresh.p, 1, small); // faults, but nobody looked
    EXPECT_TRUE(zip_codec_meter_time_unfaulted(&m, 1, small, 13000, ZIP_CODEC_METER_UNCHECKED));
}
