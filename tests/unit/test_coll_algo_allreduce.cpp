// The compressed allreduce and reduce on the in-process transport: results equal a reference
// summed in the documented order (allreduce: the ring's or recursive halving's; reduce: the
// chain's), bit for bit, on every rank and for every root; frames travel where the data shrinks; a
// failing decoder ends every rank with an error, not a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "test_coll_algo_sums.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::contribution;
using algotest::kSum;
using algotest::sum_doubles;
using algotest::ToyCodec;
using algotest::World;

namespace
{

// Chunk c of p, reduced from rank c onwards: ((x_c + x_{c+1}) + ...) + x_{c+p-1}.
std::vector<double> ring_order_reference(const std::vector<std::vector<double>> &x)
{
    const int p = int(x.size());
    const size_t n = x[0].size(), base = n / size_t(p), rem = n % size_t(p);
    auto first = [&](int c) { return size_t(c) * base + std::min(size_t(c), rem); };
    std::vector<double> out(n);
    for (int c = 0; c < p; ++c)
        for (size_t i = first(c); i < first(c + 1); ++i) {
            double acc = x[size_t(c)][i];
            for (int k = 1; k < p; ++k)
                acc = acc + x[size_t((c + k) % p)][i];
            out[i] = acc;
        }
    return out;
}

// Recursive halving over pof2 virtual ranks: ranks 2i and 2i + 1 (i < p - pof2) fold into
// y_i = x_2i + x_2i+1, the others are y_{r - (p - pof2)}; every element is the balanced tree
// ((y_0 + y_1) + (y_2 + y_3)) + ... in order.
std::vector<double> halving_order_reference(const std::vector<std::vector<double>> &x)
{
    const int p = int(x.size());
    int pof2 = 1;
    while (2 * pof2 <= p)
        pof2 *= 2;
    const int rem = p - pof2;
    const size_t n = x[0].size();
    std::vector<double> out(n), y(static_cast<size_t>(pof2));
    for (size_t i = 0; i < n; ++i) {
        for (int v = 0; v < pof2; ++v)
            y[size_t(v)] =
                v < rem ? x[size_t(2 * v)][i] + x[size_t(2 * v + 1)][i] : x[size_t(v + rem)][i];
        for (int width = 1; width < pof2; width *= 2)
            for (int v = 0; v < pof2; v += 2 * width)
                y[size_t(v)] = y[size_t(v)] + y[size_t(v + width)];
        out[i] = y[0];
    }
    return out;
}

// The chain to `root`: x_root + (x_root+1 + (... + x_root+p-1)), ranks mod p.
std::vector<double> chain_order_reference(const std::vector<std::vector<double>> &x, int root)
{
    const int p = int(x.size());
    const size_t n = x[0].size();
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
        double acc = x[size_t((root + p - 1) % p)][i];
        for (int k = p - 2; k >= 0; --k)
            acc = x[size_t((root + k) % p)][i] + acc;
        out[i] = acc;
    }
    return out;
}

bool same_bits(const std::vector<double> &a, const std::vector<double> &b)
{
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 8) == 0);
}

zip_allreduce_args_t args_for(std::vector<double> &buf)
{
    zip_allreduce_args_t a{};
    a.buf = buf.data();
    a.bytes = buf.size() * sizeof(double);
    a.tag = 9;
    a.elem_type = ZIP_ALGO_F64;
    a.threshold = 256;
    a.reduce = &kSum;
    return a;
}

struct Outcome {
    std::vector<std::vector<double>> inputs, results;
    std::vector<int> rc;
    std::vector<zip_algo_result_t> res;
    size_t unreceived = 0;
    size_t messages = 0; // sent, over all ranks
};

// root < 0: allreduce by `algorithm`; else reduce to root. on_node: every rank shares a node
// with its neighbour (ranks 2i and 2i + 1).
// rendezvous: sends read their buffer when they meet their receive (World::rendezvous).
// policy: the call's (nullptr: none, every sample that shrinks is taken).
// inputs: every rank's contribution (nullptr: contribution(rank, n, compressible)).
Outcome run(int size, size_t n, bool compressible, int root, ToyCodec &codec,
            int algorithm = ZIP_ALLREDUCE_RING, bool on_node = false, bool rendezvous = false,
            const zip_algo_policy_t *policy = nullptr,
            const std::vector<std::vector<double>> *inputs = nullptr)
{
    Outcome o;
    o.inputs.resize(size_t(size));
    for (int r = 0; r < size; ++r)
        o.inputs[size_t(r)] =
            inputs != nullptr ? (*inputs)[size_t(r)] : contribution(r, n, compressible);
    o.results = o.inputs;
    o.rc.assign(size_t(size), -100);
    o.res.resize(size_t(size));
    const zip_codec_ops_t ops = codec.ops();
    World w(size);
    w.rendezvous = rendezvous;
    std::vector<std::unique_ptr<bool[]>> node(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        node[size_t(r)] = std::make_unique<bool[]>(size_t(size));
        for (int q = 0; q < size; ++q)
            node[size_t(r)][size_t(q)] = q != r && q / 2 == r / 2;
    }
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t a = args_for(o.results[size_t(rank)]);
        a.algorithm = algorithm;
        a.peer_on_node = on_node ? node[size_t(rank)].get() : nullptr;
        a.policy = policy;
        o.rc[size_t(rank)] = root < 0 ? zip_algo_allreduce(&t, &ops, &a, &o.res[size_t(rank)])
                                      : zip_algo_reduce(&t, &ops, root, &a, &o.res[size_t(rank)]);
    });
    o.unreceived = w.unreceived();
    o.messages = w.messages.load();
    return o;
}

// Two non-blocking allreduces by `algorithm` on different tags, advanced alternately as a rank
// that computes between MPI_Test calls would: each gives the blocking result of its order.
void expect_two_nonblocking_calls_exact(int size, int algorithm)
{
    const size_t n = 20001;
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    std::vector<std::vector<double>> x(static_cast<size_t>(size)), y(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        x[size_t(r)] = contribution(r, n, true);
        y[size_t(r)] = contribution(r + 100, n, false);
    }
    auto xr = x, yr = y;
    std::vector<int> rcx(size_t(size), -100), rcy(size_t(size), -100);
    World w(size, false, 0, true);
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t ax = args_for(xr[size_t(rank)]), ay = args_for(yr[size_t(rank)]);
        ax.algorithm = algorithm;
        ay.algorithm = algorithm;
        ay.tag = 10;
        zip_algo_result_t resx, resy;
        zip_algo_call_t *cx = zip_algo_iallreduce(&t, &ops, &ax, &resx);
        zip_algo_call_t *cy = zip_algo_iallreduce(&t, &ops, &ay, &resy);
        ASSERT_NE(cx, nullptr);
        ASSERT_NE(cy, nullptr);
        bool dx = false, dy = false;
        while (!dx || !dy) {
            if (!dy)
                dy = zip_algo_call_advance(cy) != 0;
            if (!dx)
                dx = zip_algo_call_advance(cx) != 0;
        }
        rcx[size_t(rank)] = zip_algo_call_finish(cx);
        rcy[size_t(rank)] = zip_algo_call_finish(cy);
    });
    const bool ring = algorithm == ZIP_ALLREDUCE_RING;
    const auto want_x = ring ? ring_order_reference(x) : halving_order_reference(x);
    const auto want_y = ring ? ring_order_reference(y) : halving_order_reference(y);
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(rcx[size_t(r)], ZIP_ALGO_OK);
        EXPECT_EQ(rcy[size_t(r)], ZIP_ALGO_OK);
        EXPECT_TRUE(same_bits(xr[size_t(r)], want_x)) << "rank " << r;
        EXPECT_TRUE(same_bits(yr[size_t(r)], want_y)) << "rank " << r;
    }
    EXPECT_EQ(w.unreceived(), 0u);
}

} // namespace

