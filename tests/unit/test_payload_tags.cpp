// pml/zip's payload tags (common/payload_tags.h): two windows of private negative tags, and the
// choice of the one farther from where a communicator's non-blocking collectives stand.
#include <gtest/gtest.h>

#include <cstdint>

#include "payload_tags.h"

namespace
{

constexpr int64_t kCycle = int64_t(1) << 24;    // what pml/ucx keeps of a tag
constexpr int32_t kFixedTagsEnd = -31080;       // Open MPI's fixed internal tags: -10 .. this
constexpr int32_t kNbcBase = -27;               // the first tag of the non-blocking range
constexpr uint32_t kMargin = uint32_t(1) << 20; // non-blocking calls between range and window

bool in_window(int32_t tag, int window)
{
    const int64_t from_top = int64_t(zip_payload_tag(0, window)) - tag;
    return from_top >= 0 && from_top < int64_t(ZIP_PAYLOAD_WINDOW_TAGS);
}

// The tag's place on the 24-bit cycle, as a negative 32-bit tag.
int32_t on_cycle(int64_t tag)
{
    int64_t p = tag % kCycle;
    return int32_t(p >= 0 ? p - kCycle : p);
}

TEST(PayloadTags, AreNegativeBelowOpenMpisFixedTagsAndInsideTwentyFourBits)
{
    for (int w = 0; w < 2; ++w) {
        for (uint32_t seq : {0u, 1u, ZIP_PAYLOAD_WINDOW_TAGS - 1}) {
            const int tag = zip_payload_tag(seq, w);
            EXPECT_LT(tag, kFixedTagsEnd) << "window " << w << " seq " << seq;
            EXPECT_GE(tag, -(1 << 23) + 1) << "window " << w << " seq " << seq;
        }
    }
}

TEST(PayloadTags, EachMessageOfAWindowHasItsOwnTagUntilTheWindowIsUsedUp)
{
    for (int w = 0; w < 2; ++w) {
        EXPECT_EQ(zip_payload_tag(0, w) - zip_payload_tag(ZIP_PAYLOAD_WINDOW_TAGS - 1, w),
                  int(ZIP_PAYLOAD_WINDOW_TAGS) - 1);
        EXPECT_EQ(zip_payload_tag(ZIP_PAYLOAD_WINDOW_TAGS, w), zip_payload_tag(0, w));
        EXPECT_EQ(zip_payload_tag(12345, w) - zip_payload_tag(12346, w), 1);
    }
}

TEST(PayloadTags, TheTwoWindowsShareNoTag)
{
    for (uint32_t seq = 0; seq < ZIP_PAYLOAD_WINDOW_TAGS; seq += 4097)
        EXPECT_FALSE(in_window(zip_payload_tag(seq, 0), 1)) << seq;
    EXPECT_FALSE(in_window(zip_payload_tag(0, 0), 1));
    EXPECT_FALSE(in_window(zip_payload_tag(ZIP_PAYLOAD_WINDOW_TAGS - 1, 0), 1));
    EXPECT_FALSE(in_window(zip_payload_tag(0, 1), 0));
    EXPECT_FALSE(in_window(zip_payload_tag(ZIP_PAYLOAD_WINDOW_TAGS - 1, 1), 0));
}

TEST(PayloadTags, TheDistanceIsHowFarTheNearestTagOfTheWindowIs)
{
    // Against a walk along the cycle from the range's tag, both ways, for tags around both
    // windows' edges and in between.
    for (int w = 0; w < 2; ++w) {
        const int32_t top = zip_payload_tag(0, w);
        const int32_t bottom = zip_payload_tag(ZIP_PAYLOAD_WINDOW_TAGS - 1, w);
        for (int64_t at : {int64_t(top), int64_t(bottom), int64_t(top) + 1, int64_t(bottom) - 1,
                           int64_t(top) + 777, int64_t(bottom) - 5000, int64_t(kNbcBase),
                           int64_t(top) + kMargin, int64_t(bottom) - 3 * int64_t(kMargin)}) {
            const int32_t tag = on_cycle(at);
            uint32_t walked = 0;
            while (!in_window(on_cycle(int64_t(tag) + walked), w) &&
                   !in_window(on_cycle(int64_t(tag) - walked), w))
                ++walked;
            EXPECT_EQ(zip_payload_window_distance(tag, w), walked)
                << "window " << w << " tag " << tag;
        }
    }
}

TEST(PayloadTags, TheWindowChosenIsAtLeastAMillionNonBlockingCallsFromTheRange)
{
    // Every place the non-blocking range can stand at on the 24-bit cycle.
    uint32_t least = UINT32_MAX;
    for (int64_t at = -kCycle; at < 0; ++at) {
        const int32_t tag = int32_t(at);
        const uint32_t d = zip_payload_window_distance(tag, zip_payload_window(tag));
        least = d < least ? d : least;
    }
    EXPECT_GE(least, kMargin);
}

TEST(PayloadTags, ARangeThatReachesTheFirstWindowMovesThePayloadsToTheSecond)
{
    // The range walks down from -27 by one tag per call (or more); about six million calls on
    // a communicator take it into the first window (the single window before these two began
    // after four million): payloads then take the second.
    const int32_t after = kNbcBase - (1 << 22) - (1 << 21) - 1000;
    ASSERT_TRUE(in_window(after, 0));
    EXPECT_EQ(zip_payload_window(after), 1);
    // A fresh communicator's range (and Open MPI's full range beyond 24 bits, over ob1).
    EXPECT_EQ(zip_payload_window(kNbcBase), 0);
    EXPECT_GE(zip_payload_window_distance(kNbcBase, 0), kMargin);
    const int32_t past = -(1 << 29) - 12345;
    EXPECT_GE(zip_payload_window_distance(past, zip_payload_window(past)), kMargin);
}

} // namespace
