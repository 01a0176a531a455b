// The compressed neighbourhood alltoall(v) on the in-process transport: a ring whose two
// neighbours are one rank (two ranks), a rank that is its own neighbour, MPI_PROC_NULL, uneven,
// empty and plain blocks; every block arrives where its edge says, compressed where it shrinks.
#include <algorithm>
#include <mutex>

#include <gtest/gtest.h>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

// The block rank `from` sends on its k-th out-edge in round `round`: some empty, some below the
// threshold (plain), the rest compressible or not.
size_t bytes_of(int from, int k, int round)
{
    static const size_t menu[] = {50000, 700, 0, 3000, 65536, 20000, 1};
    return menu[(from * 3 + k + round) % 7];
}

std::vector<char> data_of(int from, int k, int round)
{
    return algotest::make_data(bytes_of(from, k, round), (from + k + round) % 3 != 0,
                               uint64_t(from * 131 + k * 7 + round));
}

// Each rank's edges: out-edge k goes to dests[k], in-edge k comes from sources[k]; the
// in-edge k of `to` from `from` is the out-edge src_edge[k] of `from` (-1 for MPI_PROC_NULL).
struct Edges {
    std::vector<int> dests, sources, src_edge;
};

// A ring of `size` ranks with the edge order of a periodic Cartesian dimension as coll/zip's glue
// passes it: sends towards +1 first, then -1; receives from -1 first, then +1. On two ranks both
// neighbours are the other rank, on one rank itself; messages pair by order. With open ends (not
// periodic) rank 0 has no -1 neighbour and the last rank no +1 neighbour.
Edges ring(int rank, int size, bool periodic)
{
    const int minus = periodic || rank > 0 ? (rank - 1 + size) % size : -2;
    const int plus = periodic || rank < size - 1 ? (rank + 1) % size : -2;
    // Out-edge 0 (towards +1) arrives as the receiver's in-edge 0 (from its -1 side).
    return {{plus, minus}, {minus, plus}, {minus >= 0 ? 0 : -1, plus >= 0 ? 1 : -1}};
}

// The arguments of a call over edges e: bytes, compressed from 1 KiB, two edges each way.
zip_exchange_args_t args_of(const Edges &e, const std::vector<zip_block_t> &send,
                            const std::vector<zip_block_t> &recv)
{
    zip_exchange_args_t a{};
    a.tag = 9;
    a.elem_type = ZIP_ALGO_BYTES;
    a.try_compress = 1;
    a.threshold = 1024;
    a.send = send.data();
    a.recv = recv.data();
    a.out_degree = a.in_degree = 2;
    a.send_peers = e.dests.data();
    a.recv_peers = e.sources.data();
    return a;
}

} // namespace

class CollAlgoNeighbor : public ::testing::TestWithParam<std::tuple<int, bool, bool>>
{
};

TEST_P(CollAlgoNeighbor, EveryBlockArrivesOnItsEdgeExactly)
{
    const auto [size, periodic, typed] = GetParam();
    for (int round = 0; round < 7; ++round) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size, algotest::WorldOptions{.typed = typed, .self_messages = true});
        std::vector<std::vector<std::vector<char>>> got(size);
        std::vector<Edges> edges(size);
        std::vector<int> rc(size, -100);
        std::mutex m;
        w.run([&](int rank, const zip_transport_t &t) {
            const Edges e = ring(rank, size, periodic);
            std::vector<std::vector<char>> out(2), in(2);
            std::vector<algotest::Typed> handles(4);
            std::vector<zip_block_t> send(2), recv(2);
            auto block = [&](int i, std::vector<char> &v) {
                handles[i] = {v.data(), v.size()};
                return typed ? zip_block_t{nullptr, v.size(), &handles[i]}
                             : zip_block_t{v.data(), v.size(), nullptr};
            };
            for (int k = 0; k < 2; ++k) {
                out[k] = data_of(rank, k, round);
                send[k] = block(k, out[k]);
                const int from = e.sources[k];
                in[k].assign(from >= 0 ? bytes_of(from, e.src_edge[k], round) : 5, '\x55');
                recv[k] = block(2 + k, in[k]);
            }
            const zip_exchange_args_t a = args_of(e, send, recv);
            zip_algo_result_t res;
            rc[rank] = zip_algo_neighbor_alltoallv(&t, &ops, &a, &res);
            std::lock_guard<std::mutex> lock(m);
            got[rank] = in;
            edges[rank] = e;
        });
        EXPECT_EQ(w.unreceived(), 0u);
        for (int r = 0; r < size; ++r) {
            EXPECT_EQ(rc[r], ZIP_ALGO_OK);
            for (int k = 0; k < 2; ++k) {
                const int from = edges[r].sources[k];
                const std::vector<char> want =
                    from >= 0 ? data_of(from, edges[r].src_edge[k], round)
                              : std::vector<char>(5, '\x55'); // MPI_PROC_NULL: untouched
                EXPECT_EQ(got[r][k], want) << "rank " << r << " edge " << k << " round " << round;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(RingsOpenAndPeriodic, CollAlgoNeighbor,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5), ::testing::Bool(),
                                            ::testing::Bool()));

