// The compressed gatherv on the in-process transport: every root, zero and uneven blocks,
// compressible and random data.
#include <gtest/gtest.h>

#include <string>

#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

size_t bytes_of(int rank, int round)
{
    static const size_t menu[] = {0, 3, 2048, 4000, 90000, 1};
    return menu[(rank + round) % 6];
}

// Byte blocks, compressed from 1 KiB up, on tag 5.
zip_exchange_args_t byte_blocks_args()
{
    zip_exchange_args_t a{};
    a.tag = 5;
    a.elem_type = ZIP_ALGO_BYTES;
    a.try_compress = 1;
    a.threshold = 1024;
    return a;
}

} // namespace

class CollAlgoGatherv : public ::testing::TestWithParam<int>
{
};

TEST_P(CollAlgoGatherv, RootGetsEveryBlockExactly)
{
    const int size = GetParam();
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    for (int round = 0; round < 6; ++round) {
        for (int root = 0; root < size; ++root) {
            World w(size);
            std::vector<std::vector<char>> got(size);
            std::vector<int> rc(size, -100);
            std::vector<zip_algo_result_t> res(size);
            w.run([&](int rank, const zip_transport_t &t) {
                const auto mine = algotest::make_data(bytes_of(rank, round), (rank + round) % 2,
                                                      uint64_t(rank * 7 + round));
                zip_exchange_args_t a = byte_blocks_args();
                std::vector<zip_block_t> rb(size);
                zip_block_t sb{const_cast<char *>(mine.data()), mine.size(), nullptr};
                if (rank == root) {
                    for (int p = 0; p < size; ++p) {
                        if (p == root)
                            continue;
                        got[p].assign(bytes_of(p, round), '\x22');
                        rb[p] = {got[p].data(), got[p].size(), nullptr};
                    }
                    a.recv = rb.data();
                } else {
                    a.send = &sb;
                }
                rc[rank] = zip_algo_gatherv(&t, &ops, root, &a, &res[rank]);
            });
            for (int p = 0; p < size; ++p) {
                EXPECT_EQ(rc[p], ZIP_ALGO_OK);
                if (p == root)
                    continue;
                EXPECT_TRUE(got[p] == algotest::make_data(bytes_of(p, round), (p + round) % 2,
                                                          uint64_t(p * 7 + round)))
                    << "from " << p << " root " << root << " round " << round;
            }
            EXPECT_EQ(w.unreceived(), 0u);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CollAlgoGatherv, ::testing::Values(1, 2, 3, 6));

// A root with a window of bytes keeps receives of about that many bytes posted, at least two,
// posting each next one as one completes (so it decodes a block while the next ones travel),
// and still gets every block exactly, also from every other root; without one, all at once.
TEST(CollAlgoGathervWindow, TheRootKeepsAboutTheWindowsBytesOfReceivesPosted)
{
    const int size = 9;
    const size_t block = 40000;
    struct Case {
        size_t window_bytes, most_open;
    };
    for (const Case c : {Case{0, 8}, Case{100000, 3}, Case{1, 2}, Case{1 << 20, 8}}) {
        for (bool compressible : {true, false}) {
            for (int root : {0, 4}) {
                ToyCodec codec;
                const zip_codec_ops_t ops = codec.ops();
                World w(size);
                std::vector<std::vector<char>> got(size);
                std::vector<int> rc(size, -100);
                w.run([&](int rank, const zip_transport_t &t) {
                    const auto mine = algotest::make_data(block, compressible, uint64_t(rank));
                    zip_exchange_args_t a = byte_blocks_args();
                    a.root_window_bytes = c.window_bytes;
                    std::vector<zip_block_t> rb(size);
                    zip_block_t sb{const_cast<char *>(mine.data()), mine.size(), nullptr};
                    if (rank == root) {
                        for (int p = 0; p < size; ++p)
                            if (p != root) {
                                got[p].assign(block, '\x22');
                                rb[p] = {got[p].data(), got[p].size(), nullptr};
                            }
                        a.recv = rb.data();
                    } else {
                        a.send = &sb;
                    }
                    zip_algo_result_t res;
                    rc[rank] = zip_algo_gatherv(&t, &ops, root, &a, &res);
                });
                const std::string what = "window " + std::to_string(c.window_bytes) + " root " +
                                         std::to_string(root) + " compressible " +
                                         std::to_string(compressible);
                EXPECT_EQ(w.most_open_recvs[size_t(root)], c.most_open) << what;
                for (int p = 0; p < size; ++p) {
                    EXPECT_EQ(rc[p], ZIP_ALGO_OK) << what;
                    if (p != root) {
                        EXPECT_TRUE(got[p] == algotest::make_data(block, compressible, uint64_t(p)))
                            << "from " << p << " " << what;
                    }
                }
                EXPECT_EQ(w.unreceived(), 0u) << what;
            }
        }
    }
}

// A frame that fails to decode is an error at the root, which still posts and completes every
// other receive: no sender waits for a receive that never comes.
TEST(CollAlgoGathervWindow, AFailedDecodeStillReceivesEveryBlock)
{
    const int size = 7;
    ToyCodec codec;
    codec.fail_decode = true;
    const zip_codec_ops_t ops = codec.ops();
    World w(size);
    std::vector<int> rc(size, -100);
    std::vector<std::vector<char>> got(size);
    w.run([&](int rank, const zip_transport_t &t) {
        const auto mine = algotest::make_data(50000, true, uint64_t(rank));
        zip_exchange_args_t a = byte_blocks_args();
        a.root_window_bytes = 1; // two at a time
        std::vector<zip_block_t> rb(size);
        zip_block_t sb{const_cast<char *>(mine.data()), mine.size(), nullptr};
        if (rank == 0) {
            for (int p = 1; p < size; ++p) {
                got[p].assign(50000, '\x22');
                rb[p] = {got[p].data(), got[p].size(), nullptr};
            }
            a.recv = rb.data();
        } else {
            a.send = &sb;
        }
        zip_algo_result_t res;
        rc[rank] = zip_algo_gatherv(&t, &ops, 0, &a, &res);
    });
    EXPECT_NE(rc[0], ZIP_ALGO_OK);
    for (int p = 1; p < size; ++p)
        EXPECT_EQ(rc[p], ZIP_ALGO_OK) << p;
    EXPECT_EQ(w.most_open_recvs[0], 2u);
    EXPECT_EQ(w.unreceived(), 0u);
}

// Every non-root of a `size`-rank world sends root 0 one block of `block` bytes of data `kind`
// (seed: the sender's rank + 1); got[p] is what root received from p.
static void gather_one_block_each(int size, size_t block, bool compressible, ToyCodec &codec,
                                  std::vector<std::vector<char>> &got,
                                  std::vector<zip_algo_result_t> &res)
{
    const zip_codec_ops_t ops = codec.ops();
    World w(size);
    got.assign(size, {});
    res.assign(size, {});
    w.run([&](int rank, const zip_transport_t &t) {
        const auto mine = algotest::make_data(block, compressible, uint64_t(rank + 1));
        zip_exchange_args_t a = byte_blocks_args();
        std::vector<zip_block_t> rb(size);
        zip_block_t sb{const_cast<char *>(mine.data()), mine.size(), nullptr};
        if (rank == 0) {
            for (int p = 1; p < size; ++p) {
                got[p].assign(block, '\x22');
                rb[p] = {got[p].data(), got[p].size(), nullptr};
            }
            a.recv = rb.data();
        } else {
            a.send = &sb;
        }
        EXPECT_EQ(zip_algo_gatherv(&t, &ops, 0, &a, &res[rank]), ZIP_ALGO_OK);
    });
}

// Incompressible data costs a sample, not the whole block: a large first block is judged on its
// first 64 KiB, and everything goes raw once that does not shrink.
TEST(CollAlgoGathervSample, LargeIncompressibleBlocksCostOnlyASample)
{
    const int size = 3;
    const size_t block = size_t(1) << 20, sample = 65536;
    ToyCodec codec;
    std::vector<std::vector<char>> got;
    std::vector<zip_algo_result_t> res;
    gather_one_block_each(size, block, false, codec, got, res);
    for (int p = 1; p < size; ++p) {
        EXPECT_TRUE(got[p] == algotest::make_data(block, false, uint64_t(p + 1)));
        EXPECT_FALSE(res[p].compressed);
        EXPECT_EQ(res[p].bytes_out, block);
    }
    EXPECT_EQ(codec.bytes_offered.load(), size_t(size - 1) * sample);
}

// Compressible data still compresses whole after the sample.
TEST(CollAlgoGathervSample, LargeCompressibleBlocksCompressAfterTheSample)
{
    const size_t block = size_t(1) << 20;
    ToyCodec codec;
    std::vector<std::vector<char>> got;
    std::vector<zip_algo_result_t> res;
    gather_one_block_each(2, block, true, codec, got, res);
    EXPECT_TRUE(got[1] == algotest::make_data(block, true, 2));
    EXPECT_TRUE(res[1].compressed);
    EXPECT_LT(res[1].bytes_out, block / 2);
}

// Statistics (docs/user-guide.md): a rank counts the blocks it sends in zip's path, raw or not,
// as every algorithm does. Random blocks go raw, whether compressed whole in vain (below the
// 64 KiB sample) or judged on the sample: each sender counts its block in both columns; the
// root only receives and counts nothing.
TEST(CollAlgoGathervStats, RawBlocksCountOnTheirSenderInBothColumns)
{
    const int size = 3;
    for (const size_t block : {size_t(4096), size_t(1) << 20}) {
        ToyCodec codec;
        std::vector<std::vector<char>> got;
        std::vector<zip_algo_result_t> res;
        gather_one_block_each(size, block, false, codec, got, res);
        EXPECT_EQ(res[0].bytes_in, 0u);
        EXPECT_EQ(res[0].bytes_out, 0u);
        EXPECT_FALSE(res[0].compressed);
        for (int p = 1; p < size; ++p) {
            EXPECT_FALSE(res[p].compressed) << "block " << block;
            EXPECT_EQ(res[p].bytes_in, block) << "block " << block;
            EXPECT_EQ(res[p].bytes_out, block) << "block " << block;
        }
    }
}

// The split at the root (zip_algo.h): blocks below the threshold, and the block of a sender on
// the root's node, arrive by handle, posted before the compressed ones; the rest are compressed
// and viewed as bytes at both ends. Rank 1 shares root 0's node.
TEST(CollAlgoGathervPlain, SmallAndOnNodeBlocksMovePlainlyBesideCompressedOnes)
{
    const int size = 5;
    const size_t bytes[size] = {0, 90000, 100, 4000, 90000};
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    World w(size, true);
    std::vector<std::vector<char>> got(size);
    std::vector<zip_algo_result_t> res(size);
    bool on_node[size] = {true, true, false, false, false};
    w.run([&](int rank, const zip_transport_t &t) {
        auto mine = algotest::make_data(bytes[rank], true, uint64_t(rank + 1));
        std::vector<algotest::Typed> handles(size);
        std::vector<zip_block_t> rb(size);
        zip_exchange_args_t a = byte_blocks_args();
        a.peer_on_node = rank < 2 ? on_node : nullptr; // 2..4 know no node mate
        if (rank == 0) {
            for (int p = 1; p < size; ++p) {
                got[p].assign(bytes[p], '\x22');
                handles[p] = {got[p].data(), got[p].size()};
                rb[p] = {nullptr, bytes[p], &handles[p]};
            }
            a.recv = rb.data();
        } else {
            handles[0] = {mine.data(), mine.size()};
            rb[0] = {nullptr, mine.size(), &handles[0]};
            a.send = rb.data();
        }
        EXPECT_EQ(zip_algo_gatherv(&t, &ops, 0, &a, &res[rank]), ZIP_ALGO_OK);
    });
    for (int p = 1; p < size; ++p)
        EXPECT_TRUE(got[p] == algotest::make_data(bytes[p], true, uint64_t(p + 1))) << p;
    EXPECT_EQ(w.plain_sends.load(), 2u); // rank 1 (on node), rank 2 (small)
    EXPECT_EQ(w.plain_recvs.load(), 2u);
    EXPECT_EQ(w.byte_views.load(), 4u); // ranks 3 and 4, at each end
    EXPECT_EQ(res[1].all_plain, 1);
    EXPECT_EQ(res[2].all_plain, 1);
    EXPECT_EQ(res[1].bytes_in, 0u);
    EXPECT_TRUE(res[3].compressed && res[4].compressed);
    EXPECT_EQ(res[0].all_plain, 0);
}
