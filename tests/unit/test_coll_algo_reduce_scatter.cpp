// The compressed reduce-scatter (the allreduce ring's first half) on the in-process transport:
// block b, of the callers' sizes (uneven, empty), ends on rank b as the sum in the documented
// order, (...((x_{b+1} + x_{b+2}) + ...) + x_{b+p}), bit for bit; the other blocks are not its
// to keep. Partial results travel compressed where they shrink, raw where they do not; a
// failing decoder is an error on every rank that decodes, and nobody hangs; the non-blocking
// form gives the blocking results.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "test_coll_algo_sums.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::contribution;
using algotest::kSum;
using algotest::ToyCodec;
using algotest::World;

namespace
{

// Doubles in block b of p: some empty, the others uneven.
std::vector<size_t> block_counts(int p, size_t base)
{
    std::vector<size_t> counts(static_cast<size_t>(p));
    for (int b = 0; b < p; ++b)
        counts[size_t(b)] = (p > 2 && b % 3 == 1) ? 0 : base + size_t(b) * 517;
    return counts;
}

// Block b (doubles [first, first + count)) reduced from rank b + 1 onwards.
std::vector<double> reference_block(const std::vector<std::vector<double>> &x, int b, size_t first,
                                    size_t count)
{
    const int p = int(x.size());
    std::vector<double> out(count);
    for (size_t i = 0; i < count; ++i) {
        double acc = x[size_t((b + 1) % p)][first + i];
        for (int k = 2; k <= p; ++k)
            acc = acc + x[size_t((b + k) % p)][first + i];
        out[i] = acc;
    }
    return out;
}

struct Outcome {
    std::vector<std::vector<double>> inputs, bufs;
    std::vector<int> rc;
    std::vector<zip_algo_result_t> res;
    size_t unreceived = 0;
};

Outcome run(int size, const std::vector<size_t> &counts, bool compressible, ToyCodec &codec,
            bool nonblocking = false, bool rendezvous = false)
{
    size_t n = 0;
    std::vector<size_t> bytes(counts.size());
    for (size_t b = 0; b < counts.size(); ++b) {
        n += counts[b];
        bytes[b] = counts[b] * sizeof(double);
    }
    Outcome o;
    for (int r = 0; r < size; ++r)
        o.inputs.push_back(contribution(r, n, compressible));
    o.bufs = o.inputs;
    o.rc.assign(size_t(size), -100);
    o.res.resize(size_t(size));
    const zip_codec_ops_t ops = codec.ops();
    World w(size, false, 0, nonblocking);
    w.rendezvous = rendezvous;
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t a{};
        a.buf = o.bufs[size_t(rank)].data();
        a.bytes = n * sizeof(double);
        a.tag = 11;
        a.elem_type = ZIP_ALGO_F64;
        a.threshold = 256;
        a.reduce = &kSum;
        a.block_bytes = bytes.data();
        if (!nonblocking) {
            o.rc[size_t(rank)] = zip_algo_reduce_scatter(&t, &ops, &a, &o.res[size_t(rank)]);
            return;
        }
        zip_algo_call_t *call = zip_algo_ireduce_scatter(&t, &ops, &a, &o.res[size_t(rank)]);
        ASSERT_NE(call, nullptr);
        while (zip_algo_call_advance(call) == 0) {
        }
        o.rc[size_t(rank)] = zip_algo_call_finish(call);
    });
    o.unreceived = w.unreceived();
    return o;
}

// Every rank's own block against the reference, bit for bit.
void expect_blocks_exact(const Outcome &o, const std::vector<size_t> &counts)
{
    size_t first = 0;
    for (size_t b = 0; b < counts.size(); ++b) {
        const auto want = reference_block(o.inputs, int(b), first, counts[b]);
        EXPECT_EQ(o.rc[b], ZIP_ALGO_OK) << "rank " << b;
        EXPECT_EQ(0, counts[b] == 0 ? 0
                                    : std::memcmp(o.bufs[b].data() + first, want.data(),
                                                  counts[b] * sizeof(double)))
            << "rank " << b << " of " << counts.size();
        first += counts[b];
    }
    EXPECT_EQ(o.unreceived, 0u);
}

} // namespace

