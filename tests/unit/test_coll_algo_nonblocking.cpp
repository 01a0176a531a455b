// The non-blocking forms of alltoallv, gatherv, scatterv and allgatherv (zip_algo_i*): over a
// transport with `test` the blocking algorithms' schedules suspend instead of waiting, and each
// rank drives its calls by polling, as a rank that computes between MPI_Test calls does. Several
// calls in flight at once (on their own tags) must give exactly what the blocking calls give.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

enum class Algo { Alltoallv, Gatherv, Scatterv, Allgatherv, AllgathervBruck, AllgathervBruckSteps };

bool allgathers(Algo a)
{
    return a == Algo::Allgatherv || a == Algo::AllgathervBruck || a == Algo::AllgathervBruckSteps;
}

std::string name_of(Algo a)
{
    switch (a) {
    case Algo::Alltoallv:
        return "Alltoallv";
    case Algo::Gatherv:
        return "Gatherv";
    case Algo::Scatterv:
        return "Scatterv";
    case Algo::AllgathervBruck:
        return "AllgathervBruck";
    case Algo::AllgathervBruckSteps:
        return "AllgathervBruckSteps";
    default:
        return "Allgatherv";
    }
}

// The block `from` sends to `to` in call `call` (allgatherv: to == from, the owner's block):
// uneven, some empty, some below the 1 KiB threshold, some random.
size_t bytes_of(int from, int to, int call)
{
    static const size_t menu[] = {0, 1, 100, 1024, 3000, 40000, 9000};
    return menu[size_t(from * 3 + to * 5 + call + 3) % 7];
}

std::vector<char> data_of(int from, int to, int call)
{
    return algotest::make_data(bytes_of(from, to, call), (from + to + call) % 3 != 0,
                               uint64_t(from * 1000 + to * 10 + call));
}

// Whether `from` sends a block to `to` in a call of `a` with `root`.
bool moves(Algo a, int from, int to, int root)
{
    switch (a) {
    case Algo::Alltoallv:
        return from != to;
    case Algo::Gatherv:
        return to == root && from != root;
    case Algo::Scatterv:
        return from == root && to != root;
    default:
        return from != to;
    }
}

// One rank's side of one call: its blocks, where they land, and the call's arguments.
struct Side {
    Algo algo = Algo::Alltoallv;
    int root = 0, call = 0;
    std::vector<std::vector<char>> send, recv; // by peer (allgatherv: send[0] is the own block)
    std::vector<zip_block_t> sb, rb;
    zip_exchange_args_t args{};
    zip_algo_result_t res{};

    Side(Algo a, int size, int rank, int root_, int call_, int tag)
        : algo(a), root(root_), call(call_), send(size_t(size)), recv(size_t(size)),
          sb(size_t(size)), rb(size_t(size))
    {
        for (int p = 0; p < size; ++p) {
            const int owner = allgathers(a) ? p : rank;
            if (allgathers(a) ? p == rank : moves(a, rank, p, root))
                send[size_t(p)] = data_of(rank, allgathers(a) ? rank : p, call);
            if (moves(a, p, rank, root) || (allgathers(a) && p != rank))
                recv[size_t(p)].assign(bytes_of(p, allgathers(a) ? p : owner, call), '\x5a');
            sb[size_t(p)] = {send[size_t(p)].data(), send[size_t(p)].size(), nullptr};
            rb[size_t(p)] = {recv[size_t(p)].data(), recv[size_t(p)].size(), nullptr};
        }
        args.tag = tag;
        args.elem_type = ZIP_ALGO_BYTES;
        args.try_compress = 1;
        args.threshold = 1024;
        args.window = 2;
        // A gatherv non-root sends its one block as send[0], a scatterv non-root receives it
        // as recv[0]; allgatherv's own block is send[0].
        if (a == Algo::Gatherv && rank != root_)
            sb[0] = sb[size_t(root_)];
        if (allgathers(a))
            sb[0] = sb[size_t(rank)];
        if (a == Algo::Scatterv && rank != root_)
            rb[0] = rb[size_t(root_)];
        args.send = sb.data();
        args.recv = rb.data();
        args.algorithm = a == Algo::AllgathervBruck        ? ZIP_ALLGATHERV_BRUCK_BLOCKS
                         : a == Algo::AllgathervBruckSteps ? ZIP_ALLGATHERV_BRUCK_STEPS
                                                           : ZIP_ALLGATHERV_RING;
    }

