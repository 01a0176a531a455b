// Frames coded on several threads (zip_ctx_set_threads): bit-exact, the same frame as one
// thread where every block is tried, decodable by a context with any thread count, and the
// same errors on damaged frames.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;

struct Ctx {
    explicit Ctx(const char *spec, unsigned threads) : c(zip_ctx_create(spec, nullptr))
    {
        EXPECT_NE(c, nullptr);
        EXPECT_EQ(zip_ctx_set_threads(c, threads), ZIP_OK);
    }
    ~Ctx() { zip_ctx_destroy(c); }
    zip_ctx_t *c;
};

std::vector<uint8_t> compress(zip_ctx_t *ctx, zip_elem_type_t type, const std::vector<uint8_t> &src)
{
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t len = 0;
    EXPECT_EQ(zip_compress(ctx, 0, type, src.data(), src.size() / zip_elem_size(type), frame.data(),
                           frame.size(), &len),
              ZIP_OK);
    frame.resize(len);
    return frame;
}

zip_status_t decompress(zip_ctx_t *ctx, const std::vector<uint8_t> &frame,
                        std::vector<uint8_t> &out)
{
    size_t n = 0;
    return zip_decompress(ctx, 0, frame.data(), frame.size(), out.data(), out.size(), &n);
}

} // namespace

TEST(FrameThreads, RejectsCountsOutsideOneToSixtyFour)
{
    zip_ctx_t *c = zip_ctx_create("fast", nullptr);
    EXPECT_EQ(zip_ctx_set_threads(c, 0), ZIP_E_ARG);
    EXPECT_EQ(zip_ctx_set_threads(c, 65), ZIP_E_ARG);
    EXPECT_EQ(zip_ctx_set_threads(c, 3), ZIP_OK);
    EXPECT_EQ(zip_ctx_set_threads(c, 1), ZIP_OK);
    EXPECT_EQ(zip_ctx_set_threads(nullptr, 2), ZIP_E_ARG);
    zip_ctx_destroy(c);
}

// Compressible data (every block is tried whatever the thread count): the frames are the same
// bytes as one thread's, and every context decodes them exactly.
TEST(FrameThreads, GiveTheSingleThreadFrameAndDecodeExactly)
{
    for (const char *spec : {"fast", "fpc", "lz4", "trunc:20+fast"}) {
        for (const char *set : {"heat3d", "gauss-1024", "records-5"}) {
            for (size_t bytes : {size_t(300) << 10, size_t(1) << 20, (size_t(3) << 20) + 24}) {
                auto src = dataset_bytes(set, ZIP_TYPE_F64, bytes / 8);
                Ctx one(spec, 1);
                auto reference = compress(one.c, ZIP_TYPE_F64, src);
                std::vector<uint8_t> want(src.size());
                ASSERT_EQ(decompress(one.c, reference, want), ZIP_OK);
                for (unsigned threads : {2u, 3u, 7u}) {
                    Ctx many(spec, threads);
                    auto frame = compress(many.c, ZIP_TYPE_F64, src);
                    EXPECT_TRUE(frame == reference)
                        << spec << " " << set << " " << bytes << " threads=" << threads;
                    std::vector<uint8_t> out(src.size(), 0xee);
                    ASSERT_EQ(decompress(many.c, frame, out), ZIP_OK);
                    EXPECT_TRUE(out == want) << spec << " " << set << " threads=" << threads;
                }
            }
        }
    }
}

// Incompressible blocks between compressible ones: still exact, across thread counts. Several
// threads try every block (one thread skips blocks after a run of raw ones), so the frame is the
// same for every thread count above one, however the blocks fell to the threads.
TEST(FrameThreads, MixedDataRoundTripsBetweenThreadCounts)
{
    auto smooth = dataset_bytes("heat3d", ZIP_TYPE_F64, 65536);
    auto noise = dataset_bytes("random", ZIP_TYPE_F64, 65536);
    std::vector<uint8_t> src;
    for (int i = 0; i < 4; ++i) {
        src.insert(src.end(), noise.begin(), noise.end());
        src.insert(src.end(), smooth.begin(), smooth.begin() + (i + 1) * 70000);
    }
    src.resize(src.size() / 8 * 8);
    std::vector<uint8_t> parallel_frame;
    for (unsigned enc_threads : {1u, 2u, 5u, 2u}) {
        Ctx enc("fast", enc_threads);
        auto frame = compress(enc.c, ZIP_TYPE_F64, src);
        if (enc_threads > 1) {
            if (parallel_frame.empty())
                parallel_frame = frame;
            EXPECT_TRUE(frame == parallel_frame) << enc_threads << " threads";
        }
        for (unsigned dec_threads : {1u, 2u, 4u}) {
            Ctx dec("fast", dec_threads);
            std::vector<uint8_t> out(src.size());
            ASSERT_EQ(decompress(dec.c, frame, out), ZIP_OK);
            EXPECT_TRUE(out == src) << enc_threads << " -> " << dec_threads;
        }
    }
}