class CollAlgoReduceScatter : public ::testing::TestWithParam<int>
{
};

TEST_P(CollAlgoReduceScatter, EveryRankGetsItsBlockSummedFromTheNextRankOnBitForBit)
{
    const int size = GetParam();
    for (size_t base : {size_t(1), size_t(1000), size_t(9001)}) {
        for (bool compressible : {true, false}) {
            ToyCodec codec;
            const auto counts = block_counts(size, base);
            expect_blocks_exact(run(size, counts, compressible, codec), counts);
        }
    }
}

TEST_P(CollAlgoReduceScatter, EqualBlocksAsReduceScatterBlock)
{
    const int size = GetParam();
    ToyCodec codec;
    const std::vector<size_t> counts(size_t(size), 4096);
    expect_blocks_exact(run(size, counts, true, codec), counts);
}

TEST_P(CollAlgoReduceScatter, RendezvousSendsLeaveEveryBlockExact)
{
    const int size = GetParam();
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const auto counts = block_counts(size, 20001);
        expect_blocks_exact(run(size, counts, compressible, codec, false, true), counts);
    }
}

TEST_P(CollAlgoReduceScatter, PartialResultsTravelCompressedWhenTheyShrinkRawOtherwise)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank sends nothing";
    const std::vector<size_t> counts(size_t(size), 8192);
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const Outcome o = run(size, counts, compressible, codec);
        for (int r = 0; r < size; ++r) {
            // p - 1 blocks leave each rank, once each: half an allreduce's traffic.
            EXPECT_EQ(o.res[size_t(r)].bytes_in, size_t(size - 1) * 8192 * sizeof(double));
            if (compressible) {
                EXPECT_EQ(o.res[size_t(r)].compressed, 1) << "rank " << r;
                EXPECT_LT(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in);
            } else {
                EXPECT_EQ(o.res[size_t(r)].compressed, 0) << "rank " << r;
                EXPECT_EQ(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in);
            }
        }
    }
}

TEST_P(CollAlgoReduceScatter, AFailingDecoderIsAnErrorOnTheRanksThatDecodeAndNobodyHangs)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank decodes nothing";
    ToyCodec codec;
    codec.fail_decode = true;
    const Outcome o = run(size, std::vector<size_t>(size_t(size), 8192), true, codec);
    for (int r = 0; r < size; ++r)
        EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_ERR_CODEC) << "rank " << r;
    EXPECT_EQ(o.unreceived, 0u);
}

TEST_P(CollAlgoReduceScatter, TheNonBlockingFormGivesTheBlockingResults)
{
    const int size = GetParam();
    ToyCodec codec;
    const auto counts = block_counts(size, 9001);
    expect_blocks_exact(run(size, counts, true, codec, true), counts);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoReduceScatter, ::testing::Values(1, 2, 3, 5, 8));

TEST(CollAlgoReduceScatterArgs, BlocksThatDoNotAddUpToThePayloadAreRejected)
{
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(2);
    std::vector<int> rc(2, -100);
    w.run([&](int rank, const zip_transport_t &t) {
        std::vector<double> buf(100, 1.0);
        const size_t blocks[2] = {40 * sizeof(double), 50 * sizeof(double)}; // 90 of 100
        const size_t odd[2] = {40 * sizeof(double) + 3, 60 * sizeof(double) - 3};
        zip_allreduce_args_t a{};
        a.buf = buf.data();
        a.bytes = buf.size() * sizeof(double);
        a.reduce = &kSum;
        a.block_bytes = rank == 0 ? blocks : odd;
        zip_algo_result_t res;
        rc[size_t(rank)] = zip_algo_reduce_scatter(&t, &ops, &a, &res);
        a.block_bytes = nullptr;
        EXPECT_EQ(zip_algo_reduce_scatter(&t, &ops, &a, &res), ZIP_ALGO_ERR_ARG);
    });
    EXPECT_EQ(rc[0], ZIP_ALGO_ERR_ARG);
    EXPECT_EQ(rc[1], ZIP_ALGO_ERR_ARG); // not whole elements
}
