// zip_link_fit_observe (zip.h): each arrival's rate with the fixed part of every arrival's time
// (bytes that came before the clock, latency) taken out, fitted from the smallest sizes.
#include <gtest/gtest.h>

#include "zip/zip.h"

namespace
{

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;
constexpr double kLink = 119e6; // bytes per second: a 1 Gbit/s port after TCP/IP headers

// The time of an arrival of `bytes` whose first `early` bytes came before the clock started.
double arrival_seconds(size_t bytes, size_t early, double latency = 0.0)
{
    return latency + double(bytes - early) / kLink;
}

double observe(zip_link_fit_t &f, size_t bytes, double seconds, int *fitted)
{
    return zip_link_fit_observe(&f, bytes, seconds, fitted);
}

// A 256 KiB and a 1 MiB arrival over ob1's TCP BTL (56 KiB of each came before the clock, so
// 256 KiB alone reads 150 MB/s of a 119 MB/s link); returns the second's rate, the first one
// with the fixed part taken out.
double observe_tcp_pair(zip_link_fit_t &f, int *fitted)
{
    observe(f, 256 * KiB, arrival_seconds(256 * KiB, 56 * KiB), fitted);
    return observe(f, 1 * MiB, arrival_seconds(1 * MiB, 56 * KiB), fitted);
}

} // namespace

TEST(LinkFit, OneSizeGivesTheArrivalsOwnRate)
{
    zip_link_fit_t f{};
    int fitted = 1;
    const double s = arrival_seconds(256 * KiB, 56 * KiB);
    for (int i = 0; i < 8; ++i)
        EXPECT_DOUBLE_EQ(observe(f, 256 * KiB, s, &fitted), double(256 * KiB) / s);
    EXPECT_EQ(fitted, 0);
}

TEST(LinkFit, TwoSizesRemoveBytesThatArrivedBeforeTheClock)
{
    zip_link_fit_t f{};
    int fitted = 0;
    EXPECT_NEAR(observe_tcp_pair(f, &fitted), kLink, 1e-6 * kLink);
    EXPECT_EQ(fitted, 1);
    // Further arrivals of any size are corrected alike.
    EXPECT_NEAR(observe(f, 256 * KiB, arrival_seconds(256 * KiB, 56 * KiB), &fitted), kLink,
                1e-6 * kLink);
    EXPECT_NEAR(observe(f, 4 * MiB, arrival_seconds(4 * MiB, 56 * KiB), &fitted), kLink,
                1e-6 * kLink);
    EXPECT_EQ(fitted, 1);
}

TEST(LinkFit, LatencyIsRemovedToo)
{
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 128 * KiB, arrival_seconds(128 * KiB, 0, 500e-6), &fitted);
    const double rate = observe(f, 4 * MiB, arrival_seconds(4 * MiB, 0, 500e-6), &fitted);
    EXPECT_EQ(fitted, 1);
    EXPECT_NEAR(rate, kLink, 1e-6 * kLink);
}

TEST(LinkFit, SizesLessThanTwofoldApartDoNotFit)
{
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 200 * KiB, arrival_seconds(200 * KiB, 56 * KiB), &fitted);
    const double s = arrival_seconds(300 * KiB, 56 * KiB);
    EXPECT_DOUBLE_EQ(observe(f, 300 * KiB, s, &fitted), double(300 * KiB) / s);
    EXPECT_EQ(fitted, 0);
}

TEST(LinkFit, ASlowArrivalIsItsOwnAndDoesNotMoveTheFit)
{
    zip_link_fit_t f{};
    int fitted = 0;
    observe_tcp_pair(f, &fitted);
    // A sender descheduled for 5 ms: this arrival reads slow (the estimator's business), but
    // the class keeps its fastest arrival, so the next one is corrected as before.
    const double slow = observe(f, 1 * MiB, arrival_seconds(1 * MiB, 56 * KiB, 5e-3), &fitted);
    EXPECT_EQ(fitted, 1);
    EXPECT_LT(slow, 0.7 * kLink);
    EXPECT_NEAR(observe(f, 1 * MiB, arrival_seconds(1 * MiB, 56 * KiB), &fitted), kLink,
                1e-6 * kLink);
}

