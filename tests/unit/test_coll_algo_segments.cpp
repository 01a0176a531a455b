// Two-rank gatherv and scatterv of large blocks in segments (exchange.hpp): both ends cut a
// block alike, every byte arrives exactly whatever the length, and the policy judges segments
// by what overlaps, so that a block which would not pay coded whole is compressed in segments.
#include <gtest/gtest.h>

#include "exchange.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

// A link a little slower than the codec: coding a block whole (compress, send, decode one
// after the other) costs more than the bytes it saves; with coding and transfers overlapped it
// pays (zip.h's model; 10 Gbit/s-like against a 2.3 GB/s codec). The shape is the route's for
// a gather(v) on two ranks; a block that goes whole is judged one-shot whatever it says.
const zip_algo_policy_t kRouted{ZIP_POLICY_AUTO, {2.3e9, 2.3e9, 1e9, 0}, ZIP_TRANSFER_PIPELINED};

std::vector<char> data_of(int rank, size_t n, bool compressible)
{
    return algotest::make_data(n, compressible, uint64_t(rank * 31 + 7));
}

struct TwoRanks {
    int rc[2] = {-100, -100};
    zip_algo_result_t res[2]{};
    bool exact = false;
    size_t messages = 0;
};

// Gatherv (into_root) or scatterv on two ranks, root 0, one block of `bytes`.
TwoRanks rooted(bool into_root, size_t bytes, const zip_algo_policy_t *policy,
                bool compressible = true)
{
    World w(2);
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    TwoRanks out;
    std::vector<char> got(bytes, '\x44');
    const std::vector<char> block = data_of(into_root ? 1 : 0, bytes, compressible);
    w.run([&](int rank, const zip_transport_t &t) {
        zip_exchange_args_t a{};
        a.tag = 4;
        a.elem_type = ZIP_ALGO_BYTES;
        a.try_compress = 1;
        a.threshold = 1024;
        a.policy = policy;
        zip_block_t blocks[2]{};
        zip_block_t own{const_cast<char *>(block.data()), block.size(), nullptr};
        zip_block_t into{got.data(), got.size(), nullptr};
        const bool sender = (rank == 0) != into_root;
        if (rank == 0) {
            blocks[1] = sender ? own : into;
            (sender ? a.send : a.recv) = blocks;
        } else {
            (sender ? a.send : a.recv) = sender ? &own : &into;
        }
        out.rc[rank] = into_root ? zip_algo_gatherv(&t, &ops, 0, &a, &out.res[rank])
                                 : zip_algo_scatterv(&t, &ops, 0, &a, &out.res[rank]);
    });
    out.exact = got == block;
    out.messages = w.messages;
    EXPECT_EQ(w.unreceived(), 0u);
    return out;
}

} // namespace

TEST(CollAlgoSegments, OnlyLargeBlocksOfTwoRanksAreCut)
{
    EXPECT_EQ(zipcoll::segment_bytes(3, size_t(8) << 20), 0u);
    EXPECT_EQ(zipcoll::segment_bytes(2, 2 * zipcoll::kSegmentMin - 1), 0u);
    EXPECT_EQ(zipcoll::segment_bytes(2, 2 * zipcoll::kSegmentMin), zipcoll::kSegmentMin);
    EXPECT_EQ(zipcoll::segment_bytes(2, size_t(1) << 20), zipcoll::kSegmentMin);
    EXPECT_EQ(zipcoll::segment_bytes(2, size_t(4) << 20), size_t(512) << 10);
    EXPECT_EQ(zipcoll::segment_bytes(2, size_t(64) << 20), zipcoll::kSegmentMax);
    for (size_t bytes = 2 * zipcoll::kSegmentMin; bytes < (size_t(32) << 20); bytes = bytes * 3 / 2)
        EXPECT_EQ(zipcoll::segment_bytes(2, bytes) % 65536, 0u) << bytes;
}

TEST(CollAlgoSegments, SegmentsCoverTheBlockInOrder)
{
    char base[10];
    std::vector<zipcoll::Transfer> out;
    zipcoll::append_segments({1, base, 10}, 4, &out);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].ptr, base);
    EXPECT_EQ(out[1].ptr, base + 4);
    EXPECT_EQ(out[2].ptr, base + 8);
    EXPECT_EQ(out[2].bytes, 2u);
    EXPECT_EQ(out[1].peer, 1);
    out.clear();
    zipcoll::append_segments({1, base, 10}, 0, &out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].bytes, 10u);
}

TEST(CollAlgoSegments, GathervAndScattervOfTwoRanksInSegments)
{
    const size_t k = zipcoll::kSegmentMin;
    for (bool into_root : {true, false})
        for (bool compressible : {true, false})
            for (size_t bytes :
                 {size_t(3000), 2 * k - 1, 2 * k, 7 * k + 5, (size_t(2) << 20) + 16}) {
                const TwoRanks r = rooted(into_root, bytes, nullptr, compressible);
                EXPECT_TRUE(r.exact) << bytes << (into_root ? " gatherv" : " scatterv");
                EXPECT_EQ(r.rc[0], ZIP_ALGO_OK);
                EXPECT_EQ(r.rc[1], ZIP_ALGO_OK);
                const size_t seg = zipcoll::segment_bytes(2, bytes);
                EXPECT_EQ(r.messages, seg == 0 ? 1u : (bytes + seg - 1) / seg) << bytes;
            }
    // Speeds where only the overlap pays: whole raw, in segments compressed.
    const TwoRanks whole = rooted(true, 200000, &kRouted);
    const TwoRanks cut = rooted(true, size_t(1) << 20, &kRouted);
    ASSERT_TRUE(whole.exact && cut.exact);
    EXPECT_EQ(whole.res[1].bytes_out, whole.res[1].bytes_in);
    EXPECT_LT(cut.res[1].bytes_out, cut.res[1].bytes_in / 2);
}
