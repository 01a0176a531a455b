// Which pooled staging buffer serves a request (common/buffer_fit.h), as pml/zip's buffer pool
// asks it.
#include <gtest/gtest.h>

#include <vector>

#include "buffer_fit.h"

namespace
{

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;

int pick(const std::vector<size_t> &caps, size_t bytes)
{
    return zip_buffer_pick(caps.data(), int(caps.size()), bytes);
}

TEST(BufferFit, ACapacityHoldsTheRequest)
{
    for (size_t bytes : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(4095), size_t(4104),
                         64 * kKiB - 1, 64 * kKiB, 64 * kKiB + 1, 3 * kMiB + 5})
        EXPECT_GE(zip_buffer_capacity(bytes), bytes == 0 ? 1 : bytes) << bytes;
}

// A 4 KiB landing buffer with ob1's 8-byte gap once took a whole second page.
TEST(BufferFit, SmallRequestsAreNotRoundedToPages)
{
    EXPECT_EQ(zip_buffer_capacity(4096 + 8), 4096u + 256u);
    EXPECT_EQ(zip_buffer_capacity(14), 256u);
    EXPECT_EQ(zip_buffer_capacity(0), 256u);
}

TEST(BufferFit, LargeRequestsAreWholePages)
{
    EXPECT_EQ(zip_buffer_capacity(64 * kKiB), 64 * kKiB);
    EXPECT_EQ(zip_buffer_capacity(64 * kKiB + 1), 64 * kKiB + 4096);
    EXPECT_EQ(zip_buffer_capacity(1 * kMiB - 100), 1 * kMiB);
}

TEST(BufferFit, SizesThatDifferByALittleShareOneCapacity)
{
    EXPECT_EQ(zip_buffer_capacity(1 * kMiB - 100), zip_buffer_capacity(1 * kMiB - 7));
    EXPECT_EQ(zip_buffer_capacity(4000), zip_buffer_capacity(4090));
}

TEST(BufferFit, NoFreeBufferMeansAllocate)
{
    EXPECT_EQ(pick({}, 100), -1);
}

TEST(BufferFit, TheSmallestBufferThatHoldsTheRequestServesIt)
{
    EXPECT_EQ(pick({8 * kMiB, 1 * kMiB, 2 * kMiB, 512 * kKiB}, 600 * kKiB), 1);
    EXPECT_EQ(pick({4352, 256, 8 * kKiB}, 4104), 0);
    EXPECT_EQ(pick({1 * kMiB}, 1 * kMiB), 0);
}

TEST(BufferFit, BuffersTooSmallAreNotServed)
{
    EXPECT_EQ(pick({4096, 60 * kKiB}, 60 * kKiB + 1), -1);
}

// A small receive waits for its message holding its buffer: on a 16 MiB one, the next 16 MiB
// message would fault in a new buffer.
TEST(BufferFit, ALargeBufferDoesNotServeASmallRequest)
{
    EXPECT_EQ(pick({16 * kMiB}, 4104), -1);
    EXPECT_EQ(pick({16 * kMiB}, 4 * kMiB - 1), -1);
    EXPECT_EQ(pick({16 * kMiB}, 4 * kMiB), 0);
    EXPECT_EQ(pick({16 * kMiB, 8 * kKiB}, 4104), 1);
}

// Among small buffers the waste rule does not apply: they are cheap, and malloc rounds too.
TEST(BufferFit, ASmallBufferServesAnySmallerRequest)
{
    EXPECT_EQ(pick({64 * kKiB}, 1), 0);
}

} // namespace
