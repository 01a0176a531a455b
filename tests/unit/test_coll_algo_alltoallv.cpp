// The compressed alltoallv on the in-process transport: uneven and zero blocks around the
// threshold, compressible and random data, and the corrupt-frame error path.
#include <gtest/gtest.h>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

size_t block_bytes(int from, int to, int round)
{
    static const size_t menu[] = {0, 1, 100, 1023, 1024, 1025, 5000, 70000};
    return menu[(from * 3 + to * 5 + round) % 8];
}

std::vector<char> block_data(int from, int to, int round, size_t n)
{
    return algotest::make_data(n, (from + to + round) % 3 != 0,
                               uint64_t(from * 1000 + to * 10 + round));
}

struct ExchangeRun {
    std::vector<int> rc;
    std::vector<zip_algo_result_t> res;
    int mismatches = 0;
};

// policies[rank], if given, is that rank's policy (nullptr: always).
ExchangeRun alltoallv(int size, int round, size_t threshold, size_t window, ToyCodec &codec,
                      const std::vector<const zip_algo_policy_t *> &policies = {})
{
    World w(size);
    ExchangeRun out;
    out.rc.assign(size, -100);
    out.res.resize(size);
    std::vector<std::vector<std::vector<char>>> recv(size, std::vector<std::vector<char>>(size));
    const zip_codec_ops_t ops = codec.ops();
    w.run([&](int rank, const zip_transport_t &t) {
        std::vector<std::vector<char>> send(size);
        std::vector<zip_block_t> sb(size), rb(size);
        for (int p = 0; p < size; ++p) {
            if (p == rank)
                continue;
            send[p] = block_data(rank, p, round, block_bytes(rank, p, round));
            recv[rank][p].assign(block_bytes(p, rank, round), '\x11');
            sb[p] = {send[p].data(), send[p].size()};
            rb[p] = {recv[rank][p].data(), recv[rank][p].size()};
        }
        zip_exchange_args_t a{};
        a.send = sb.data();
        a.recv = rb.data();
        a.tag = 3;
        a.elem_type = ZIP_ALGO_BYTES;
        a.try_compress = 1;
        a.threshold = threshold;
        a.window = window;
        a.policy = policies.empty() ? nullptr : policies[size_t(rank)];
        out.rc[rank] = zip_algo_alltoallv(&t, &ops, &a, &out.res[rank]);
    });
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p)
            if (p != r && recv[r][p] != block_data(p, r, round, block_bytes(p, r, round)))
                ++out.mismatches;
    EXPECT_EQ(w.unreceived(), 0u);
    return out;
}

} // namespace

class CollAlgoAlltoallv : public ::testing::TestWithParam<std::tuple<int, size_t, size_t>>
{
};

TEST_P(CollAlgoAlltoallv, EveryBlockArrivesExactly)
{
    const auto [size, threshold, window] = GetParam();
    ToyCodec codec;
    bool any_compressed = false;
    for (int round = 0; round < 8; ++round) {
        const ExchangeRun r = alltoallv(size, round, threshold, window, codec);
        EXPECT_EQ(r.mismatches, 0) << "round " << round;
        for (int k = 0; k < size; ++k) {
            EXPECT_EQ(r.rc[k], ZIP_ALGO_OK);
            any_compressed |= r.res[k].compressed != 0;
            EXPECT_LE(r.res[k].bytes_out, r.res[k].bytes_in);
        }
    }
    if (size > 1) {
        EXPECT_TRUE(any_compressed);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CollAlgoAlltoallv,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4, 7),
                                            ::testing::Values(size_t(0), size_t(1024),
                                                              size_t(60000)),
                                            ::testing::Values(size_t(0), size_t(2), size_t(16))));

TEST(CollAlgoAlltoallvErrors, CorruptFrameIsReported)
{
    ToyCodec codec;
    codec.fail_decode = true;
    const ExchangeRun r = alltoallv(3, 7, 0, 2, codec);
    int errors = 0;
    for (int k = 0; k < 3; ++k)
        errors += r.rc[k] == ZIP_ALGO_ERR_CODEC;
    EXPECT_GT(errors, 0);
}

