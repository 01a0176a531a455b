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
    p.speeds = {2.8e9, 2.8e9, 1e9, 0};
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

// What one block of runs_of_four, the first a BlockCodec under `policy` encodes, became.
struct Encoded {
    std::vector<char> data = runs_of_four(32768), slot = std::vector<char>(32768);
    const char *out = nullptr;
    size_t len = 0;
    size_t codings = 0;
    zip_algo_result_t res{};
    bool still_compressing = false;
};

Encoded encode_first_block(const zip_algo_policy_t &policy)
{
    ToyCodec toy;
    const zip_codec_ops_t ops = toy.ops();
    zipcoll::BlockPolicy block;
    block.try_compress = true;
    block.policy = &policy;
    Encoded e;
    e.res.verdict = -1;
    zipcoll::BlockCodec coder(&ops, block, &e.res);
    coder.encode({1, e.data.data(), e.data.size()}, e.slot.data(), &e.out, &e.len);
    e.codings = toy.compressions.load();
    e.still_compressing = coder.compressing();
    return e;
}

} // namespace

// A block no larger than a sample is coded whole to judge it. Where the verdict is that
// compressing does not pay, it goes raw although its frame is shorter: its receivers would
// still pay the decoding the verdict weighed (an allreduce's chunks, decoded by every rank).
TEST(BlockCodecSample, ABlockThatWasItsOwnSampleGoesRawWhereTheVerdictSaysSo)
{
    const Encoded e = encode_first_block(slow_codec_policy());
    EXPECT_EQ(e.res.verdict, ZIP_VERDICT_INCOMPRESSIBLE);
    EXPECT_EQ(e.codings, 1u); // coded once, to judge it
    EXPECT_EQ(e.out, e.data.data());
    EXPECT_EQ(e.len, e.data.size());
    EXPECT_EQ(e.res.compressed, 0);
    EXPECT_FALSE(e.still_compressing);
}

// The same block with a codec fast enough that its ratio pays goes as its frame.
TEST(BlockCodecSample, ABlockThatWasItsOwnSampleGoesAsItsFrameWhereItPays)
{
    zip_algo_policy_t policy = slow_codec_policy();
    policy.speeds.compress_Bps = policy.speeds.decompress_Bps = 20e9;
    const Encoded e = encode_first_block(policy);
    EXPECT_EQ(e.res.verdict, ZIP_VERDICT_COMPRESS);
    EXPECT_EQ(e.out, e.slot.data());
    EXPECT_LT(e.len, e.data.size() * 2 / 3);
    EXPECT_EQ(e.res.compressed, 1);
    EXPECT_TRUE(e.still_compressing);
}