TEST(CollAlgoNeighborFrames, CompressibleBlocksTravelAsFramesAndDecodeOnce)
{
    const int size = 3;
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(size);
    std::vector<zip_algo_result_t> res(size);
    std::vector<int> ok(size, 0);
    w.run([&](int rank, const zip_transport_t &t) {
        const Edges e = ring(rank, size, true);
        std::vector<std::vector<char>> out(2), in(2, std::vector<char>(50000));
        std::vector<zip_block_t> send(2), recv(2);
        for (int k = 0; k < 2; ++k) {
            out[k] = algotest::make_data(50000, true, uint64_t(rank * 2 + k));
            send[k] = {out[k].data(), out[k].size(), nullptr};
            recv[k] = {in[k].data(), in[k].size(), nullptr};
        }
        const zip_exchange_args_t a = args_of(e, send, recv);
        EXPECT_EQ(zip_algo_neighbor_alltoallv(&t, &ops, &a, &res[rank]), ZIP_ALGO_OK);
        const int from_minus = e.sources[0], from_plus = e.sources[1];
        ok[rank] = in[0] == algotest::make_data(50000, true, uint64_t(from_minus * 2 + 0)) &&
                   in[1] == algotest::make_data(50000, true, uint64_t(from_plus * 2 + 1));
    });
    EXPECT_EQ(w.unreceived(), 0u);
    for (int r = 0; r < size; ++r) {
        EXPECT_TRUE(ok[r]) << "rank " << r;
        EXPECT_EQ(res[r].bytes_in, 100000u);
        EXPECT_LT(res[r].bytes_out, res[r].bytes_in / 2) << "rank " << r;
        EXPECT_TRUE(res[r].compressed);
    }
    EXPECT_EQ(codec.compressions.load(), size_t(2 * size)); // each block coded once
}

TEST(CollAlgoNeighborFrames, OneBlockForEveryNeighbourIsCodedOnce)
{
    // A neighbourhood allgather: both sends are the same block, so one frame goes to both.
    const int size = 3;
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(size);
    std::vector<int> ok(size, 0);
    std::vector<zip_algo_result_t> res(size);
    w.run([&](int rank, const zip_transport_t &t) {
        const Edges e = ring(rank, size, true);
        std::vector<char> mine = algotest::make_data(50000, true, uint64_t(rank));
        std::vector<std::vector<char>> in(2, std::vector<char>(50000));
        const std::vector<zip_block_t> send(2, zip_block_t{mine.data(), mine.size(), nullptr});
        const std::vector<zip_block_t> recv = {{in[0].data(), in[0].size(), nullptr},
                                               {in[1].data(), in[1].size(), nullptr}};
        const zip_exchange_args_t a = args_of(e, send, recv);
        EXPECT_EQ(zip_algo_neighbor_alltoallv(&t, &ops, &a, &res[rank]), ZIP_ALGO_OK);
        ok[rank] = in[0] == algotest::make_data(50000, true, uint64_t(e.sources[0])) &&
                   in[1] == algotest::make_data(50000, true, uint64_t(e.sources[1]));
    });
    EXPECT_EQ(w.unreceived(), 0u);
    for (int r = 0; r < size; ++r) {
        EXPECT_TRUE(ok[r]) << "rank " << r;
        EXPECT_EQ(res[r].bytes_in, 100000u); // both sends count on the wire
        EXPECT_LT(res[r].bytes_out, res[r].bytes_in / 2);
    }
    EXPECT_EQ(codec.compressions.load(), size_t(size)); // one per rank, not one per neighbour
}

TEST(CollAlgoNeighborArgs, RefusesMissingEdgeLists)
{
    World w(2);
    w.run([&](int, const zip_transport_t &t) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        zip_exchange_args_t a{};
        a.out_degree = 1; // no send blocks or peers
        zip_algo_result_t res;
        EXPECT_EQ(zip_algo_neighbor_alltoallv(&t, &ops, &a, &res), ZIP_ALGO_ERR_ARG);
    });
    EXPECT_EQ(w.unreceived(), 0u);
}

