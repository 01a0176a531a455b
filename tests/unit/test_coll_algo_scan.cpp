// The compressed scans (the reduce's chain from rank 0 up) on the in-process transport: every
// rank ends with its prefix in Open MPI's linear order, scan(i) = (...(x_0 + x_1) ...) + x_i and
// exscan(i) the same up to x_i-1, bit for bit, from its buffer or from a contribution apart;
// an exscan leaves rank 0's buffer alone. Each rank but the last sends the message once along
// the chain, compressed where it shrinks; a failing decoder is an error and nobody hangs; the
// non-blocking form gives the blocking results.
#include <gtest/gtest.h>

#include <cstring>
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

// The prefix of ranks 0 .. last, left to right.
std::vector<double> prefix(const std::vector<std::vector<double>> &x, int last)
{
    std::vector<double> out = x[0];
    for (int k = 1; k <= last; ++k)
        for (size_t i = 0; i < out.size(); ++i)
            out[i] = out[i] + x[size_t(k)][i];
    return out;
}

struct Options {
    bool exclusive = false, compressible = true, apart = false, nonblocking = false,
         rendezvous = false;
    size_t segment = 0;
};

struct Outcome {
    std::vector<std::vector<double>> inputs, bufs;
    std::vector<int> rc;
    std::vector<zip_algo_result_t> res;
    size_t unreceived = 0;
};

constexpr double kUntouched = -12345.5;

Outcome run(int size, size_t n, const Options &opt, ToyCodec &codec)
{
    Outcome o;
    for (int r = 0; r < size; ++r)
        o.inputs.push_back(contribution(r, n, opt.compressible));
    // In place the buffer holds the contribution; apart it starts as a marker.
    o.bufs = opt.apart ? std::vector<std::vector<double>>(size_t(size),
                                                          std::vector<double>(n, kUntouched))
                       : o.inputs;
    o.rc.assign(size_t(size), -100);
    o.res.resize(size_t(size));
    const zip_codec_ops_t ops = codec.ops();
    World w(size, false, 0, opt.nonblocking);
    w.rendezvous = opt.rendezvous;
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t a{};
        a.buf = o.bufs[size_t(rank)].data();
        a.contribution = opt.apart ? o.inputs[size_t(rank)].data() : nullptr;
        a.bytes = n * sizeof(double);
        a.tag = 12;
        a.elem_type = ZIP_ALGO_F64;
        a.threshold = 256;
        a.segment = opt.segment;
        a.reduce = &kSum;
        zip_algo_result_t *res = &o.res[size_t(rank)];
        if (!opt.nonblocking) {
            o.rc[size_t(rank)] = zip_algo_scan(&t, &ops, opt.exclusive, &a, res);
            return;
        }
        zip_algo_call_t *call = zip_algo_iscan(&t, &ops, opt.exclusive, &a, res);
        ASSERT_NE(call, nullptr);
        while (zip_algo_call_advance(call) == 0) {
        }
        o.rc[size_t(rank)] = zip_algo_call_finish(call);
    });
    o.unreceived = w.unreceived();
    return o;
}

// Every rank's prefix against the reference, bit for bit; an exscan's rank 0 as it was.
void expect_prefixes_exact(const Outcome &o, const Options &opt)
{
    const int size = int(o.inputs.size());
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK) << "rank " << r;
        const auto &got = o.bufs[size_t(r)];
        if (opt.exclusive && r == 0) {
            const auto was = opt.apart ? std::vector<double>(got.size(), kUntouched) : o.inputs[0];
            EXPECT_EQ(0, std::memcmp(got.data(), was.data(), got.size() * sizeof(double)))
                << "exscan wrote rank 0's buffer";
            continue;
        }
        const auto want = prefix(o.inputs, opt.exclusive ? r - 1 : r);
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(double)))
            << (opt.exclusive ? "exscan" : "scan") << " rank " << r << " of " << size;
    }
    EXPECT_EQ(o.unreceived, 0u);
}

} // namespace