TEST(LinkFit, LargeSizesSlowerPerByteDoNotSlowTheSmallOnes)
{
    // Shared memory on a busy host: 256 KiB and 1 MiB copies at 9 GB/s, 64 MiB ones at
    // 0.6 GB/s (page faults, a rank put aside). A line through the smallest and the largest
    // would read 0.6 GB/s for every size; the small ones keep their own rate.
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 256 * KiB, 256 * KiB / 9e9, &fitted);
    observe(f, 1 * MiB, 1 * MiB / 9e9, &fitted);
    for (int i = 0; i < 8; ++i)
        EXPECT_NEAR(observe(f, 64 * MiB, 64 * MiB / 0.6e9, &fitted), 0.6e9, 1e-3 * 0.6e9);
    EXPECT_NEAR(observe(f, 256 * KiB, 256 * KiB / 9e9, &fitted), 9e9, 1e-3 * 9e9);
    EXPECT_EQ(fitted, 1);
}

TEST(LinkFit, TheCorrectionAtMostHalvesOrDoublesAnArrivalsTime)
{
    // Two noisy classes whose line crosses far from the origin: a 128 KiB arrival nearly as
    // slow as a 1 MiB one (a fixed part of nearly all its time), and a 2 MiB arrival in no
    // time before a 4 MiB one (a fixed part far below zero).
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 128 * KiB, 8e-3, &fitted);
    EXPECT_NEAR(observe(f, 1 * MiB, 8.5e-3, &fitted), 2.0 * double(1 * MiB) / 8.5e-3,
                1e-9 * double(MiB));
    EXPECT_EQ(fitted, 1);
    zip_link_fit_t g{};
    observe(g, 2 * MiB, 1e-9, &fitted);
    observe(g, 4 * MiB, 0.41, &fitted);
    // The line puts 0.41 s before the clock: a 2 MiB arrival of 0.2 s counts as 0.4 s.
    EXPECT_NEAR(observe(g, 2 * MiB, 0.2, &fitted), double(2 * MiB) / 0.4, 1e-9 * double(MiB));
    EXPECT_EQ(fitted, 1);
}

TEST(LinkFit, ALinkThatGotSlowerIsFollowed)
{
    zip_link_fit_t f{};
    int fitted = 0;
    for (int i = 0; i < 4; ++i) {
        observe(f, 256 * KiB, arrival_seconds(256 * KiB, 0), &fitted);
        observe(f, 1 * MiB, arrival_seconds(1 * MiB, 0), &fitted);
    }
    // Halved: every arrival says so at once, and the classes' kept arrivals follow within
    // their window.
    double rate = observe(f, 1 * MiB, 2 * arrival_seconds(1 * MiB, 0), &fitted);
    EXPECT_NEAR(rate, kLink / 2, 1e-6 * kLink);
    for (int i = 0; i < 16; ++i) {
        observe(f, 256 * KiB, 2 * arrival_seconds(256 * KiB, 0), &fitted);
        rate = observe(f, 1 * MiB, 2 * arrival_seconds(1 * MiB, 0), &fitted);
    }
    EXPECT_EQ(fitted, 1);
    EXPECT_NEAR(rate, kLink / 2, 1e-6 * kLink);
}

TEST(LinkFit, ASizeNotSeenLatelyLeavesTheFit)
{
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 256 * KiB, arrival_seconds(256 * KiB, 56 * KiB), &fitted);
    for (int i = 0; i < 64; ++i)
        observe(f, 4 * MiB, arrival_seconds(4 * MiB, 56 * KiB), &fitted);
    EXPECT_EQ(fitted, 0);
}

TEST(LinkFit, UntimedArrivalsAreRejected)
{
    zip_link_fit_t f{};
    int fitted = 1;
    EXPECT_EQ(observe(f, 0, 1e-3, &fitted), 0.0);
    EXPECT_EQ(observe(f, 1 * MiB, 0.0, &fitted), 0.0);
    EXPECT_EQ(fitted, 0);
    // Below the smallest class: the arrival's own rate, not kept.
    EXPECT_DOUBLE_EQ(observe(f, 64 * KiB, 1e-3, &fitted), double(64 * KiB) / 1e-3);
    EXPECT_EQ(f.arrivals, 0u);
}