    zip_algo_call_t *start(const zip_transport_t &t, const zip_codec_ops_t &ops)
    {
        switch (algo) {
        case Algo::Alltoallv:
            return zip_algo_ialltoallv(&t, &ops, &args, &res);
        case Algo::Gatherv:
            return zip_algo_igatherv(&t, &ops, root, &args, &res);
        case Algo::Scatterv:
            return zip_algo_iscatterv(&t, &ops, root, &args, &res);
        default:
            return zip_algo_iallgatherv(&t, &ops, &args, &res);
        }
    }

    int run_blocking(const zip_transport_t &t, const zip_codec_ops_t &ops)
    {
        switch (algo) {
        case Algo::Alltoallv:
            return zip_algo_alltoallv(&t, &ops, &args, &res);
        case Algo::Gatherv:
            return zip_algo_gatherv(&t, &ops, root, &args, &res);
        case Algo::Scatterv:
            return zip_algo_scatterv(&t, &ops, root, &args, &res);
        default:
            return zip_algo_allgatherv(&t, &ops, &args, &res);
        }
    }

    // Blocks that did not arrive exactly.
    int mismatches(int size, int rank) const
    {
        int bad = 0;
        for (int p = 0; p < size; ++p) {
            if (allgathers(algo)) {
                bad += p != rank && recv[size_t(p)] != data_of(p, p, call);
            } else if (moves(algo, p, rank, root)) {
                // Scatterv's non-root receives into recv[root] (rb[0] points there).
                bad += recv[size_t(p)] != data_of(p, rank, call);
            }
        }
        return bad;
    }
};

// Drives the calls of one rank to their end, advancing them in turn, last started first, as a
// rank that computes and tests its requests now and then does. Returns the rounds it took.
int drive(std::vector<zip_algo_call_t *> &calls, std::vector<int> &rc)
{
    std::vector<bool> done(calls.size(), false);
    size_t left = calls.size();
    int rounds = 0;
    while (left > 0) {
        ++rounds;
        for (size_t k = calls.size(); k-- > 0;) {
            if (done[k] || zip_algo_call_advance(calls[k]) == 0)
                continue;
            done[k] = true;
            rc[k] = zip_algo_call_finish(calls[k]);
            --left;
        }
    }
    return rounds;
}

struct Outcome {
    std::vector<std::vector<int>> rc;           // [rank][call]
    std::vector<int> mismatches;                // by rank
    std::vector<std::vector<size_t>> bytes_out; // [rank][call]
    std::vector<int> rounds;                    // by rank
    bool any_compressed = false;
    size_t unreceived = 0;
};

// Every rank runs the calls `algos` (call k with root roots[k] on tag 40 + k): all in flight at
// once over a testing transport, or one after the other over a blocking one.
Outcome run(int size, const std::vector<Algo> &algos, const std::vector<int> &roots,
            bool nonblocking)
{
    World w(size, algotest::WorldOptions{.testing = nonblocking});
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    Outcome out;
    out.rc.assign(size_t(size), std::vector<int>(algos.size(), -100));
    out.bytes_out.assign(size_t(size), std::vector<size_t>(algos.size(), 0));
    out.mismatches.assign(size_t(size), 0);
    out.rounds.assign(size_t(size), 0);
    std::vector<int> compressed(size_t(size), 0);
    w.run([&](int rank, const zip_transport_t &t) {
        std::vector<std::unique_ptr<Side>> sides;
        for (size_t k = 0; k < algos.size(); ++k)
            sides.push_back(
                std::make_unique<Side>(algos[k], size, rank, roots[k], int(k), 40 + int(k)));
        auto &rc = out.rc[size_t(rank)];
        if (nonblocking) {
            std::vector<zip_algo_call_t *> calls;
            for (auto &s : sides)
                calls.push_back(s->start(t, ops));
            for (auto *c : calls)
                ASSERT_NE(c, nullptr);
            out.rounds[size_t(rank)] = drive(calls, rc);
        } else {
            for (size_t k = 0; k < sides.size(); ++k)
                rc[k] = sides[k]->run_blocking(t, ops);
        }
        for (size_t k = 0; k < sides.size(); ++k) {
            out.mismatches[size_t(rank)] += sides[k]->mismatches(size, rank);
            out.bytes_out[size_t(rank)][k] = sides[k]->res.bytes_out;
            compressed[size_t(rank)] |= sides[k]->res.compressed;
        }
    });
    for (int c : compressed)
        out.any_compressed = out.any_compressed || c != 0;
    out.unreceived = w.unreceived();
    return out;
}