class CollAlgoAllreduce : public ::testing::TestWithParam<int>
{
};

TEST_P(CollAlgoAllreduce, EveryRankGetsTheRingOrderSumBitForBit)
{
    const int size = GetParam();
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(1000), size_t(20001)}) {
        for (bool compressible : {true, false}) {
            ToyCodec codec;
            const Outcome o = run(size, n, compressible, -1, codec);
            const auto want = n ? ring_order_reference(o.inputs) : std::vector<double>{};
            for (int r = 0; r < size; ++r) {
                EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
                EXPECT_TRUE(same_bits(o.results[size_t(r)], want))
                    << "rank " << r << " n " << n << " compressible " << compressible;
            }
            EXPECT_EQ(o.unreceived, 0u);
        }
    }
}

// Over a transport that reads a send's buffer only when the receive is there (shared memory,
// InfiniBand; the test World copies at once otherwise), no buffer is reused while its send is
// in flight: the ring's segments, the frames it forwards, the chain's segments.
TEST_P(CollAlgoAllreduce, RendezvousSendsLeaveEveryResultExact)
{
    const int size = GetParam();
    for (size_t n : {size_t(1000), size_t(20001), size_t(100003)}) {
        for (bool compressible : {true, false}) {
            ToyCodec codec;
            const Outcome o =
                run(size, n, compressible, -1, codec, ZIP_ALLREDUCE_RING, false, true);
            const auto want = ring_order_reference(o.inputs);
            for (int r = 0; r < size; ++r) {
                EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
                EXPECT_TRUE(same_bits(o.results[size_t(r)], want))
                    << "rank " << r << " n " << n << " compressible " << compressible;
            }
            ToyCodec chain_codec;
            const Outcome c = run(size, n, compressible, 0, chain_codec, 0, false, true);
            EXPECT_TRUE(same_bits(c.results[0], chain_order_reference(c.inputs, 0)))
                << "reduce, n " << n << " compressible " << compressible;
            EXPECT_EQ(o.unreceived, 0u);
            EXPECT_EQ(c.unreceived, 0u);
        }
    }
}

// 4099 doubles are three segments of 16 KiB, 40001 twenty, more than the receive window.
TEST_P(CollAlgoAllreduce, ReduceLeavesTheChainOrderSumAtEveryRoot)
{
    const int size = GetParam();
    for (size_t n : {size_t(1), size_t(4099), size_t(40001)}) {
        for (bool compressible : {true, false}) {
            for (int root = 0; root < size; ++root) {
                ToyCodec codec;
                const Outcome o = run(size, n, compressible, root, codec);
                EXPECT_TRUE(
                    same_bits(o.results[size_t(root)], chain_order_reference(o.inputs, root)))
                    << "root " << root << " n " << n << " compressible " << compressible;
                for (int r = 0; r < size; ++r)
                    EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
                EXPECT_EQ(o.unreceived, 0u);
            }
        }
    }
}

// MPI_Ireduce: the chain as a call each rank drives by polling, two in flight on different
// tags and roots (one compressible, one not), each giving the blocking call's bits at its root.
TEST_P(CollAlgoAllreduce, TwoNonBlockingReducesInFlightGiveTheChainOrderSum)
{
    const int size = GetParam();
    const size_t n = 40001;
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    std::vector<std::vector<double>> x(static_cast<size_t>(size)), y(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        x[size_t(r)] = contribution(r, n, true);
        y[size_t(r)] = contribution(r + 50, n, false);
    }
    auto xr = x, yr = y;
    const int root_x = 0, root_y = size - 1;
    std::vector<int> rcx(size_t(size), -100), rcy(size_t(size), -100);
    World w(size, false, 0, true);
    w.run([&](int rank, const zip_transport_t &t) {
        zip_allreduce_args_t ax = args_for(xr[size_t(rank)]), ay = args_for(yr[size_t(rank)]);
        ay.tag = 10;
        zip_algo_result_t resx, resy;
        zip_algo_call_t *cx = zip_algo_ireduce(&t, &ops, root_x, &ax, &resx);
        zip_algo_call_t *cy = zip_algo_ireduce(&t, &ops, root_y, &ay, &resy);
        ASSERT_NE(cx, nullptr);
        ASSERT_NE(cy, nullptr);
        bool dx = false, dy = false;
        while (!dx || !dy) {
            if (!dy)
                dy = zip_algo_call_advance(cy) != 0;
            if (!dx)
                dx = zip_algo_call_advance(cx) != 0;
        }
        rcx[size_t(rank)] = zip_algo_call_finish(cx);
        rcy[size_t(rank)] = zip_algo_call_finish(cy);
    });
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(rcx[size_t(r)], ZIP_ALGO_OK);
        EXPECT_EQ(rcy[size_t(r)], ZIP_ALGO_OK);
    }
    EXPECT_TRUE(same_bits(xr[size_t(root_x)], chain_order_reference(x, root_x)));
    EXPECT_TRUE(same_bits(yr[size_t(root_y)], chain_order_reference(y, root_y)));
    EXPECT_EQ(w.unreceived(), 0u);
}

// The sum of sum_doubles, slowly where ctx points to true: a rank behind its neighbours.
void slow_sum_doubles(void *ctx, const void *in, void *inout, size_t bytes)
{
    if (*static_cast<const bool *>(ctx))
        std::this_thread::sleep_for(std::chrono::microseconds(300));
    sum_doubles(nullptr, in, inout, bytes);
}

// MPI_Reduce's glue hands each rank's send buffer over as the contribution, read only, and a
// result buffer at the root alone (in place there: the same one). Rendezvous sends read their
// slot when their receive comes, and the root reduces slowly, so the rank before it keeps a
// window of unmatched sends: a sum slot reused while its send is in flight shows in the result.
TEST_P(CollAlgoAllreduce, ReduceReadsAContributionApartAndWritesOnlyTheRootsBuffer)
{
    const int size = GetParam();
    for (size_t n : {size_t(4099), size_t(40001)}) {
        for (bool compressible : {true, false}) {
            for (int root = 0; root < size; ++root) {
                for (bool in_place : {false, true}) {
                    std::vector<std::vector<double>> inputs(static_cast<size_t>(size));
                    for (int r = 0; r < size; ++r)
                        inputs[size_t(r)] = contribution(r, n, compressible);
                    const auto sent = inputs;
                    std::vector<double> result(in_place ? inputs[size_t(root)]
                                                        : std::vector<double>(n, -7.0));
                    ToyCodec codec;
                    const zip_codec_ops_t ops = codec.ops();
                    std::vector<int> rc(size_t(size), -100);
                    World w(size);
                    w.rendezvous = true;
                    w.run([&](int rank, const zip_transport_t &t) {
                        std::vector<double> &mine =
                            rank == root && in_place ? result : inputs[size_t(rank)];
                        const bool slow = rank == root;
                        const zip_reduce_ops_t ops_here = {
                            const_cast<bool *>(&slow), sizeof(double), slow_sum_doubles, nullptr};
                        zip_allreduce_args_t a = args_for(mine);
                        a.reduce = &ops_here;
                        a.contribution = mine.data();
                        a.buf = rank == root ? result.data() : nullptr;
                        zip_algo_result_t res;
                        rc[size_t(rank)] = zip_algo_reduce(&t, &ops, root, &a, &res);
                    });
                    const std::string what = "root " + std::to_string(root) + " n " +
                                             std::to_string(n) + " compressible " +
                                             std::to_string(compressible) + " in place " +
                                             std::to_string(in_place);
                    EXPECT_TRUE(same_bits(result, chain_order_reference(sent, root))) << what;
                    for (int r = 0; r < size; ++r) {
                        EXPECT_EQ(rc[size_t(r)], ZIP_ALGO_OK) << what;
                        if (r != root || !in_place) {
                            EXPECT_TRUE(same_bits(inputs[size_t(r)], sent[size_t(r)]))
                                << "rank " << r << " " << what;
                        }
                    }
                    EXPECT_EQ(w.unreceived(), 0u) << what;
                }
            }
        }
    }
}

