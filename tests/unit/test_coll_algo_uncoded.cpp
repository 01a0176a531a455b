// Alltoall(v) calls on data no rank codes are handed on for a while (zip_algo_uncoded_t).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zip_algo.h"

namespace
{

// Runs `calls` blocking calls that zip would take, on every rank alike: each that takes zip's
// path records `coded`, and where it is due to share the ranks find what any recorded (one rank
// here: its own record). Returns a letter per call: 'h' handed on, 's' zip's path and shared
// after, '.' zip's path.
std::string blocking_calls(zip_algo_uncoded_t &u, int calls, bool coded)
{
    std::string seen;
    for (int i = 0; i < calls; ++i) {
        if (zip_algo_uncoded_hands_on(&u)) {
            seen += 'h';
            continue;
        }
        const bool share = zip_algo_uncoded_shares(&u);
        zip_algo_uncoded_record(&u, coded);
        if (share) {
            zip_algo_uncoded_shared(&u, zip_algo_uncoded_mine(&u));
            seen += 's';
        } else {
            seen += '.';
        }
    }
    return seen;
}

std::vector<int> shared_at(const std::string &calls)
{
    std::vector<int> at;
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls[i] == 's')
            at.push_back(int(i) + 1);
    return at;
}

// What the ranks do after a hand-on period of `period` calls: hand them on, take zip's path for
// ZIP_ALGO_UNCODED_RECHECK calls and share after the last.
std::string period_then_recheck(int period)
{
    return std::string(size_t(period), 'h') + std::string(ZIP_ALGO_UNCODED_RECHECK - 1, '.') + "s";
}

} // namespace

// On data that codes, the ranks share at the 4th, 16th, 64th and 256th call, then every 1024th,
// and nothing is handed on.
TEST(CollAlgoUncoded, CodedDataIsSharedAtTheGrowingCountsAndNeverHandedOn)
{
    zip_algo_uncoded_t u{};
    const std::string calls = blocking_calls(u, 3072, true);
    EXPECT_EQ(calls.find('h'), std::string::npos);
    EXPECT_EQ(shared_at(calls), (std::vector<int>{4, 16, 64, 256, 1024, 2048, 3072}));
}

// Data nobody codes: the 4th call shares and finds nothing coded, the next 16 are handed on, the
// 4th call on zip's path after them shares again; the periods double up to 256.
TEST(CollAlgoUncoded, UncodedDataIsHandedOnForPeriodsThatDoubleUpTo256)
{
    zip_algo_uncoded_t u{};
    std::string expect = "...s";
    for (const int period : {16, 32, 64, 128, 256, 256})
        expect += period_then_recheck(period);
    EXPECT_EQ(blocking_calls(u, int(expect.size()), false), expect);
}

// One call that codes in the window keeps zip's path: data that alternates between
// incompressible and compressible calls is not handed on.
TEST(CollAlgoUncoded, AnyCallThatCodedSinceTheLastShareKeepsZipsPath)
{
    zip_algo_uncoded_t u{};
    std::string calls;
    for (int i = 0; i < 64; ++i)
        calls += blocking_calls(u, 1, i % 4 == 1); // the 2nd, 6th, 10th ... code
    EXPECT_EQ(calls.find('h'), std::string::npos) << calls;
    // The 4th call coded nothing, but the 2nd did: the share at the 4th keeps zip's path.
    EXPECT_EQ(shared_at(calls), (std::vector<int>{4, 16, 64}));
}

// Data that codes again resets the period: the next time nothing is coded, 16 calls again.
TEST(CollAlgoUncoded, CodedDataStartsThePeriodsAfresh)
{
    zip_algo_uncoded_t u{};
    EXPECT_EQ(blocking_calls(u, 4 + 20 + 36, false),
              "...s" + period_then_recheck(16) + period_then_recheck(32));
    EXPECT_EQ(blocking_calls(u, 68, true), period_then_recheck(64));
    EXPECT_EQ(u.period, 0u);
    // Nothing handed on while the data codes, until a share finds nothing coded: 16 again.
    const std::string coded = blocking_calls(u, 200, true);
    EXPECT_EQ(coded.find('h'), std::string::npos);
    zip_algo_uncoded_shared(&u, false);
    EXPECT_EQ(blocking_calls(u, 20, true), period_then_recheck(16));
}

// Non-blocking calls never share (they may not wait for the others) but count against the
// period like any call, and what they coded counts at the next share.
TEST(CollAlgoUncoded, NonBlockingCallsCountAgainstThePeriodAndWhatTheyCodedCountsAtTheShare)
{
    zip_algo_uncoded_t u{};
    EXPECT_EQ(blocking_calls(u, 4, false), "...s");
    for (int i = 0; i < 16; ++i)
        EXPECT_TRUE(zip_algo_uncoded_hands_on(&u)) << "non-blocking call " << i;
    EXPECT_FALSE(zip_algo_uncoded_hands_on(&u)); // the 17th takes zip's path
    zip_algo_uncoded_record(&u, true);           // and codes
    EXPECT_EQ(blocking_calls(u, 4, false), "...s");
    EXPECT_EQ(u.hand_on, 0u); // the share saw the non-blocking call's frames
    EXPECT_EQ(u.period, 0u);
}

// The record is kept under policy auto on links of at least 3 Gbit/s per rank, where zip's raw
// schedule is tuned's linear algorithm with samples; below, zip's few steps at a time beat it.
TEST(CollAlgoUncoded, AppliesUnderAutoOnFastLinksOnly)
{
    zip_algo_policy_t p{};
    p.mode = ZIP_POLICY_AUTO;
    p.speeds.link_Bps = 375e6;
    EXPECT_TRUE(zip_algo_uncoded_applies(&p));
    p.speeds.link_Bps = 125e6; // 1 Gbit/s
    EXPECT_FALSE(zip_algo_uncoded_applies(&p));
    p.speeds.link_Bps = 12.5e9;
    p.mode = ZIP_POLICY_ALWAYS;
    EXPECT_FALSE(zip_algo_uncoded_applies(&p));
}
