// zip_link_fit_observe (zip.h): the link rate from arrivals of several sizes, free of any fixed
// part of each arrival, and never far from what the largest arrivals show on their own.
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
    // ob1 over TCP: 256 KiB payloads read 150 MB/s of a 119 MB/s link.
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 256 * KiB, arrival_seconds(256 * KiB, 56 * KiB), &fitted);
    ASSERT_EQ(fitted, 0);
    const double rate = observe(f, 1 * MiB, arrival_seconds(1 * MiB, 56 * KiB), &fitted);
    EXPECT_EQ(fitted, 1);
    EXPECT_NEAR(rate, kLink, 1e-6 * kLink);
    // Further arrivals of either size keep the fit.
    EXPECT_NEAR(observe(f, 256 * KiB, arrival_seconds(256 * KiB, 56 * KiB), &fitted), kLink,
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

TEST(LinkFit, EachSizeKeepsItsFastestArrivalSoASlowOneIsIgnored)
{
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 256 * KiB, arrival_seconds(256 * KiB, 0), &fitted);
    observe(f, 1 * MiB, arrival_seconds(1 * MiB, 0), &fitted);
    // A sender descheduled for 5 ms: this arrival alone would read the link 1.7x too slow.
    const double rate = observe(f, 1 * MiB, arrival_seconds(1 * MiB, 0, 5e-3), &fitted);
    EXPECT_EQ(fitted, 1);
    EXPECT_NEAR(rate, kLink, 1e-6 * kLink);
}

TEST(LinkFit, StaysWithinTwiceTheLargestArrivalsOwnRate)
{
    // A slow small arrival and a fast large one (noise, not a link) would give a slope near 0:
    // the fit stops at twice the large arrival's own rate.
    zip_link_fit_t f{};
    int fitted = 0;
    observe(f, 128 * KiB, 8e-3, &fitted);
    const double own = double(1 * MiB) / 8.5e-3;
    EXPECT_DOUBLE_EQ(observe(f, 1 * MiB, 8.5e-3, &fitted), 2.0 * own);
    EXPECT_EQ(fitted, 1);
    // The other way, a small arrival in no time, the fit cannot read the link slower than half
    // the large arrival's own rate, as sizes twofold apart leave half of its bytes to time.
    zip_link_fit_t g{};
    observe(g, 2 * MiB, 1e-9, &fitted);
    const double own_g = double(4 * MiB) / 0.5;
    const double rate = observe(g, 4 * MiB, 0.5, &fitted);
    EXPECT_EQ(fitted, 1);
    EXPECT_GE(rate, 0.5 * own_g);
    EXPECT_LT(rate, 0.51 * own_g);
}

TEST(LinkFit, ALinkThatGotSlowerIsFollowed)
{
    zip_link_fit_t f{};
    int fitted = 0;
    for (int i = 0; i < 4; ++i) {
        observe(f, 256 * KiB, arrival_seconds(256 * KiB, 0), &fitted);
        observe(f, 1 * MiB, arrival_seconds(1 * MiB, 0), &fitted);
    }
    // Halved: within a class's window of arrivals the fit reads the new rate.
    double rate = 0.0;
    for (int i = 0; i < 16; ++i) {
        rate = observe(f, 256 * KiB, 2 * arrival_seconds(256 * KiB, 0), &fitted);
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