// Copies a segment of a contribution and counts the bytes (ctx: this rank's counter).
void counted_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    *static_cast<size_t *>(ctx) += bytes;
    std::memcpy(dst, src, bytes);
}

void counted_sum(void *, const void *in, void *inout, size_t bytes)
{
    sum_doubles(nullptr, in, inout, bytes);
}

// Where the ops carry a copy, every copy of a contribution handed over apart goes through it (a
// simulator charges its time there): each rank that receives copies its whole contribution once,
// a segment at a time, into the place it reduces in; the chain's first rank sends its own.
TEST_P(CollAlgoAllreduce, ReduceCopiesAContributionApartThroughTheOpsCopy)
{
    const int size = GetParam();
    const size_t n = 40001;
    for (int root : {0, size - 1}) {
        std::vector<std::vector<double>> inputs(static_cast<size_t>(size));
        for (int r = 0; r < size; ++r)
            inputs[size_t(r)] = contribution(r, n, true);
        std::vector<double> result(n, -7.0);
        std::vector<size_t> copied(size_t(size), 0);
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size);
        w.run([&](int rank, const zip_transport_t &t) {
            const zip_reduce_ops_t counting = {&copied[size_t(rank)], sizeof(double), counted_sum,
                                               counted_copy};
            zip_allreduce_args_t a = args_for(inputs[size_t(rank)]);
            a.reduce = &counting;
            a.contribution = inputs[size_t(rank)].data();
            a.buf = rank == root ? result.data() : nullptr;
            zip_algo_result_t res;
            EXPECT_EQ(zip_algo_reduce(&t, &ops, root, &a, &res), ZIP_ALGO_OK) << rank;
        });
        EXPECT_TRUE(same_bits(result, chain_order_reference(inputs, root))) << "root " << root;
        const int first = (root + size - 1) % size;
        for (int r = 0; r < size; ++r)
            EXPECT_EQ(copied[size_t(r)], r == first ? 0u : n * sizeof(double))
                << "rank " << r << " root " << root;
    }
}

// The caller's segment (zip_algo_reduce_segment's) cuts the message, in whole elements: every
// rank but the root sends ceil(bytes / segment) messages, and the sum stays the chain's.
TEST_P(CollAlgoAllreduce, ReduceCutsTheSegmentTheCallerChose)
{
    const int size = GetParam();
    const size_t n = 40001, bytes = n * sizeof(double);
    for (size_t asked : {size_t(8192), size_t(12290), size_t(49152)}) {
        const size_t seg = asked - asked % sizeof(double);
        std::vector<std::vector<double>> inputs(static_cast<size_t>(size));
        for (int r = 0; r < size; ++r)
            inputs[size_t(r)] = contribution(r, n, false);
        const auto sent = inputs;
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size);
        w.run([&](int rank, const zip_transport_t &t) {
            zip_allreduce_args_t a = args_for(inputs[size_t(rank)]);
            a.segment = asked;
            zip_algo_result_t res;
            EXPECT_EQ(zip_algo_reduce(&t, &ops, 0, &a, &res), ZIP_ALGO_OK) << rank;
        });
        EXPECT_TRUE(same_bits(inputs[0], chain_order_reference(sent, 0))) << asked;
        EXPECT_EQ(w.messages.load(), size_t(size - 1) * ((bytes + seg - 1) / seg)) << asked;
    }
}

TEST(CollAlgoAllreduceArgs, AReduceWithoutAResultBufferAtTheRootIsRejected)
{
    // The root alone: it fails before posting anything, so a peer's send would never be
    // received (with rendezvous sends, never complete).
    World w(2);
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    int rc = -100;
    w.run([&](int rank, const zip_transport_t &t) {
        if (rank != 0)
            return;
        std::vector<double> buf(4, 1.0);
        zip_allreduce_args_t a = args_for(buf);
        a.contribution = buf.data();
        a.buf = nullptr;
        zip_algo_result_t res;
        rc = zip_algo_reduce(&t, &ops, 0, &a, &res);
    });
    EXPECT_EQ(rc, ZIP_ALGO_ERR_ARG);
}

// Every rank but the root sends the whole message once, along the chain: compressed where the
// partial results shrink, raw where they do not; the root sends nothing.
TEST_P(CollAlgoAllreduce, ReduceSendsTheMessageOnceAlongTheChain)
{
    const int size = GetParam();
    const size_t n = 40001, root = size_t(size) / 2;
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const Outcome o = run(size, n, compressible, int(root), codec);
        for (int r = 0; r < size; ++r) {
            if (size_t(r) == root) {
                EXPECT_EQ(o.res[size_t(r)].bytes_in, 0u);
                continue;
            }
            EXPECT_EQ(o.res[size_t(r)].bytes_in, n * sizeof(double)) << "rank " << r;
            if (compressible) {
                EXPECT_LT(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in * 3 / 4) << r;
            } else {
                EXPECT_EQ(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in) << r;
            }
        }
    }
}

TEST_P(CollAlgoAllreduce, AFailingDecoderInTheChainIsAnErrorAndNobodyHangs)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank decodes nothing";
    ToyCodec codec;
    codec.fail_decode = true;
    const Outcome o = run(size, 40001, true, 0, codec);
    // Every rank but the chain's first decodes what it receives.
    for (int r = 0; r < size - 1; ++r)
        EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_ERR_CODEC) << "rank " << r;
    EXPECT_EQ(o.rc[size_t(size - 1)], ZIP_ALGO_OK);
    EXPECT_EQ(o.unreceived, 0u);
}

TEST_P(CollAlgoAllreduce, PartialResultsTravelCompressedWhenTheyShrink)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank sends nothing";
    ToyCodec codec;
    const Outcome o = run(size, 8192, true, -1, codec);
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(o.res[size_t(r)].compressed, 1) << "rank " << r;
        EXPECT_LT(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in) << "rank " << r;
        // reduce-scatter and allgather each send p - 1 chunks of about n / p doubles
        EXPECT_NEAR(double(o.res[size_t(r)].bytes_in), 2.0 * (size - 1) * 8192 * 8 / size,
                    2.0 * 8 * size);
    }
}