void expect_exact(const Outcome &o, const std::string &what)
{
    for (size_t r = 0; r < o.rc.size(); ++r) {
        for (size_t k = 0; k < o.rc[r].size(); ++k)
            EXPECT_EQ(o.rc[r][k], ZIP_ALGO_OK) << what << " rank " << r << " call " << k;
        EXPECT_EQ(o.mismatches[r], 0) << what << " rank " << r;
    }
    EXPECT_EQ(o.unreceived, 0u) << what;
}

} // namespace

class CollAlgoNonBlocking : public ::testing::TestWithParam<std::tuple<Algo, int>>
{
};

// Two calls of one algorithm in flight at once, for every root: both arrive exactly, and
// every rank puts the same bytes on the wire as the blocking calls do (the same schedule and
// sample decisions), with data compressed.
TEST_P(CollAlgoNonBlocking, TwoCallsInFlightGiveTheBlockingResults)
{
    const auto [algo, size] = GetParam();
    bool any_compressed = false, any_suspended = false;
    for (int root = 0; root < size; ++root) {
        const std::vector<Algo> algos = {algo, algo};
        const std::vector<int> roots = {root, (root + 1) % size};
        const std::string what = name_of(algo) + " root " + std::to_string(root);
        const Outcome nb = run(size, algos, roots, true);
        const Outcome blocking = run(size, algos, roots, false);
        expect_exact(nb, what);
        expect_exact(blocking, what + " (blocking)");
        EXPECT_EQ(nb.bytes_out, blocking.bytes_out) << what;
        any_compressed = any_compressed || nb.any_compressed;
        any_suspended = any_suspended || *std::max_element(nb.rounds.begin(), nb.rounds.end()) > 1;
        if (algo == Algo::Alltoallv || allgathers(algo))
            break; // no root
    }
    EXPECT_TRUE(any_compressed);
    // The calls suspended on transfers in flight rather than running to the end at once. Over
    // all roots, not per root: the ranks are threads, and on a loaded machine one root's run can
    // have a rank's peers move everything before its first advance (a 2-rank gatherv did so once
    // in CI), which says nothing about the algorithm.
    EXPECT_TRUE(any_suspended);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CollAlgoNonBlocking,
                         ::testing::Combine(::testing::Values(Algo::Alltoallv, Algo::Gatherv,
                                                              Algo::Scatterv, Algo::Allgatherv,
                                                              Algo::AllgathervBruck,
                                                              Algo::AllgathervBruckSteps),
                                            ::testing::Values(2, 3, 5)),
                         [](const auto &info) {
                             return name_of(std::get<0>(info.param)) + "_" +
                                    std::to_string(std::get<1>(info.param)) + "ranks";
                         });

// Every algorithm in flight at once on each rank, each on its own tag: none waits for another,
// and each arrives exactly.
TEST(CollAlgoNonBlockingMix, AllFourAlgorithmsInFlightTogether)
{
    const std::vector<Algo> algos = {Algo::Alltoallv,       Algo::Gatherv,
                                     Algo::Scatterv,        Algo::Allgatherv,
                                     Algo::AllgathervBruck, Algo::AllgathervBruckSteps,
                                     Algo::Alltoallv};
    const std::vector<int> roots = {0, 1, 2, 0, 0, 0, 0};
    const Outcome nb = run(4, algos, roots, true);
    expect_exact(nb, "mix");
    EXPECT_TRUE(nb.any_compressed);
    EXPECT_EQ(nb.bytes_out, run(4, algos, roots, false).bytes_out);
}

// A single rank has nothing to move: the call finishes at its first advance.
TEST(CollAlgoNonBlockingMix, OneRankFinishesAtOnce)
{
    const Outcome nb = run(1, {Algo::Alltoallv, Algo::Allgatherv}, {0, 0}, true);
    expect_exact(nb, "one rank");
    EXPECT_EQ(nb.rounds[0], 1);
}
