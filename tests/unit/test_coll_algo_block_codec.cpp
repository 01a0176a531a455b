// How an algorithm's blocks are coded (ompi-coll-zip/algo/block_codec.hpp): the first block a
// BlockCodec encodes is its sample; the policy's verdict on it decides for that block and for
// every later one.
#include <gtest/gtest.h>

#include <vector>

#include "block_codec.hpp"
#include "test_coll_algo_support.hpp"

namespace
{

using algotest::ToyCodec;

// One shot on a 1 GB/s link with a codec at 2.8 GB/s each way: coding alone (0.71 ns a byte)
// leaves room below the raw wire (1 ns, 0.9 with the policy's margin) only for ratios above 5.4
// (so the link test, at a ratio of 8, finds it worth a sample).
zip_algo_policy_t slow_codec_policy()
{
    zip_algo_policy_t p{};
    p.mode = ZIP_POLICY_AUTO;
    p.shape = ZIP_TRANSFER_ONE_SHOT;
    p.speeds = {2.8e9, 2.8e9, 1e9};
    return p;
}

// Runs of four bytes, each unlike the last: the toy codec (a length and a byte per run) halves
// them.
std::vector<char> runs_of_four(size_t n)
{
    std::vector<char> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = char(1 + (i / 4) % 200);
    return v;
}

zipcoll::BlockPolicy block_policy(const zip_algo_policy_t *policy)
{
    zipcoll::BlockPolicy b;
    b.try_compress = true;
    b.policy = policy;
    return b;
}

} // namespace

// A block no larger than a sample is coded whole to judge it. Where the verdict is that
// compressing does not pay, it goes raw although its frame is shorter: its receivers would
// still pay the decoding the verdict weighed (an allreduce's chunks, decoded by every rank).
TEST(BlockCodecSample, ABlockThatWasItsOwnSampleGoesRawWhereTheVerdictSaysSo)
{
    ToyCodec toy;
    const zip_codec_ops_t ops = toy.ops();
    const zip_algo_policy_t policy = slow_codec_policy();
    zip_algo_result_t res{};
    res.verdict = -1;
    zipcoll::BlockCodec coder(&ops, block_policy(&policy), &res);
    std::vector<char> data = runs_of_four(32768), slot(32768);
    const char *out = nullptr;
    size_t len = 0;
    coder.encode({1, data.data(), data.size()}, slot.data(), &out, &len);
    EXPECT_EQ(res.verdict, ZIP_VERDICT_INCOMPRESSIBLE);
    EXPECT_EQ(toy.compressions.load(), 1u); // coded once, to judge it
    EXPECT_EQ(out, data.data());
    EXPECT_EQ(len, data.size());
    EXPECT_EQ(res.compressed, 0);
    EXPECT_FALSE(coder.compressing());
}

// The same block with a codec fast enough that its ratio pays goes as its frame.
TEST(BlockCodecSample, ABlockThatWasItsOwnSampleGoesAsItsFrameWhereItPays)
{
    ToyCodec toy;
    const zip_codec_ops_t ops = toy.ops();
    zip_algo_policy_t policy = slow_codec_policy();
    policy.speeds.compress_Bps = policy.speeds.decompress_Bps = 20e9;
    zip_algo_result_t res{};
    res.verdict = -1;
    zipcoll::BlockCodec coder(&ops, block_policy(&policy), &res);
    std::vector<char> data = runs_of_four(32768), slot(32768);
    const char *out = nullptr;
    size_t len = 0;
    coder.encode({1, data.data(), data.size()}, slot.data(), &out, &len);
    EXPECT_EQ(res.verdict, ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(out, slot.data());
    EXPECT_LT(len, data.size() * 2 / 3);
    EXPECT_EQ(res.compressed, 1);
}
