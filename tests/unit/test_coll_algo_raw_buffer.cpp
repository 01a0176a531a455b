// The algorithms' working memory (ompi-coll-zip/algo/raw_buffer.hpp): buffers of 256 KiB and
// more are kept between calls, so that a collective does not map and fault its staging anew on
// every call; what is kept stays bounded and can be given back.
#include <gtest/gtest.h>

#include <cstring>

#include "raw_buffer.hpp"
#include "zip_algo.h"

namespace
{

class RawBufferCache : public ::testing::Test
{
  protected:
    void SetUp() override { zipcoll::release_raw_buffers(); }
    void TearDown() override
    {
        zipcoll::release_raw_buffers();
        zipcoll::set_raw_buffer_cache_limit(zipcoll::kDefaultRawBufferCache);
    }
};

TEST_F(RawBufferCache, AFreedLargeBufferServesTheNextCallThatFits)
{
    char *first = nullptr;
    {
        auto b = zipcoll::raw_buffer(1 << 20);
        ASSERT_NE(b, nullptr);
        std::memset(b.get(), 1, 1 << 20); // all of it is usable
        first = b.get();
    }
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), size_t(1) << 20);
    auto again = zipcoll::raw_buffer(512 << 10);
    EXPECT_EQ(again.get(), first);
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
    auto larger = zipcoll::raw_buffer(2 << 20); // nothing cached fits: a new one
    ASSERT_NE(larger, nullptr);
    EXPECT_NE(larger.get(), first);
}

// The glue's packed blocks (coll_zip_view.c) take and give the same memory through the C API.
TEST_F(RawBufferCache, TheGlueTakesAndGivesTheSameBuffersThroughTheCApi)
{
    size_t cap = 0;
    void *p = zip_algo_buffer_take(600 << 10, &cap);
    ASSERT_NE(p, nullptr);
    EXPECT_GE(cap, size_t(600) << 10);
    std::memset(p, 7, cap);
    zip_algo_buffer_give(p, cap);
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), cap);
    size_t again_cap = 0;
    void *again = zip_algo_buffer_take(512 << 10, &again_cap);
    EXPECT_EQ(again, p);
    EXPECT_EQ(again_cap, cap);
    zip_algo_buffer_give(again, again_cap);
    size_t none = 1;
    EXPECT_EQ(zip_algo_buffer_take(0, &none), nullptr);
    EXPECT_EQ(none, 0u);
}

TEST_F(RawBufferCache, SmallBuffersGoBackToTheHeap)
{
    {
        auto b = zipcoll::raw_buffer(64 << 10);
    }
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
    EXPECT_EQ(zipcoll::raw_buffer(0), nullptr);
}

TEST_F(RawBufferCache, AtMostFourBuffersAndSixtyFourMebibytesAreKeptTheLargestFirst)
{
    {
        auto a = zipcoll::raw_buffer(1 << 20), b = zipcoll::raw_buffer(2 << 20),
             c = zipcoll::raw_buffer(3 << 20), d = zipcoll::raw_buffer(4 << 20),
             e = zipcoll::raw_buffer(5 << 20);
    }
    // Five freed: the smallest (1 MiB) gave way.
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), size_t(14) << 20);
    {
        auto huge = zipcoll::raw_buffer(60 << 20); // would pass 64 MiB with the others
        ASSERT_NE(huge, nullptr);
    }
    EXPECT_LE(zipcoll::cached_raw_buffer_bytes(), size_t(64) << 20);
    zipcoll::release_raw_buffers();
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
}

TEST_F(RawBufferCache, ALimitOfZeroKeepsNothing)
{
    zipcoll::set_raw_buffer_cache_limit(0);
    {
        auto b = zipcoll::raw_buffer(1 << 20);
        ASSERT_NE(b, nullptr);
    }
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
}

TEST_F(RawBufferCache, ALowerLimitKeepsOnlyWhatFitsUnderIt)
{
    zipcoll::set_raw_buffer_cache_limit(size_t(3) << 20);
    {
        auto big = zipcoll::raw_buffer(4 << 20); // larger than the limit: back to the heap
        ASSERT_NE(big, nullptr);
    }
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
    {
        auto a = zipcoll::raw_buffer(1 << 20), b = zipcoll::raw_buffer(2 << 20),
             c = zipcoll::raw_buffer(1 << 20);
    }
    // Freed in reverse order of allocation: c and b fit (3 MiB), a does not.
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), size_t(3) << 20);
}

TEST_F(RawBufferCache, LoweringTheLimitFreesTheSmallestKeptBuffersFirst)
{
    char *largest = nullptr;
    {
        auto a = zipcoll::raw_buffer(1 << 20), b = zipcoll::raw_buffer(2 << 20),
             c = zipcoll::raw_buffer(4 << 20);
        largest = c.get();
    }
    ASSERT_EQ(zipcoll::cached_raw_buffer_bytes(), size_t(7) << 20);
    zipcoll::set_raw_buffer_cache_limit(size_t(5) << 20);
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), size_t(4) << 20);
    auto again = zipcoll::raw_buffer(3 << 20);
    EXPECT_EQ(again.get(), largest);
    zipcoll::set_raw_buffer_cache_limit(0);
    EXPECT_EQ(zipcoll::cached_raw_buffer_bytes(), 0u);
}

} // namespace