// Statistics (docs/user-guide.md): every block a rank sends counts in bytes_in, raw or
// compressed, whatever the threshold; bytes_out is what went on the wire for them, so it equals
// bytes_in when nothing was compressed.
TEST(CollAlgoAlltoallvStats, EverySentBlockCountsInBytesIn)
{
    const int size = 4;
    for (const size_t threshold : {size_t(0), size_t(1024), size_t(1) << 30}) {
        for (int round = 0; round < 3; ++round) {
            ToyCodec codec;
            const ExchangeRun r = alltoallv(size, round, threshold, 2, codec);
            for (int k = 0; k < size; ++k) {
                size_t sent = 0;
                for (int p = 0; p < size; ++p)
                    if (p != k)
                        sent += block_bytes(k, p, round);
                EXPECT_EQ(r.res[k].bytes_in, sent) << "threshold " << threshold;
                if (!r.res[k].compressed) {
                    EXPECT_EQ(r.res[k].bytes_out, sent) << "threshold " << threshold;
                }
            }
        }
    }
}

// The cost model decides at each sender with its own estimates; receivers learn the outcome
// from lengths. Ranks whose estimates differ (a slow link, a link faster than the codec,
// always, never) still exchange every block exactly, and each follows its own verdict.
TEST(CollAlgoAlltoallvPolicy, RanksWithDifferentEstimatesStillDecodeEachOther)
{
    const zip_algo_policy_t slow{ZIP_POLICY_AUTO, {2e9, 3e9, 0.1e9}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t fast{ZIP_POLICY_AUTO, {2e9, 3e9, 20e9}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t never{ZIP_POLICY_NEVER, {0, 0, 0}, ZIP_TRANSFER_PIPELINED};
    const std::vector<const zip_algo_policy_t *> policies = {&slow, &fast, nullptr, &never};
    bool slow_compressed = false;
    for (int round = 0; round < 8; ++round) {
        ToyCodec codec;
        const ExchangeRun r = alltoallv(4, round, 1024, 2, codec, policies);
        EXPECT_EQ(r.mismatches, 0) << "round " << round;
        for (int k = 0; k < 4; ++k)
            EXPECT_EQ(r.rc[k], ZIP_ALGO_OK) << "rank " << k;
        // A link faster than the codec and "never" send raw whatever the data.
        EXPECT_EQ(r.res[1].bytes_out, r.res[1].bytes_in) << "round " << round;
        EXPECT_EQ(r.res[3].bytes_out, r.res[3].bytes_in) << "round " << round;
        if (r.res[1].verdict >= 0) {
            EXPECT_EQ(r.res[1].verdict, ZIP_VERDICT_LINK_FASTER);
        }
        if (r.res[3].verdict >= 0) {
            EXPECT_EQ(r.res[3].verdict, ZIP_VERDICT_NEVER);
        }
        slow_compressed |= r.res[0].bytes_out < r.res[0].bytes_in;
    }
    // Over the slow link the compressible blocks went compressed.
    EXPECT_TRUE(slow_compressed);
}

// The shape of the transfer is part of the decision: on a link a little slower than the codec
// (10 Gbit/s against 2 / 3 GB/s), overlapping the coding of one block with the transfer of
// another pays, coding a sender's only block before and after its transfer does not.
TEST(CollAlgoAlltoallvPolicy, OneShotBlocksGoRawWhereOnlyAPipelineWouldPay)
{
    const zip_algo_policy_t pipelined{ZIP_POLICY_AUTO, {2e9, 3e9, 1.2e9}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t one_shot{ZIP_POLICY_AUTO, {2e9, 3e9, 1.2e9}, ZIP_TRANSFER_ONE_SHOT};
    bool pipelined_compressed = false;
    for (int round = 0; round < 8; ++round) {
        ToyCodec a, b;
        const ExchangeRun p = alltoallv(2, round, 1024, 2, a, {&pipelined, &pipelined});
        const ExchangeRun o = alltoallv(2, round, 1024, 2, b, {&one_shot, &one_shot});
        EXPECT_EQ(p.mismatches + o.mismatches, 0) << "round " << round;
        for (int k = 0; k < 2; ++k) {
            pipelined_compressed |= p.res[k].bytes_out < p.res[k].bytes_in;
            EXPECT_EQ(o.res[k].bytes_out, o.res[k].bytes_in) << "round " << round << " rank " << k;
        }
    }
    EXPECT_TRUE(pipelined_compressed);
}