// Many frames in a row through the same contexts (the workers are reused between calls, spinning
// or asleep): every one exact and the same as one thread's.
TEST(FrameThreads, BackToBackFramesStayExact)
{
    auto src = dataset_bytes("gauss-1024", ZIP_TYPE_F64, (size_t(1) << 20) / 8);
    Ctx one("fast", 1), enc("fast", 3), dec("fast", 2);
    const auto reference = compress(one.c, ZIP_TYPE_F64, src);
    std::vector<uint8_t> out(src.size());
    for (int i = 0; i < 200; ++i) {
        auto frame = compress(enc.c, ZIP_TYPE_F64, src);
        ASSERT_TRUE(frame == reference) << "call " << i;
        std::fill(out.begin(), out.end(), 0);
        ASSERT_EQ(decompress(dec.c, frame, out), ZIP_OK) << "call " << i;
        ASSERT_TRUE(out == src) << "call " << i;
    }
}

// Below 1 MiB the workers help only right after another call (they are still spinning);
// otherwise the caller codes alone. Either way every block is tried, so the frame is the same:
// here runs of incompressible blocks (one thread would skip blocks after two raw ones) in
// 512 KiB, coded first (alone), then back to back, then after the workers fell asleep.
TEST(FrameThreads, TheFrameIsTheSameWhetherTheWorkersHelpOrNot)
{
    auto smooth = dataset_bytes("heat3d", ZIP_TYPE_F64, 65536 / 8);
    auto noise = dataset_bytes("random", ZIP_TYPE_F64, 3 * 65536 / 8);
    std::vector<uint8_t> src;
    for (int i = 0; i < 2; ++i) {
        src.insert(src.end(), noise.begin(), noise.end());
        src.insert(src.end(), smooth.begin(), smooth.end());
    }
    ASSERT_EQ(src.size(), size_t(512) << 10);
    Ctx many("fast", 5);
    const auto reference = compress(many.c, ZIP_TYPE_F64, src); // a fresh context: alone
    Ctx enc("fast", 2), dec("fast", 2);
    std::vector<uint8_t> out(src.size());
    for (int i = 0; i < 60; ++i) {
        if (i % 4 == 3)
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        auto frame = compress(enc.c, ZIP_TYPE_F64, src);
        ASSERT_TRUE(frame == reference) << "call " << i;
        std::fill(out.begin(), out.end(), 0);
        ASSERT_EQ(decompress(dec.c, frame, out), ZIP_OK) << "call " << i;
        ASSERT_TRUE(out == src) << "call " << i;
    }
    Ctx one("fast", 1); // skips blocks after raw ones: another frame, the same payload
    EXPECT_FALSE(compress(one.c, ZIP_TYPE_F64, src) == reference);
}

// A damaged block fails the same way whether one thread or several decode the frame.
TEST(FrameThreads, ReportTheSameErrorOnADamagedBlock)
{
    auto src = dataset_bytes("heat3d", ZIP_TYPE_F64, (size_t(1) << 20) / 8);
    Ctx enc("fast", 1);
    auto frame = compress(enc.c, ZIP_TYPE_F64, src);
    // The third case damages two blocks: the first one's error is reported, as one thread would.
    const std::vector<std::vector<size_t>> damage = {
        {frame.size() / 3}, {frame.size() - 10}, {frame.size() / 3, frame.size() - 10}};
    for (const auto &spots : damage) {
        auto bad = frame;
        for (size_t at : spots)
            bad[at] ^= 0x40;
        std::vector<uint8_t> out(src.size());
        Ctx one("fast", 1), two("fast", 2);
        const zip_status_t s1 = decompress(one.c, bad, out);
        const zip_status_t s2 = decompress(two.c, bad, out);
        EXPECT_NE(s1, ZIP_OK);
        EXPECT_EQ(s1, s2);
        EXPECT_STREQ(zip_ctx_last_error(one.c), zip_ctx_last_error(two.c));
    }
}