// A ring rank whose hops in and out both cross nodes codes both stages in turn, an exchange:
// max(c + d, w / r) = 1.33 ns a byte against 1 ns raw with a codec at 1.5x the link's rate, so
// it sends raw. Where its hop in stays on the node it only encodes, a pipeline: max(c, w / r, d)
// = 0.67 ns, so it compresses. (Nodes: ranks 2i and 2i + 1; a rank whose hop out stays on the
// node sends raw and samples nothing.)
TEST_P(CollAlgoAllreduce, ARingRankThatCodesOneStageIsAPipeline)
{
    const int size = GetParam();
    if (size < 3)
        GTEST_SKIP() << "no hop between nodes with a hop on the node beside it";
    zip_algo_policy_t policy{};
    policy.mode = ZIP_POLICY_AUTO;
    policy.shape = ZIP_TRANSFER_EXCHANGE; // what the route gives an allreduce
    policy.speeds.link_Bps = 1e9;
    policy.speeds.compress_Bps = 1.5e9;
    policy.speeds.decompress_Bps = 1.5e9;
    for (bool on_node : {false, true}) {
        ToyCodec codec;
        const Outcome o =
            run(size, 8192, true, -1, codec, ZIP_ALLREDUCE_RING, on_node, false, &policy);
        const auto want = ring_order_reference(o.inputs);
        for (int r = 0; r < size; ++r) {
            EXPECT_TRUE(same_bits(o.results[size_t(r)], want)) << "rank " << r;
            const int next = (r + 1) % size, prev = (r + size - 1) % size;
            const bool one_stage = on_node && next / 2 != r / 2 && prev / 2 == r / 2;
            // (What a rank forwards in the allgather may be another's frames: its own verdict.)
            if (one_stage) {
                EXPECT_EQ(o.res[size_t(r)].verdict, ZIP_VERDICT_COMPRESS) << "rank " << r;
            } else {
                EXPECT_NE(o.res[size_t(r)].verdict, ZIP_VERDICT_COMPRESS) << "rank " << r;
            }
        }
    }
}

TEST_P(CollAlgoAllreduce, IncompressibleDataTravelsRaw)
{
    const int size = GetParam();
    ToyCodec codec;
    const Outcome o = run(size, 8192, false, -1, codec);
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(o.res[size_t(r)].compressed, 0);
        EXPECT_EQ(o.res[size_t(r)].bytes_out, o.res[size_t(r)].bytes_in);
    }
}

TEST_P(CollAlgoAllreduce, AFailingDecoderIsAnErrorOnTheRanksThatDecodeAndNobodyHangs)
{
    const int size = GetParam();
    if (size < 2)
        GTEST_SKIP() << "one rank decodes nothing";
    ToyCodec codec;
    codec.fail_decode = true;
    const Outcome o = run(size, 8192, true, -1, codec);
    for (int r = 0; r < size; ++r)
        EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_ERR_CODEC) << "rank " << r;
    EXPECT_EQ(o.unreceived, 0u);
}

// The non-blocking form: over a transport that tests instead of waiting, the algorithm
// suspends and each rank drives it by polling.
TEST_P(CollAlgoAllreduce, TwoNonBlockingCallsInFlightGiveTheBlockingResults)
{
    expect_two_nonblocking_calls_exact(GetParam(), ZIP_ALLREDUCE_RING);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoAllreduce, ::testing::Values(1, 2, 3, 5, 8));

// Recursive halving and doubling: powers of two and every kind of fold (one to four pairs).
class CollAlgoAllreduceHalving : public ::testing::TestWithParam<int>
{
};

TEST_P(CollAlgoAllreduceHalving, EveryRankGetsTheBalancedTreeSumBitForBit)
{
    const int size = GetParam();
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(1000), size_t(20001)}) {
        for (bool compressible : {true, false}) {
            for (bool on_node : {false, true}) {
                ToyCodec codec;
                const Outcome o =
                    run(size, n, compressible, -1, codec, ZIP_ALLREDUCE_HALVING, on_node);
                const auto want = n ? halving_order_reference(o.inputs) : std::vector<double>{};
                for (int r = 0; r < size; ++r) {
                    EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
                    EXPECT_TRUE(same_bits(o.results[size_t(r)], want))
                        << "rank " << r << " n " << n << " compressible " << compressible
                        << " on_node " << on_node;
                }
                EXPECT_EQ(o.unreceived, 0u);
            }
        }
    }
}

TEST_P(CollAlgoAllreduceHalving, RendezvousSendsLeaveEveryResultExact)
{
    const int size = GetParam();
    for (size_t n : {size_t(1000), size_t(20001), size_t(100003)}) {
        for (bool compressible : {true, false}) {
            for (bool on_node : {false, true}) {
                ToyCodec codec;
                const Outcome o =
                    run(size, n, compressible, -1, codec, ZIP_ALLREDUCE_HALVING, on_node, true);
                const auto want = halving_order_reference(o.inputs);
                for (int r = 0; r < size; ++r) {
                    EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
                    EXPECT_TRUE(same_bits(o.results[size_t(r)], want))
                        << "rank " << r << " n " << n << " compressible " << compressible;
                }
                EXPECT_EQ(o.unreceived, 0u);
            }
        }
    }
}

// Each virtual rank sends (pof2 - 1) / pof2 of the vector in each half; a folded pair's even
// rank sends its vector once, its odd rank the result once more.
TEST_P(CollAlgoAllreduceHalving, PartialResultsAndFinishedChunksTravelCompressed)
{
    const int size = GetParam();
    int pof2 = 1;
    while (2 * pof2 <= size)
        pof2 *= 2;
    const int rem = size - pof2;
    const size_t n = 8192, bytes = n * sizeof(double);
    ToyCodec codec;
    const Outcome o = run(size, n, true, -1, codec, ZIP_ALLREDUCE_HALVING);
    for (int r = 0; r < size; ++r) {
        const zip_algo_result_t &res = o.res[size_t(r)];
        double want = 2.0 * double(bytes) * (pof2 - 1) / pof2;
        if (r < 2 * rem)
            want = r % 2 == 0 ? double(bytes) : want + double(bytes);
        EXPECT_NEAR(double(res.bytes_in), want, 8.0 * 2 * pof2) << "rank " << r;
        EXPECT_EQ(res.compressed, 1) << "rank " << r;
        EXPECT_LT(res.bytes_out, res.bytes_in * 3 / 4) << "rank " << r;
    }
}

// An allgather step moves its window of finished chunks as two messages (the wires' lengths,
// the wires), however many chunks: pof2 / 2 at the last step. So do the unfold's pof2 chunks.
// With the fold's rem messages and the reduce-scatter's one per virtual rank and step, the call
// sends rem + pof2 log2 pof2 + 2 pof2 log2 pof2 + 2 rem messages, frames or raw.
TEST_P(CollAlgoAllreduceHalving, EachAllgatherStepIsTwoMessagesWhateverItsChunks)
{
    const int size = GetParam();
    int pof2 = 1, steps = 0;
    while (2 * pof2 <= size) {
        pof2 *= 2;
        ++steps;
    }
    const size_t rem = size_t(size - pof2);
    const size_t want = rem + size_t(pof2 * steps) * 3 + 2 * rem;
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const Outcome o = run(size, 8192, compressible, -1, codec, ZIP_ALLREDUCE_HALVING);
        const auto exact = halving_order_reference(o.inputs);
        for (int r = 0; r < size; ++r)
            EXPECT_TRUE(same_bits(o.results[size_t(r)], exact)) << "rank " << r;
        EXPECT_EQ(o.messages, want) << "compressible " << compressible;
        EXPECT_EQ(o.unreceived, 0u);
    }
}