class CollAlgoScan : public ::testing::TestWithParam<int>
{
};

TEST_P(CollAlgoScan, EveryRankGetsItsPrefixInTheLinearOrderBitForBit)
{
    const int size = GetParam();
    for (bool exclusive : {false, true})
        for (bool apart : {false, true})
            for (bool compressible : {true, false})
                for (size_t n : {size_t(1), size_t(1000), size_t(20001)}) {
                    Options opt;
                    opt.exclusive = exclusive;
                    opt.apart = apart;
                    opt.compressible = compressible;
                    ToyCodec codec;
                    SCOPED_TRACE(testing::Message()
                                 << "exclusive " << exclusive << " apart " << apart << " n " << n);
                    expect_prefixes_exact(run(size, n, opt, codec), opt);
                }
}

TEST_P(CollAlgoScan, RendezvousSendsLeaveEveryPrefixExact)
{
    const int size = GetParam();
    for (bool exclusive : {false, true})
        for (bool compressible : {true, false}) {
            Options opt;
            opt.exclusive = exclusive;
            opt.compressible = compressible;
            opt.rendezvous = true;
            ToyCodec codec;
            expect_prefixes_exact(run(size, 30001, opt, codec), opt);
        }
}

TEST_P(CollAlgoScan, TheMessageCrossesEachLinkOnceCompressedWhereItShrinks)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank sends nothing";
    const size_t n = 16384;
    for (bool exclusive : {false, true})
        for (bool compressible : {true, false}) {
            Options opt;
            opt.exclusive = exclusive;
            opt.compressible = compressible;
            opt.segment = 16384;
            ToyCodec codec;
            const Outcome o = run(size, n, opt, codec);
            expect_prefixes_exact(o, opt);
            for (int r = 0; r < size; ++r) {
                const auto &res = o.res[size_t(r)];
                const size_t sent = r + 1 < size ? n * sizeof(double) : 0;
                EXPECT_EQ(res.bytes_in, sent) << "rank " << r;
                // compressed: a frame sent or received (the last rank only receives).
                EXPECT_EQ(res.compressed, compressible ? 1 : 0) << "rank " << r;
                if (compressible && sent > 0)
                    EXPECT_LT(res.bytes_out, res.bytes_in) << "rank " << r;
                else
                    EXPECT_EQ(res.bytes_out, res.bytes_in) << "rank " << r;
            }
        }
}

TEST_P(CollAlgoScan, AFailingDecoderIsAnErrorOnTheRanksThatDecodeAndNobodyHangs)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank decodes nothing";
    for (bool exclusive : {false, true}) {
        ToyCodec codec;
        codec.fail_decode = true;
        Options opt;
        opt.exclusive = exclusive;
        const Outcome o = run(size, 20000, opt, codec);
        EXPECT_EQ(o.rc[0], ZIP_ALGO_OK) << "rank 0 decodes nothing";
        for (int r = 1; r < size; ++r)
            EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_ERR_CODEC) << "rank " << r;
        EXPECT_EQ(o.unreceived, 0u);
    }
}