// The non-blocking form (zip_algo_ineighbor_alltoallv): two calls in flight at once on their own
// tags, each rank advancing them in turn as a rank that tests its requests now and then; every
// block arrives on its edge, as in the blocking call.
class CollAlgoNeighborNonBlocking : public ::testing::TestWithParam<std::tuple<int, bool>>
{
};

TEST_P(CollAlgoNeighborNonBlocking, TwoCallsInFlightArriveOnTheirEdges)
{
    const auto [size, periodic] = GetParam();
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(size, algotest::WorldOptions{.testing = true, .self_messages = true});
    const int calls = 2;
    std::vector<std::vector<std::vector<std::vector<char>>>> got(size);
    std::vector<Edges> edges(size);
    std::vector<std::vector<int>> rc(size, std::vector<int>(calls, -100));
    std::vector<int> suspended(size, 0);
    std::mutex m;
    w.run([&](int rank, const zip_transport_t &t) {
        const Edges e = ring(rank, size, periodic);
        std::vector<std::vector<std::vector<char>>> out(calls), in(calls);
        std::vector<std::vector<zip_block_t>> send(calls), recv(calls);
        std::vector<zip_exchange_args_t> a(calls);
        std::vector<zip_algo_result_t> res(calls);
        std::vector<zip_algo_call_t *> started(calls);
        for (int c = 0; c < calls; ++c) {
            out[c].resize(2);
            in[c].resize(2);
            send[c].resize(2);
            recv[c].resize(2);
            for (int k = 0; k < 2; ++k) {
                out[c][k] = data_of(rank, k, c);
                send[c][k] = {out[c][k].data(), out[c][k].size(), nullptr};
                const int from = e.sources[k];
                in[c][k].assign(from >= 0 ? bytes_of(from, e.src_edge[k], c) : 5, '\x55');
                recv[c][k] = {in[c][k].data(), in[c][k].size(), nullptr};
            }
            a[c] = args_of(e, send[c], recv[c]);
            a[c].tag = 20 + c;
            started[c] = zip_algo_ineighbor_alltoallv(&t, &ops, &a[c], &res[c]);
            ASSERT_NE(started[c], nullptr);
        }
        std::vector<bool> done(calls, false);
        for (int left = calls; left > 0;) {
            for (int c = calls - 1; c >= 0; --c) {
                if (done[c])
                    continue;
                if (zip_algo_call_advance(started[c]) == 0) {
                    suspended[rank] = 1;
                    continue;
                }
                done[c] = true;
                rc[rank][c] = zip_algo_call_finish(started[c]);
                --left;
            }
        }
        std::lock_guard<std::mutex> lock(m);
        got[rank] = in;
        edges[rank] = e;
    });
    EXPECT_EQ(w.unreceived(), 0u);
    for (int r = 0; r < size; ++r) {
        for (int c = 0; c < calls; ++c) {
            EXPECT_EQ(rc[r][c], ZIP_ALGO_OK) << "rank " << r << " call " << c;
            for (int k = 0; k < 2; ++k) {
                const int from = edges[r].sources[k];
                const std::vector<char> want = from >= 0 ? data_of(from, edges[r].src_edge[k], c)
                                                         : std::vector<char>(5, '\x55');
                EXPECT_EQ(got[r][c][k], want) << "rank " << r << " call " << c << " edge " << k;
            }
        }
    }
    if (size > 1) {
        EXPECT_NE(0, *std::max_element(suspended.begin(), suspended.end()))
            << "no call ever waited for a transfer: the test did not run them as non-blocking";
    }
}

INSTANTIATE_TEST_SUITE_P(RingsOpenAndPeriodic, CollAlgoNeighborNonBlocking,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5), ::testing::Bool()));