// Windows that mix frames and raw chunks (every other chunk's elements compress, the rest are
// random): the sender packs them, the receiver moves each wire to its place, from the last
// back; every rank ends with the exact result, sizes with and without a fold, rendezvous too.
TEST_P(CollAlgoAllreduceHalving, WindowsOfFramesAndRawChunksLandInPlace)
{
    const int size = GetParam();
    int pof2 = 1;
    while (2 * pof2 <= size)
        pof2 *= 2;
    const size_t n = 1024 * size_t(pof2) + 5, chunk = n / size_t(pof2);
    std::vector<std::vector<double>> x(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        const auto smooth = contribution(r, n, true), random = contribution(r, n, false);
        x[size_t(r)].resize(n);
        for (size_t i = 0; i < n; ++i)
            x[size_t(r)][i] = (i / chunk) % 2 == 0 ? smooth[i] : random[i];
    }
    for (bool rendezvous : {false, true}) {
        ToyCodec codec;
        const Outcome o =
            run(size, n, true, -1, codec, ZIP_ALLREDUCE_HALVING, false, rendezvous, nullptr, &x);
        const auto exact = halving_order_reference(o.inputs);
        for (int r = 0; r < size; ++r) {
            EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK) << "rank " << r;
            EXPECT_TRUE(same_bits(o.results[size_t(r)], exact)) << "rank " << r;
        }
        EXPECT_GT(codec.decodes.load(), 0u);
        EXPECT_EQ(o.unreceived, 0u);
    }
}

// Between the two ranks of a node (2i, 2i + 1) everything goes raw, to other nodes frames.
TEST_P(CollAlgoAllreduceHalving, OnlyWhatLeavesTheNodeIsCompressed)
{
    const int size = GetParam();
    int pof2 = 1;
    while (2 * pof2 <= size)
        pof2 *= 2;
    const int rem = size - pof2;
    ToyCodec codec;
    const Outcome o = run(size, 8192, true, -1, codec, ZIP_ALLREDUCE_HALVING, true);
    for (int r = 0; r < size; ++r) {
        const zip_algo_result_t &res = o.res[size_t(r)];
        if (size == 2 || (r < 2 * rem && r % 2 == 0)) {
            // one node; or a folded even rank, which sends only to its odd neighbour
            EXPECT_EQ(res.bytes_out, res.bytes_in) << "rank " << r;
            continue;
        }
        EXPECT_LT(res.bytes_out, res.bytes_in) << "rank " << r;
        // Powers of two: the first half goes to the neighbour, raw.
        if (rem == 0) {
            EXPECT_GT(res.bytes_out, res.bytes_in / 4) << "rank " << r;
        }
    }
}

// A reduce-scatter step is compress, transfer, decode and reduce in turn, c + w / R / r + d
// against w raw; the allgather's chunks are an exchange, max(c + d, w / R / r). With a codec at
// 1.25x the link's speed both lose for any ratio (the toy codec's is about 4), though a pipeline,
// max(c, w / R / r, d), would gain; with a codec 10x the link's both pay.
TEST_P(CollAlgoAllreduceHalving, StepsCompressOnlyWhereCodingAStepInTurnPays)
{
    const int size = GetParam();
    for (double codec_Bps : {1.25e9, 10e9}) {
        zip_algo_policy_t policy{};
        policy.mode = ZIP_POLICY_AUTO;
        policy.shape = ZIP_TRANSFER_EXCHANGE; // what the route gives an allreduce
        policy.speeds.link_Bps = 1e9;
        policy.speeds.compress_Bps = codec_Bps;
        policy.speeds.decompress_Bps = codec_Bps;
        EXPECT_EQ(zip_policy_decide(ZIP_POLICY_AUTO, &policy.speeds, 1 << 20, 0, 4.0,
                                    ZIP_TRANSFER_PIPELINED),
                  ZIP_VERDICT_COMPRESS);
        ToyCodec codec;
        const Outcome o =
            run(size, 8192, true, -1, codec, ZIP_ALLREDUCE_HALVING, false, false, &policy);
        const auto want = halving_order_reference(o.inputs);
        for (int r = 0; r < size; ++r) {
            const zip_algo_result_t &res = o.res[size_t(r)];
            EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
            EXPECT_TRUE(same_bits(o.results[size_t(r)], want)) << "rank " << r;
            if (codec_Bps < 2e9) {
                EXPECT_EQ(res.bytes_out, res.bytes_in) << "rank " << r;
            } else {
                EXPECT_LT(res.bytes_out, res.bytes_in * 3 / 4) << "rank " << r;
            }
        }
    }
}

// Between nodes both ranks of a node (2i, 2i + 1) cross at once, each with half the NIC: a codec
// that encodes at 20x the link's rate and decodes at 1.67x, which a reduce-scatter step judged
// at the whole link finds too slow (c + w / R / r + d = 0.65 + 1 / r ns a byte against 0.9 ns,
// the policy's margin of 1 raw, at every ratio below 4), pays at half of it (0.65 + 2 / r
// against 1.8: ratios from 1.74, the toy codec's partial sums shrink about 2x); the allgather's
// chunks, one shot over the whole link with only a rank's own chunk encoded (c / p + w / r + d
// = 0.65 + 1 / r at most), stay raw either way.
TEST_P(CollAlgoAllreduceHalving, StepsBetweenNodesAreJudgedAtTheirShareOfTheNic)
{
    const int size = GetParam();
    int pof2 = 1;
    while (2 * pof2 <= size)
        pof2 *= 2;
    if (size < 4 || size != pof2)
        GTEST_SKIP() << "folded pairs cross alone: a power of two has every rank cross";
    zip_algo_policy_t policy{};
    policy.mode = ZIP_POLICY_AUTO;
    policy.shape = ZIP_TRANSFER_EXCHANGE;
    policy.speeds.link_Bps = 1e9;
    policy.speeds.compress_Bps = 20e9;
    policy.speeds.decompress_Bps = 1e9 / 0.6;
    for (bool on_node : {false, true}) {
        ToyCodec codec;
        const Outcome o =
            run(size, 8192, true, -1, codec, ZIP_ALLREDUCE_HALVING, on_node, false, &policy);
        const auto want = halving_order_reference(o.inputs);
        for (int r = 0; r < size; ++r) {
            const zip_algo_result_t &res = o.res[size_t(r)];
            EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_OK);
            EXPECT_TRUE(same_bits(o.results[size_t(r)], want)) << "rank " << r;
            if (on_node) {
                EXPECT_LT(res.bytes_out, res.bytes_in) << "rank " << r;
            } else {
                EXPECT_EQ(res.bytes_out, res.bytes_in) << "rank " << r;
            }
        }
    }
}

TEST_P(CollAlgoAllreduceHalving, AFailingDecoderIsAnErrorOnEveryRankAndNobodyHangs)
{
    const int size = GetParam();
    ToyCodec codec;
    codec.fail_decode = true;
    const Outcome o = run(size, 8192, true, -1, codec, ZIP_ALLREDUCE_HALVING);
    // Every rank receives frames: in the reduce-scatter, or a folded even rank in the unfold.
    for (int r = 0; r < size; ++r)
        EXPECT_EQ(o.rc[size_t(r)], ZIP_ALGO_ERR_CODEC) << "rank " << r;
    EXPECT_EQ(o.unreceived, 0u);
}

