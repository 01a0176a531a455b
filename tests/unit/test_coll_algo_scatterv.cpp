// The compressed scatterv on the in-process transport: every root, zero and uneven blocks,
// compressible and random data, plain blocks by handle; the root compresses each block once.
#include <gtest/gtest.h>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

size_t bytes_of(int to, int round)
{
    static const size_t menu[] = {0, 3, 2048, 4000, 50000, 1, 900};
    return menu[(to * 2 + round) % 7];
}

std::vector<char> data_of(int to, int round)
{
    return algotest::make_data(bytes_of(to, round), (to + round) % 3 != 0,
                               uint64_t(to * 5 + round));
}

// What every test's scatterv passes but its blocks: bytes, only the root compresses, blocks
// from 1 KiB on.
zip_exchange_args_t scatter_args(int rank, int root)
{
    zip_exchange_args_t a{};
    a.tag = 6;
    a.elem_type = ZIP_ALGO_BYTES;
    a.try_compress = rank == root;
    a.threshold = 1024;
    return a;
}

} // namespace

class CollAlgoScatterv : public ::testing::TestWithParam<std::tuple<int, bool>>
{
};

TEST_P(CollAlgoScatterv, EveryRankGetsItsBlockExactly)
{
    const auto [size, typed] = GetParam();
    for (int round = 0; round < 7; ++round) {
        for (int root = 0; root < size; ++root) {
            ToyCodec codec;
            const zip_codec_ops_t ops = codec.ops();
            World w(size, algotest::WorldOptions{.typed = typed});
            std::vector<std::vector<char>> got(size);
            std::vector<int> rc(size, -100);
            w.run([&](int rank, const zip_transport_t &t) {
                std::vector<std::vector<char>> out(size);
                std::vector<algotest::Typed> handles(size);
                std::vector<zip_block_t> blocks(size);
                auto block = [&](int i, std::vector<char> &v) {
                    handles[i] = {v.data(), v.size()};
                    blocks[i] = typed ? zip_block_t{nullptr, v.size(), &handles[i]}
                                      : zip_block_t{v.data(), v.size(), nullptr};
                };
                zip_exchange_args_t a = scatter_args(rank, root);
                if (rank == root) {
                    for (int p = 0; p < size; ++p) {
                        out[p] = data_of(p, round);
                        block(p, out[p]);
                    }
                    a.send = blocks.data();
                } else {
                    got[rank].assign(bytes_of(rank, round), '\x44');
                    block(0, got[rank]);
                    a.recv = blocks.data();
                }
                zip_algo_result_t res;
                rc[rank] = zip_algo_scatterv(&t, &ops, root, &a, &res);
            });
            size_t coded = 0;
            for (int p = 0; p < size; ++p) {
                EXPECT_EQ(rc[p], ZIP_ALGO_OK);
                if (p == root)
                    continue;
                coded += bytes_of(p, round) >= 1024;
                EXPECT_TRUE(got[p] == data_of(p, round))
                    << "to " << p << " root " << root << " round " << round;
            }
            // One compression per block, at the root (the first decides for the rest when it
            // does not shrink, so at most that many).
            EXPECT_LE(codec.compressions.load(), coded);
            EXPECT_EQ(w.unreceived(), 0u);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoScatterv,
                         ::testing::Combine(::testing::Values(1, 2, 3, 6), ::testing::Bool()));

// A scatterv of 50000 bytes to each of `size` ranks from `root`, compressible or random: what
// every rank holds and the arguments it passes.
struct BigScatter {
    BigScatter(int rank, int root, int size, bool compressible)
        : out(size_t(size)), got(size_t(size)), blocks(size_t(size)), a(scatter_args(rank, root))
    {
        if (rank == root) {
            for (int p = 0; p < size; ++p) {
                out[size_t(p)] = algotest::make_data(kBytes, compressible, uint64_t(p));
                blocks[size_t(p)] = zip_block_t{out[size_t(p)].data(), kBytes, nullptr};
            }
            a.send = blocks.data();
        } else {
            got[size_t(rank)].assign(kBytes, '\x44');
            blocks[0] = zip_block_t{got[size_t(rank)].data(), kBytes, nullptr};
            a.recv = blocks.data();
        }
    }
    // Every rank but the root got its block.
    static void expect_delivered(const std::vector<std::vector<char>> &got, int root,
                                 bool compressible)
    {
        for (size_t p = 0; p < got.size(); ++p)
            if (int(p) != root) {
                EXPECT_TRUE(got[p] == algotest::make_data(kBytes, compressible, uint64_t(p)))
                    << "to " << p << " compressible " << compressible;
            }
    }
    static constexpr size_t kBytes = 50000;
    std::vector<std::vector<char>> out, got;
    std::vector<zip_block_t> blocks;
    zip_exchange_args_t a;
};

// Over ob1 a large send moves only while its sender calls into MPI: between the codec calls for
// its blocks the root lets what it has posted move (not after the last; never when it sends
// raw, where nothing is coded in between).
TEST(CollAlgoScattervProgress, TheRootLetsItsSendsMoveBetweenCodecCalls)
{
    const int size = 5, root = 2;
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size);
        w.progress_hook = true;
        std::vector<std::vector<char>> got(size);
        std::vector<int> rc(size, -100);
        w.run([&](int rank, const zip_transport_t &t) {
            BigScatter s(rank, root, size, compressible);
            zip_algo_result_t res;
            rc[size_t(rank)] = zip_algo_scatterv(&t, &ops, root, &s.a, &res);
            got[size_t(rank)] = s.got[size_t(rank)];
        });
        BigScatter::expect_delivered(got, root, compressible);
        for (int p = 0; p < size; ++p) {
            EXPECT_EQ(rc[size_t(p)], ZIP_ALGO_OK);
            if (p != root) {
                EXPECT_EQ(w.progress_calls[size_t(p)], 0u) << "rank " << p;
            }
        }
        // Four blocks leave the root, three gaps between their codec calls.
        EXPECT_EQ(w.progress_calls[size_t(root)], compressible ? size_t(size - 2) : 0u)
            << "compressible " << compressible;
    }
}

