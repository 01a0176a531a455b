// How the threads of one decompression share a frame's blocks (block_claims.hpp): each takes
// its own contiguous range in order, then the others' next blocks; every block goes to exactly
// one thread, whatever the timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "block_claims.hpp"

namespace
{

using zip::BlockClaims;

std::vector<size_t> drain(BlockClaims &claims, unsigned cursor)
{
    std::vector<size_t> got;
    for (size_t i; (i = claims.next(cursor)) != BlockClaims::kNone;)
        got.push_back(i);
    return got;
}

} // namespace

TEST(BlockClaims, AThreadTakesItsOwnRangeInOrderThenHelpsTheNextRanges)
{
    BlockClaims claims(10, 3); // ranges [0, 3), [3, 6), [6, 10)
    EXPECT_EQ(drain(claims, 1), (std::vector<size_t>{3, 4, 5, 6, 7, 8, 9, 0, 1, 2}));
}

TEST(BlockClaims, ALateThreadFindsWhatTheOthersLeft)
{
    BlockClaims claims(8, 2); // ranges [0, 4), [4, 8)
    unsigned first = 0;
    for (size_t want : {0u, 1u, 2u, 3u, 4u, 5u})
        EXPECT_EQ(claims.next(first), want);
    // The second thread wakes now: its range's next blocks, then nothing.
    EXPECT_EQ(drain(claims, 1), (std::vector<size_t>{6, 7}));
    EXPECT_EQ(claims.next(first), BlockClaims::kNone);
}

TEST(BlockClaims, FewerBlocksThanThreadsLeaveSomeRangesEmpty)
{
    BlockClaims claims(2, 4);
    std::vector<size_t> all;
    for (unsigned t = 0; t < 4; ++t)
        for (size_t i : drain(claims, t))
            all.push_back(i);
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, (std::vector<size_t>{0, 1}));
}

TEST(BlockClaims, NoBlocksGiveNothing)
{
    BlockClaims claims(0, 2);
    unsigned cursor = 1;
    EXPECT_EQ(claims.next(cursor), BlockClaims::kNone);
}

TEST(BlockClaims, EveryBlockGoesToExactlyOneThreadUnderContention)
{
    for (unsigned parts : {2u, 3u, 8u}) {
        for (size_t nblocks : {size_t(1), size_t(7), size_t(64), size_t(1000)}) {
            BlockClaims claims(nblocks, parts);
            std::vector<std::atomic<int>> taken(nblocks);
            std::vector<std::thread> threads;
            for (unsigned t = 0; t < parts; ++t) {
                threads.emplace_back([&, t] {
                    // Staggered starts: late threads must still find blocks or nothing.
                    std::this_thread::sleep_for(std::chrono::microseconds(50 * t));
                    unsigned cursor = t;
                    for (size_t i; (i = claims.next(cursor)) != BlockClaims::kNone;)
                        taken[i].fetch_add(1);
                });
            }
            for (auto &th : threads)
                th.join();
            for (size_t i = 0; i < nblocks; ++i)
                ASSERT_EQ(taken[i].load(), 1)
                    << "block " << i << " of " << nblocks << ", " << parts << " threads";
        }
    }
}