TEST_P(CollAlgoAllreduceHalving, TwoNonBlockingCallsInFlightGiveTheBlockingResults)
{
    expect_two_nonblocking_calls_exact(GetParam(), ZIP_ALLREDUCE_HALVING);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoAllreduceHalving,
                         ::testing::Values(2, 3, 4, 5, 6, 7, 8, 12));

TEST(CollAlgoAllreduceArgs, APayloadThatIsNotAWholeNumberOfElementsIsRejected)
{
    World w(2);
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    std::vector<int> rc(2);
    w.run([&](int rank, const zip_transport_t &t) {
        std::vector<double> buf(4);
        zip_allreduce_args_t a = args_for(buf);
        a.bytes = 31;
        zip_algo_result_t res;
        rc[size_t(rank)] = zip_algo_allreduce(&t, &ops, &a, &res);
    });
    EXPECT_EQ(rc[0], ZIP_ALGO_ERR_ARG);
    EXPECT_EQ(rc[1], ZIP_ALGO_ERR_ARG);
}

// The chain fills its p - 1 hops before the root finishes a segment: it takes a reduce only with
// at least 2.5 segments (8 per hop, within the floor and 48 KiB, whatever the threshold) per hop
// beyond two ranks.
TEST(CollAlgoReduceSuits, TakesTheChainOnlyWithSegmentsEnoughForItsHops)
{
    const size_t KiB = 1024, MiB = 1024 * KiB, small = 8 * KiB, large = 16 * KiB;
    EXPECT_TRUE(zip_algo_reduce_suits(16 * KiB, 2, 8, large));     // no hop to fill
    EXPECT_TRUE(zip_algo_reduce_suits(1 * MiB, 8, 8, large));      // 56 segments, 6 hops
    EXPECT_TRUE(zip_algo_reduce_suits(256 * KiB, 8, 8, large));    // 16 >= 2.5 * 6
    EXPECT_FALSE(zip_algo_reduce_suits(224 * KiB, 8, 8, large));   // 14 < 15
    EXPECT_TRUE(zip_algo_reduce_suits(224 * KiB, 8, 8, small));    // 28 >= 15
    EXPECT_FALSE(zip_algo_reduce_suits(112 * KiB, 8, 8, small));   // 14 < 15
    EXPECT_FALSE(zip_algo_reduce_suits(1 * MiB, 64, 8, large));    // 64 segments, 62 hops
    EXPECT_FALSE(zip_algo_reduce_suits(1 * MiB, 64, 8, small));    // 128 < 155
    EXPECT_TRUE(zip_algo_reduce_suits(4 * MiB, 64, 8, large));     // 256 >= 155
    EXPECT_FALSE(zip_algo_reduce_suits(4 * MiB, 128, 8, large));   // 256 < 315
    EXPECT_TRUE(zip_algo_reduce_suits(4 * MiB, 128, 8, small));    // 512 >= 315
    EXPECT_TRUE(zip_algo_reduce_suits(16 * MiB, 128, 4, large));   // 1016 >= 315
    EXPECT_FALSE(zip_algo_reduce_suits(16 * MiB, 1024, 8, small)); // 2048 < 2555
    EXPECT_FALSE(zip_algo_reduce_suits(4 * MiB, 64, 8, 64 * KiB)); // 64 KiB segments: 64
    EXPECT_TRUE(zip_algo_reduce_suits(4 * MiB, 64, 8, 0));         // 0: 16 KiB
}

// 8 KiB segments where each rank has a core and the three a hop has in flight beside the one it
// works on cover a latency (3 x 8 KiB at 1 Gbit/s: 197 us; at 10 Gbit/s: 20 us), else 16 KiB;
// link or latency unknown: 16 KiB.
TEST(CollAlgoReduceSuits, SmallSegmentsOnlyWhereTheWindowCoversALatency)
{
    const double gbit = 1e9 / 8;
    EXPECT_EQ(zip_algo_reduce_segment_floor(1 * gbit, 30e-6, 1.0), 8192u);
    EXPECT_EQ(zip_algo_reduce_segment_floor(1 * gbit, 30e-6, 0.0), 8192u); // unknown: a core each
    EXPECT_EQ(zip_algo_reduce_segment_floor(10 * gbit, 30e-6, 1.0), 16384u);
    EXPECT_EQ(zip_algo_reduce_segment_floor(10 * gbit, 15e-6, 1.0), 8192u);
    EXPECT_EQ(zip_algo_reduce_segment_floor(25 * gbit, 2e-6, 1.0), 8192u);
    EXPECT_EQ(zip_algo_reduce_segment_floor(0.0, 30e-6, 1.0), 16384u);
    EXPECT_EQ(zip_algo_reduce_segment_floor(1 * gbit, 0.0, 1.0), 16384u);
    // ranks sharing cores: every segment's message and codec call wait for one
    EXPECT_EQ(zip_algo_reduce_segment_floor(1 * gbit, 30e-6, 4.0), 16384u);
}

// The agreed speeds of ranks with a core each, one per node (no local link known).
zip_algo_agreed_t one_per_node()
{
    zip_algo_agreed_t a{};
    a.link_Bps[ZIP_PEER_REMOTE] = 1e9 / 8;
    a.compress_Bps = 4.6e9;
    a.decompress_Bps = 7.8e9;
    a.ranks_per_node = 1;
    a.ranks_per_core = 1.0;
    return a;
}

// Without the agreed speeds, or where ranks share cores (whose wait for a core the model does
// not price), the chain keeps the rule's segment: 8 per hop, within the floor and 48 KiB.
TEST(CollAlgoReduceSegment, TheRuleWithoutAgreedSpeedsOrWhereRanksShareCores)
{
    const size_t MiB = 1024 * 1024;
    const double gbit = 1e9 / 8;
    const size_t rule = 16 * MiB / (8 * 63) - 16 * MiB / (8 * 63) % 8; // 33 KiB
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 8192, gbit, 30e-6, nullptr), rule);
    zip_algo_agreed_t shared = one_per_node();
    shared.ranks_per_core = 2.0;
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 16384, gbit, 30e-6, &shared), rule);
    const zip_algo_agreed_t agreed = one_per_node();
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 8192, 0.0, 30e-6, &agreed), rule);
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 8192, gbit, 0.0, &agreed), rule);
    EXPECT_EQ(zip_algo_reduce_segment(1 * MiB, 8, 8, 0, gbit, 30e-6, nullptr), 18720u);
}

// With them, a long chain whose segments cost little beside its fill takes the smallest segment
// the floor allows: 64 ranks at 1 Gbit/s and 30 us, 16 MiB, 62 hops of 33 KiB fill 12 % of the
// call, of 8 KiB 3 % (simscale: tuned's pipeline of 8 KiB 140 ms, the rule's chain 154).
// Never below the floor, never above 48 KiB, whole elements, and the same for the same inputs.
TEST(CollAlgoReduceSegment, TheModelShortensALongChainsFill)
{
    const size_t MiB = 1024 * 1024;
    const double gbit = 1e9 / 8;
    const zip_algo_agreed_t agreed = one_per_node();
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 8192, gbit, 30e-6, &agreed), 8192u);
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 16384, gbit, 30e-6, &agreed), 16384u);
    for (int p : {2, 3, 8, 64, 256, 1024})
        for (size_t bytes : {256 * MiB / 1024, 1 * MiB, 4 * MiB, 16 * MiB + 24})
            for (double link : {1 * gbit, 10 * gbit, 25 * gbit, 100 * gbit})
                for (size_t elem : {size_t(4), size_t(8), size_t(12)}) {
                    const size_t seg =
                        zip_algo_reduce_segment(bytes, p, elem, 8192, link, 2e-6, &agreed);
                    EXPECT_GE(seg, 8192u - 8192u % elem) << p << " " << bytes << " " << link;
                    EXPECT_LE(seg, 49152u) << p << " " << bytes << " " << link;
                    EXPECT_EQ(seg % elem, 0u) << p << " " << bytes << " " << link;
                    EXPECT_EQ(seg,
                              zip_algo_reduce_segment(bytes, p, elem, 8192, link, 2e-6, &agreed));
                }
}