TEST_P(CollAlgoScan, TheNonBlockingFormGivesTheBlockingResults)
{
    const int size = GetParam();
    for (bool exclusive : {false, true}) {
        Options opt;
        opt.exclusive = exclusive;
        opt.apart = true;
        opt.nonblocking = true;
        ToyCodec codec;
        expect_prefixes_exact(run(size, 20001, opt, codec), opt);
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoScan, ::testing::Values(1, 2, 3, 5, 8));

TEST(CollAlgoScanArgs, ABufferIsNeededWhereAPrefixIsWrittenAndNowhereElse)
{
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(3);
    std::vector<int> scan_rc(3, -100), exscan_rc(3, -100);
    std::vector<std::vector<double>> mine(3, std::vector<double>(64, 1.0));
    std::vector<std::vector<double>> out(3, std::vector<double>(64, 0.0));
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t a{};
        a.bytes = 64 * sizeof(double);
        a.tag = 13;
        a.elem_type = ZIP_ALGO_F64;
        a.threshold = 256;
        a.reduce = &kSum;
        a.contribution = mine[size_t(rank)].data();
        zip_algo_result_t res;
        a.buf = nullptr;
        scan_rc[size_t(rank)] = zip_algo_scan(&t, &ops, false, &a, &res);
        // An exscan's rank 0 writes nothing: it may pass no buffer.
        a.buf = rank == 0 ? nullptr : out[size_t(rank)].data();
        exscan_rc[size_t(rank)] = zip_algo_scan(&t, &ops, true, &a, &res);
    });
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(scan_rc[size_t(r)], ZIP_ALGO_ERR_ARG) << "rank " << r;
        EXPECT_EQ(exscan_rc[size_t(r)], ZIP_ALGO_OK) << "rank " << r;
        for (double v : out[size_t(r)])
            EXPECT_EQ(v, double(r)) << "rank " << r;
    }
}

TEST(CollAlgoScanSuits, TheChainWhereItBeatsRecursiveDoublingsWholeMessageSteps)
{
    const size_t mib4 = size_t(4) << 20;
    const double g10 = 1.25e9, g100 = 12.5e9, us2 = 2e-6;
    // 128 ranks, 4 MiB: 256 segments of 16 KiB fill 126 hops, too few for a reduce (2.5 per
    // hop), but the chain's 1.5 message times beat doubling's 7.
    EXPECT_FALSE(zip_algo_reduce_suits(mib4, 128, 8, 0));
    EXPECT_TRUE(zip_algo_scan_suits(mib4, 128, 8, 0, g10, us2, 1.0));
    EXPECT_TRUE(zip_algo_scan_suits(mib4, 64, 8, 0, g100, us2, 1.0));
    // 1024 ranks: at 10 Gbit/s the chain (18.8 ms) still beats ten steps (33.6 ms); at
    // 100 Gbit/s its 1023 latencies and fill (3.7 ms) lose to them (3.4 ms).
    EXPECT_TRUE(zip_algo_scan_suits(mib4, 1024, 8, 0, g10, us2, 1.0));
    EXPECT_FALSE(zip_algo_scan_suits(mib4, 1024, 8, 0, g100, us2, 1.0));
    // Ethernet latencies (30 us) at 1024 ranks: 31 ms of hops alone.
    EXPECT_FALSE(zip_algo_scan_suits(mib4, 1024, 8, 0, g100, 30e-6, 1.0));
    // Without a link rate or latency, the reduce's rule.
    for (int size : {3, 8, 64, 128, 1024})
        for (size_t bytes : {size_t(65536), size_t(1) << 20, mib4})
            EXPECT_EQ(zip_algo_reduce_suits(bytes, size, 8, 0),
                      zip_algo_scan_suits(bytes, size, 8, 0, 0.0, us2, 1.0))
                << size << " ranks, " << bytes << " bytes";
    EXPECT_TRUE(zip_algo_scan_suits(8, 2, 8, 0, g100, 30e-6, 1.0)); // one hop: nothing to fill
    // Raw (a link faster than the codec) the chain must take at most half doubling's time:
    // 64 ranks at 100 Gbit/s, 0.54 ms against 2.0; 512 ranks, 2.0 ms against 3.0.
    EXPECT_TRUE(zip_algo_scan_suits(mib4, 64, 8, 0, g100, us2, ZIP_SCAN_RAW_SHARE));
    EXPECT_FALSE(zip_algo_scan_suits(mib4, 512, 8, 0, g100, us2, ZIP_SCAN_RAW_SHARE));
    EXPECT_TRUE(zip_algo_scan_suits(mib4, 512, 8, 0, g100, us2, 1.0));
}