// MPI_Iscatterv advances inside Open MPI's progress engine, which it must not call again: there
// the root suspends after each coded block's send instead, so the engine moves it before the
// next codec call. Its first advance posts one send where the blocks compress, all where they
// do not (nothing is coded after the first sample).
TEST(CollAlgoScattervProgress, ANonBlockingRootSuspendsBetweenCodecCalls)
{
    const int size = 5, root = 2;
    for (bool compressible : {true, false}) {
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        World w(size, false, 0, true);
        std::vector<std::vector<char>> got(size);
        std::vector<int> rc(size, -100);
        size_t after_first_advance = 0;
        w.run([&](int rank, const zip_transport_t &t) {
            BigScatter s(rank, root, size, compressible);
            zip_algo_result_t res;
            zip_algo_call_t *call = zip_algo_iscatterv(&t, &ops, root, &s.a, &res);
            ASSERT_NE(call, nullptr);
            bool done = zip_algo_call_advance(call) != 0;
            if (rank == root)
                after_first_advance = w.messages.load(); // only the root sends
            while (!done)
                done = zip_algo_call_advance(call) != 0;
            rc[size_t(rank)] = zip_algo_call_finish(call);
            got[size_t(rank)] = s.got[size_t(rank)];
        });
        BigScatter::expect_delivered(got, root, compressible);
        for (int p = 0; p < size; ++p)
            EXPECT_EQ(rc[size_t(p)], ZIP_ALGO_OK);
        EXPECT_EQ(after_first_advance, compressible ? 1u : size_t(size - 1))
            << "compressible " << compressible;
        EXPECT_EQ(w.messages.load(), size_t(size - 1));
    }
}