// The segment must suit compressible data too: at 10 Gbit/s and 30 us 16 KiB is the fastest raw
// (64 ranks, 16 MiB: 16.2 ms against the rule's 17.4), but where the doubles shrink by half its
// shorter wire leaves the receive window waiting on the latency (13.0 against 12.1), so the
// rule's 33 KiB stays.
TEST(CollAlgoReduceSegment, ASegmentOnlyRawDataSuitsIsNotTaken)
{
    const size_t MiB = 1024 * 1024;
    const size_t rule = 16 * MiB / (8 * 63) - 16 * MiB / (8 * 63) % 8;
    zip_algo_agreed_t agreed = one_per_node();
    agreed.link_Bps[ZIP_PEER_REMOTE] = 10e9 / 8;
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 64, 8, 16384, 10e9 / 8, 30e-6, &agreed), rule);
}

// Where the link, not the fill, sets the time, a near tie keeps the rule: two ranks have one hop
// to fill, and 8 KiB segments stream 16 MiB at 1 Gbit/s as fast as the rule's 48 KiB. With
// seven hops the fill decides (4 MiB on 8 ranks: 48 KiB segments 36.4 ms, 8 KiB 34.2).
TEST(CollAlgoReduceSegment, ANearTieKeepsTheRule)
{
    const size_t MiB = 1024 * 1024;
    const zip_algo_agreed_t agreed = one_per_node();
    EXPECT_EQ(zip_algo_reduce_segment(16 * MiB, 2, 8, 8192, 1e9 / 8, 30e-6, &agreed), 49152u);
    EXPECT_EQ(zip_algo_reduce_segment(4 * MiB, 8, 8, 8192, 1e9 / 8, 30e-6, &agreed), 8192u);
}

// A hop of the reduce chain pays a segment's two messages on the core that codes it: the
// judgement adds them to the encoder's time per byte, 2 us over a 16 KiB segment.
TEST(CollAlgoReduceHop, TheMessagesOfASegmentJoinTheEncodersTime)
{
    zip_algo_policy_t call{};
    call.mode = ZIP_POLICY_AUTO;
    call.shape = ZIP_TRANSFER_EXCHANGE;
    call.speeds = {6.6e9, 13.2e9, 3.125e9, 0};
    const zip_algo_policy_t hop = zip_algo_reduce_hop_policy(&call, 16384);
    const double message = double(ZIP_BCAST_MESSAGE_COST_NS) * 1e-9;
    EXPECT_NEAR(1.0 / hop.speeds.compress_Bps, 1.0 / 6.6e9 + 2.0 * message / 16384.0, 1e-15);
    EXPECT_EQ(hop.speeds.decompress_Bps, call.speeds.decompress_Bps);
    EXPECT_EQ(hop.speeds.link_Bps, call.speeds.link_Bps);
    EXPECT_EQ(hop.shape, call.shape);
    EXPECT_EQ(hop.mode, call.mode);
    // Speeds unknown (policy always): unchanged.
    zip_algo_policy_t always{};
    always.mode = ZIP_POLICY_ALWAYS;
    EXPECT_EQ(zip_algo_reduce_hop_policy(&always, 16384).speeds.compress_Bps, 0.0);
}

// miniFE's data at its own codec speeds (6.6 / 13.2 GB/s) at 25 Gbit/s: coding alone (0.23 ns a
// byte) is below the raw wire (0.32), but with a 16 KiB segment's messages (0.12 more) not at
// any ratio (the policy's margin: below 0.9 of the wire): the reduce goes to the previous component
// (simscale, 256 ranks one per node, 16 MiB: zip's chain 0.81x of tuned's pipeline, handed
// on 1.00x). CloverLeaf's codec (16.4 / 36.1 GB/s) still may compress (1.33x), and so does miniFE's
// at 10 Gbit/s; policy always and an unknown link never hand on.
TEST(CollAlgoReduceHop, ACallWhoseHopsCouldNeverCompressIsHandedOn)
{
    zip_algo_policy_t call{};
    call.mode = ZIP_POLICY_AUTO;
    call.shape = ZIP_TRANSFER_EXCHANGE;
    call.speeds = {6.6e9, 13.2e9, 3.125e9, 0};
    EXPECT_FALSE(zip_algo_reduce_may_compress(&call, 16384));
    EXPECT_TRUE(zip_algo_reduce_may_compress(&call, 49152)); // a third of the messages: 0.27 ns
    call.speeds = {16.4e9, 36.1e9, 3.125e9, 0};
    EXPECT_TRUE(zip_algo_reduce_may_compress(&call, 16384));
    call.speeds = {6.6e9, 13.2e9, 1.25e9, 0};
    EXPECT_TRUE(zip_algo_reduce_may_compress(&call, 16384));
    call.speeds.link_Bps = 0.0;
    EXPECT_TRUE(zip_algo_reduce_may_compress(&call, 16384));
    call.mode = ZIP_POLICY_ALWAYS;
    call.speeds = {6.6e9, 13.2e9, 3.125e9, 0};
    EXPECT_TRUE(zip_algo_reduce_may_compress(&call, 16384));
    EXPECT_TRUE(zip_algo_reduce_may_compress(nullptr, 16384));
}

// The ring where its 2 (p - 1) latencies cost at most 1/32 of its wire time (its exchanges go
// one way per pair, which the TCP BTL does not serialise); beyond, halving (2 log2 pof2
// latencies, and where p is not a power of two two more and twice the vector through the folded
// pairs' links) if the model has it faster than the ring, else the previous component.
TEST(CollAlgoAllreduceChoose, RingWhereItsLatenciesCostLittleThenHalvingThenHandOn)
{
    const size_t MiB = 1024 * 1024;
    const double gbit = 1e9 / 8, latency = 20e-6;
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 8, 1 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 53, 1 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_RING);
    // 54 ranks: the ring's latencies are past 1/32, but the fold costs twice the vector
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 54, 1 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HAND_ON);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 64, 1 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HALVING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 8, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HALVING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 256, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HALVING);
    // 200 ranks at 10 Gbit/s: 398 ring latencies (8 ms) against a fold of 6.7 ms; 100: 4 ms
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 200, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HALVING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 100, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_HAND_ON);
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 8, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 2, 10 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 64, 0.0, latency, 0, nullptr), ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 64, 1 * gbit, 0.0, 0, nullptr),
              ZIP_ALLREDUCE_RING);
}

