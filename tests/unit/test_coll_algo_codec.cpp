// The algorithms' codec seam on libzipcodec (zip_algo_codec_bind) and the policy's observe
// judgement (zip_algo_observe_saving).
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

namespace
{

// Steps of equal doubles: they shrink as doubles and as bytes.
std::vector<double> smooth(size_t n)
{
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = double(i / 16) * 0.5;
    return v;
}

struct Bound {
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    zip_algo_codec_binding_t binding{};
    zip_codec_ops_t ops{};
    explicit Bound(int corrupt_every = 0)
    {
        binding.codec = ctx;
        binding.corrupt_every = corrupt_every;
        zip_algo_codec_bind(&ops, &binding);
    }
    ~Bound() { zip_ctx_destroy(ctx); }
    // Compresses into less room than the data; returns the frame (empty if it did not shrink).
    std::vector<char> compress(int elem_type, const void *src, size_t bytes)
    {
        std::vector<char> frame(bytes);
        size_t len = 0;
        if (ops.compress(ops.ctx, elem_type, src, bytes, frame.data(), bytes - 1, &len) != 0)
            return {};
        frame.resize(len);
        return frame;
    }
};

} // namespace

TEST(CollAlgoCodec, BoundCodecRoundTripsAndCountsItsTime)
{
    Bound b;
    ASSERT_NE(b.ctx, nullptr);
    const auto data = smooth(100000);
    // A length that is not whole doubles takes the byte codec.
    for (const size_t bytes : {data.size() * 8, data.size() * 8 - 3}) {
        const auto frame = b.compress(ZIP_ALGO_F64, data.data(), bytes);
        ASSERT_FALSE(frame.empty()) << bytes;
        std::vector<char> out(bytes);
        size_t raw = 0;
        ASSERT_EQ(b.ops.decompress(b.ops.ctx, frame.data(), frame.size(), out.data(), bytes, &raw),
                  0);
        EXPECT_EQ(raw, bytes);
        EXPECT_EQ(std::memcmp(out.data(), data.data(), bytes), 0);
    }
    EXPECT_GT(b.binding.codec_ns, 0u);
    EXPECT_EQ(b.binding.failed, ZIP_OK);
}

// The testing knob: every frame corrupted, and the failed decode remembered.
TEST(CollAlgoCodec, CorruptedFramesFailToDecode)
{
    Bound b(1);
    const auto data = smooth(20000);
    const auto frame = b.compress(ZIP_ALGO_F64, data.data(), data.size() * 8);
    ASSERT_FALSE(frame.empty());
    std::vector<char> out(data.size() * 8);
    size_t raw = 0;
    EXPECT_NE(b.ops.decompress(b.ops.ctx, frame.data(), frame.size(), out.data(), out.size(), &raw),
              0);
    EXPECT_NE(b.binding.failed, ZIP_OK);
}

// Observe predicts a saving where compressing pays (smooth data over 1 Gbit/s), none for data
// that does not shrink or over a link faster than the codec.
TEST(CollAlgoCodec, ObserveSavesOnlyWhereCompressingPays)
{
    Bound b;
    const zip_algo_policy_t slow{ZIP_POLICY_OBSERVE, {2e9, 3e9, 125e6, 0}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t fast{ZIP_POLICY_OBSERVE, {2e9, 3e9, 50e9, 0}, ZIP_TRANSFER_PIPELINED};
    const auto data = smooth(1 << 17);
    const auto noise = algotest::make_data(1 << 20, false, 7);
    const size_t bytes = data.size() * 8;
    EXPECT_GT(zip_algo_observe_saving(&b.ops, &slow, ZIP_ALGO_F64, data.data(), bytes, bytes), 0.0);
    EXPECT_EQ(zip_algo_observe_saving(&b.ops, &fast, ZIP_ALGO_F64, data.data(), bytes, bytes), 0.0);
    EXPECT_EQ(
        zip_algo_observe_saving(&b.ops, &slow, ZIP_ALGO_BYTES, noise.data(), noise.size(), bytes),
        0.0);
}