// Under policy auto a sender remembers what its last sample said (zip_algo_sender_memo_t): after
// a sample of incompressible data it sends its next ZIP_ALGO_RAW_CALLS_AFTER_SAMPLE calls raw
// without running the codec, then samples again; after a sample that compressed it samples
// every call. Every block arrives exactly either way.
TEST(CollAlgoNeighborMemo, ARawSampleSparesTheNextCallsTheCodec)
{
    const int size = 3;
    for (const bool compressible : {false, true}) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        std::vector<zip_algo_sender_memo_t> memo(size);
        zip_algo_policy_t policy{};
        policy.mode = ZIP_POLICY_AUTO;
        policy.speeds = {1e9, 2e9, 1.25e8, 0}; // a slow link: smooth data pay
        policy.shape = ZIP_TRANSFER_EXCHANGE;
        std::vector<size_t> codec_calls;
        for (int call = 0; call <= ZIP_ALGO_RAW_CALLS_AFTER_SAMPLE + 1; ++call) {
            const size_t before = codec.compressions.load();
            World w(size);
            std::vector<int> ok(size, 0);
            w.run([&](int rank, const zip_transport_t &t) {
                const Edges e = ring(rank, size, true);
                std::vector<std::vector<char>> out(2), in(2, std::vector<char>(50000));
                std::vector<zip_block_t> send(2), recv(2);
                for (int k = 0; k < 2; ++k) {
                    out[k] = algotest::make_data(50000, compressible, uint64_t(rank * 2 + k));
                    send[k] = {out[k].data(), out[k].size(), nullptr};
                    recv[k] = {in[k].data(), in[k].size(), nullptr};
                }
                zip_exchange_args_t a = args_of(e, send, recv);
                a.policy = &policy;
                a.memo = &memo[size_t(rank)];
                zip_algo_result_t res;
                EXPECT_EQ(zip_algo_neighbor_alltoallv(&t, &ops, &a, &res), ZIP_ALGO_OK);
                ok[rank] =
                    in[0] == algotest::make_data(50000, compressible, uint64_t(e.sources[0] * 2)) &&
                    in[1] ==
                        algotest::make_data(50000, compressible, uint64_t(e.sources[1] * 2 + 1));
            });
            EXPECT_EQ(w.unreceived(), 0u);
            for (int r = 0; r < size; ++r)
                EXPECT_TRUE(ok[r]) << "call " << call << " rank " << r;
            codec_calls.push_back(codec.compressions.load() - before);
        }
        if (compressible) {
            for (size_t c : codec_calls) // every call codes both blocks of every rank
                EXPECT_GE(c, size_t(2 * size));
        } else {
            EXPECT_GT(codec_calls.front(), 0u); // the sample
            for (int call = 1; call <= ZIP_ALGO_RAW_CALLS_AFTER_SAMPLE; ++call)
                EXPECT_EQ(codec_calls[size_t(call)], 0u) << "call " << call;
            EXPECT_GT(codec_calls.back(), 0u); // sampled again
        }
    }
}

// A sender that will not compress (here: compression off) sends its coded-class blocks in their
// own layout, never packed into bytes; the receivers' byte receives of their length get them
// whole, on rings with and without self and double neighbours.
TEST(CollAlgoNeighborUnpacked, RawSendsInTheirOwnLayoutArriveExactly)
{
    for (int size : {1, 2, 3, 5}) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size, algotest::WorldOptions{.typed = true, .self_messages = true});
        std::vector<int> ok(size, 0);
        w.run([&](int rank, const zip_transport_t &t) {
            const Edges e = ring(rank, size, true);
            std::vector<std::vector<char>> out(2), in(2);
            std::vector<algotest::Typed> handles(4);
            std::vector<zip_block_t> send(2), recv(2);
            for (int k = 0; k < 2; ++k) {
                out[k] = data_of(rank, k, 0);
                handles[k] = {out[k].data(), out[k].size()};
                send[k] = zip_block_t{nullptr, out[k].size(), &handles[k]};
                in[k].assign(bytes_of(e.sources[k], e.src_edge[k], 0), '\x55');
                handles[2 + k] = {in[k].data(), in[k].size()};
                recv[k] = zip_block_t{nullptr, in[k].size(), &handles[2 + k]};
            }
            zip_exchange_args_t a = args_of(e, send, recv);
            a.try_compress = 0;
            zip_algo_result_t res;
            const int rc = zip_algo_neighbor_alltoallv(&t, &ops, &a, &res);
            ok[rank] = rc == ZIP_ALGO_OK && in[0] == data_of(e.sources[0], e.src_edge[0], 0) &&
                       in[1] == data_of(e.sources[1], e.src_edge[1], 0) &&
                       res.bytes_in == res.bytes_out;
        });
        EXPECT_EQ(w.unreceived(), 0u);
        for (int r = 0; r < size; ++r)
            EXPECT_TRUE(ok[r]) << size << " ranks, rank " << r;
        EXPECT_EQ(codec.compressions.load(), 0u);
    }
}