// Several ranks per node: what each NIC carries decides. Placed by node, the ring's one hop
// out of a node carries 2 (p - 1) / p of the vector, halving's steps between nodes (1 - 1 / N)
// of it twice over N nodes; so on two nodes of 32 halving moves half the ring's bytes, where the
// ring's latencies alone would have taken the ring. Where the ring suits, the cheaper where
// halving's allgather compresses too, else halving must carry clearly less (below 0.6 of the
// ring's). Ranks placed round the nodes cross at every step of both: both carry about k times
// as much.
TEST(CollAlgoAllreduceChoose, WithRanksPerNodeWhatEachNicCarriesDecides)
{
    const size_t MiB = 1024 * 1024;
    const double gbit = 1e9 / 8, latency = 30e-6;
    zip_algo_agreed_t by_node{};
    by_node.ranks_per_node = 32;
    by_node.chain_local_share = 31.0 / 32.0;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 1 * gbit, latency, 0, nullptr),
              ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 1 * gbit, latency, 0, &by_node),
              ZIP_ALLREDUCE_HALVING);
    // many nodes: (1 - 1/N) against (p - 1) / p, nearly the same bytes; the latencies decide
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 256, 1 * gbit, latency, 0, &by_node),
              ZIP_ALLREDUCE_HALVING);
    EXPECT_EQ(zip_algo_allreduce_choose(256 * MiB, 64, 1 * gbit, latency, 0, &by_node),
              ZIP_ALLREDUCE_HALVING);
    zip_algo_agreed_t one_per_node = by_node;
    one_per_node.ranks_per_node = 1;
    one_per_node.chain_local_share = 0.0;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 1 * gbit, latency, 0, &one_per_node),
              ZIP_ALLREDUCE_RING);
    // round the nodes, 8 ranks on 4 nodes (2 each): both carry twice the vector's share
    // through each NIC (the ring's 2 crossings per node, halving's 2 ranks crossing at every
    // step); halving's fewer latencies decide
    zip_algo_agreed_t round = by_node;
    round.ranks_per_node = 2;
    round.chain_local_share = 0.0;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 8, 1 * gbit, latency, 0, &round),
              ZIP_ALLREDUCE_HALVING);
    // nodes of 2 and of 8 placed by node: halving carries 1.94 and 1.75 of the vector against
    // the ring's 1.97. At 1 Gbit/s halving's allgather compresses too (fast's 4.6 / 7.7 GB/s):
    // the cheaper, halving. At 25 Gbit/s it does not, while the ring's hops out of a node
    // compress as a pipeline: the ring, unless halving carries under 0.6 of its bytes (2 nodes).
    for (int k : {2, 8}) {
        zip_algo_agreed_t a = by_node;
        a.ranks_per_node = k;
        a.chain_local_share = double(k - 1) / double(k);
        a.compress_Bps = 4.6e9;
        a.decompress_Bps = 7.7e9;
        EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 1 * gbit, latency, 0, &a),
                  ZIP_ALLREDUCE_HALVING)
            << k;
        EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 25 * gbit, 2e-6, 0, &a),
                  ZIP_ALLREDUCE_RING)
            << k;
    }
    zip_algo_agreed_t two_nodes = by_node;
    two_nodes.compress_Bps = 4.6e9;
    two_nodes.decompress_Bps = 7.7e9;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 25 * gbit, 2e-6, 0, &two_nodes),
              ZIP_ALLREDUCE_HALVING);
    // the rule of clearly fewer bytes reads the NIC's bytes alone: the time halving's core spends
    // between its steps does not give two nodes to the ring
    two_nodes.link_Bps[ZIP_PEER_LOCAL] = 31e9;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 25 * gbit, 2e-6, 0, &two_nodes),
              ZIP_ALLREDUCE_HALVING);
    // Halving's reductions and steps on the node add to its NIC's time where the local link is
    // known: 128 ranks in nodes of 2 at 25 Gbit/s, 16 MiB, by bytes halving (10.6 ms) beats
    // the ring (11.2), whose 254 latencies are too many for it to suit; with 1.4 ms of
    // reductions and on-node steps it does not, and neither runs.
    zip_algo_agreed_t pairs = by_node;
    pairs.ranks_per_node = 2;
    pairs.chain_local_share = 0.5;
    pairs.compress_Bps = 4.6e9;
    pairs.decompress_Bps = 7.7e9;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 128, 25 * gbit, 2e-6, 0, &pairs),
              ZIP_ALLREDUCE_HALVING);
    pairs.link_Bps[ZIP_PEER_LOCAL] = 24e9;
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 128, 25 * gbit, 2e-6, 0, &pairs),
              ZIP_ALLREDUCE_HAND_ON);
    // 4 MiB: the ring's latencies weigh four times more, and halving stays the faster
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 128, 25 * gbit, 2e-6, 0, &pairs),
              ZIP_ALLREDUCE_HALVING);
    // over the TCP BTL still never halving
    EXPECT_EQ(zip_algo_allreduce_choose(16 * MiB, 64, 1 * gbit, latency, 1, &by_node),
              ZIP_ALLREDUCE_RING);
}

// Over the TCP BTL a pair's exchanges both ways serialise: never halving.
TEST(CollAlgoAllreduceChoose, NoHalvingWherePairsSerialise)
{
    const size_t MiB = 1024 * 1024;
    const double gbit = 1e9 / 8, latency = 20e-6;
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 8, 1 * gbit, latency, 1, nullptr),
              ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 64, 1 * gbit, latency, 1, nullptr),
              ZIP_ALLREDUCE_HAND_ON);
    EXPECT_EQ(zip_algo_allreduce_choose(4 * MiB, 8, 10 * gbit, latency, 1, nullptr),
              ZIP_ALLREDUCE_HAND_ON);
}

TEST(CollAlgoAllreduceChoose, NamesParseAsTheMcaParameterTakesThem)
{
    EXPECT_EQ(zip_allreduce_algorithm_parse(nullptr), ZIP_ALLREDUCE_AUTO);
    EXPECT_EQ(zip_allreduce_algorithm_parse("auto"), ZIP_ALLREDUCE_AUTO);
    EXPECT_EQ(zip_allreduce_algorithm_parse("ring"), ZIP_ALLREDUCE_RING);
    EXPECT_EQ(zip_allreduce_algorithm_parse("halving"), ZIP_ALLREDUCE_HALVING);
    EXPECT_EQ(zip_allreduce_algorithm_parse("rabenseifner"), -1);
}

// Allgather(v)'s ring: p - 1 steps, every block but one through each link.
TEST(CollAlgoRingSuits, TakesAnAllgatherRingOnlyWhereItsLatenciesCostLittle)
{
    const size_t KiB = 1024, MiB = 1024 * KiB;
    const double gbit = 1e9 / 8, latency = 30e-6;
    EXPECT_TRUE(zip_algo_ring_suits(8 * MiB, 7, 1 * gbit, latency));        // 1 MiB blocks, 8 ranks
    EXPECT_FALSE(zip_algo_ring_suits(8 * 64 * KiB, 7, 10 * gbit, latency)); // 64 KiB blocks
    EXPECT_FALSE(zip_algo_ring_suits(64 * MiB, 63, 10 * gbit, latency));    // 75.6 MB of latency
    EXPECT_TRUE(zip_algo_ring_suits(64 * MiB, 63, 1 * gbit, latency));
    EXPECT_TRUE(zip_algo_ring_suits(1 * KiB, 2, 10 * gbit, latency)); // two steps: nothing to gain
    EXPECT_TRUE(zip_algo_ring_suits(1 * KiB, 63, 0.0, latency));      // link unknown
}
