// The compressed broadcast on the in-process transport: every root, both topologies,
// segment sizes that split messages unevenly, compressible and incompressible data.
#include <climits>
#include <gtest/gtest.h>

#include <set>

#include "test_coll_algo_support.hpp"
#include "tree.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

struct Outcome {
    std::vector<int> rc;
    std::vector<zip_algo_result_t> result;
};

Outcome bcast(World &w, ToyCodec &codec, const std::vector<char> &data, int root, size_t segment,
              int topology, int try_compress, std::vector<std::vector<char>> &bufs)
{
    Outcome out;
    out.rc.assign(w.size(), -100);
    out.result.resize(w.size());
    bufs.assign(w.size(), std::vector<char>(data.size(), '\x5a'));
    bufs[root] = data;
    const zip_codec_ops_t ops = codec.ops();
    w.run([&](int rank, const zip_transport_t &t) {
        zip_bcast_args_t a{};
        a.buf = bufs[rank].data();
        a.bytes = data.size();
        a.root = root;
        a.tag = 7;
        a.elem_type = ZIP_ALGO_BYTES;
        a.try_compress = try_compress;
        a.segment_bytes = segment;
        a.topology = topology;
        out.rc[rank] = zip_algo_bcast(&t, &ops, &a, &out.result[rank]);
    });
    return out;
}

} // namespace

TEST(CollAlgoTree, EveryRankHasOneParentAndTheRootNone)
{
    for (int size = 1; size <= 17; ++size) {
        for (int root = 0; root < size; ++root) {
            for (int chain = 0; chain < 2; ++chain) {
                std::multiset<int> reached;
                for (int r = 0; r < size; ++r) {
                    const auto n = chain ? zipcoll::chain_node(r, size, root)
                                         : zipcoll::binomial_node(r, size, root);
                    EXPECT_EQ(n.parent == -1, r == root);
                    for (int c : n.children) {
                        reached.insert(c);
                        const auto cn = chain ? zipcoll::chain_node(c, size, root)
                                              : zipcoll::binomial_node(c, size, root);
                        EXPECT_EQ(cn.parent, r);
                    }
                }
                EXPECT_EQ(reached.size(), size_t(size - 1));
                EXPECT_EQ(std::set<int>(reached.begin(), reached.end()).size(), size_t(size - 1));
                EXPECT_EQ(reached.count(root), 0u);
            }
        }
    }
}

class CollAlgoBcast : public ::testing::TestWithParam<std::tuple<int, int, size_t>>
{
};

TEST_P(CollAlgoBcast, DeliversExactBytesFromEveryRoot)
{
    const auto [size, topology, segment] = GetParam();
    World w(size);
    ToyCodec codec;
    for (size_t bytes : {size_t(1), size_t(9), size_t(1000), size_t(65536 + 3), size_t(300001)}) {
        // 64-byte segments: a thousand of them at 64 KiB are the many-segment case already;
        // 300 KB in 4,700 took 7-8 s per shape under ASan, the longest tests of CI.
        if (segment < 4096 && bytes > 65536 + 3)
            continue;
        for (int compressible = 0; compressible < 2; ++compressible) {
            const auto data = algotest::make_data(bytes, compressible, bytes + size);
            for (int root = 0; root < size; ++root) {
                std::vector<std::vector<char>> bufs;
                const Outcome o = bcast(w, codec, data, root, segment, topology, 1, bufs);
                for (int r = 0; r < size; ++r) {
                    ASSERT_EQ(o.rc[r], ZIP_ALGO_OK) << "rank " << r << " root " << root;
                    ASSERT_TRUE(bufs[r] == data)
                        << "rank " << r << " root " << root << " bytes " << bytes;
                }
                if (compressible && bytes >= 1000 && size > 1) {
                    EXPECT_TRUE(o.result[root].compressed);
                    EXPECT_LT(o.result[root].bytes_out, o.result[root].bytes_in);
                }
                ASSERT_EQ(w.unreceived(), 0u);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CollAlgoBcast,
    ::testing::Combine(::testing::Values(1, 2, 3, 5, 8),
                       ::testing::Values(ZIP_BCAST_AUTO, ZIP_BCAST_CHAIN, ZIP_BCAST_BINOMIAL),
                       ::testing::Values(size_t(64), size_t(4096), size_t(262144))));

TEST(CollAlgoBcastSegments, LargeMessagesUseTheConfiguredSegment)
{
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(1) << 20, 8, 32768, 0.0), 32768u);
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(1) << 20, 4, 32768, 0.0), 32768u);
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 4, 262144, 0.0), 262144u);
}

TEST(CollAlgoBcastSegments, TheChainGetsFourSegmentsPerRankDownTo8KiB)
{
    // A chain of P ranks and S segments takes S + P - 1 segment times: with S = P, twice the
    // wire time; with 4 P, 1.25 times (simulated 4 MiB at 1 Gbit/s, 64 ranks: 1.20x the best
    // tuned configuration with one segment per rank, 1.62x with four; docs/scale.md).
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 8, 262144, 0.0), 131072u);
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 64, 49152, 0.0), 16384u);
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 128, 49152, 0.0), 8192u);
    // Not below 8 KiB for it: there a segment's own costs (a message, a frame) start to show.
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 512, 49152, 0.0), 8192u);
    EXPECT_EQ(zip_bcast_segment_bytes(65536, 4, 32768, 0.0), 8192u);
}

TEST(CollAlgoBcastSegments, RanksSharingACoreStopShrinkingSegmentsEarlier)
{
    // Every message costs a rank CPU time, and ranks that share a core pay theirs on a share of
    // it (netemu, 8 ranks on 2 cores, 256 KiB: 8 KiB segments 0.69-0.91x tuned's pipeline of
    // 32 KiB segments, 32 KiB ones 0.96-1.41x): the floor of four segments per rank grows with
    // the ranks per core, up to 32 KiB.
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 49152, 0.0), 8192u);
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 49152, 1.0), 8192u);
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 49152, 2.0), 16384u);
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 49152, 4.0), 32768u);
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 49152, 16.0), 32768u);
    // Still at least one segment per rank, and never above the configured segment.
    EXPECT_EQ(zip_bcast_segment_bytes(131072, 8, 49152, 4.0), 16384u);
    EXPECT_EQ(zip_bcast_segment_bytes(262144, 8, 16384, 4.0), 16384u);
    // Where four per rank stay above the floor, nothing changes.
    EXPECT_EQ(zip_bcast_segment_bytes(size_t(4) << 20, 8, 262144, 4.0), 131072u);
}

TEST(CollAlgoBcastSegments, MidSizedMessagesGetASegmentPerRank)
{
    // 16 KiB on 4 ranks: four 4 KiB segments, enough for the chain.
    EXPECT_EQ(zip_bcast_segment_bytes(16384, 4, 32768, 0.0), 4096u);
    EXPECT_EQ(zip_bcast_segment_bytes(65536, 8, 32768, 0.0), 8192u);
    // Uneven sizes round up to whole doubles and leave at least one segment per rank.
    const size_t seg = zip_bcast_segment_bytes(100003, 7, 32768, 0.0);
    EXPECT_EQ(seg % 8, 0u);
    EXPECT_GE((100003 + seg - 1) / seg, 7u);
    const size_t small = zip_bcast_segment_bytes(30003, 7, 32768, 0.0);
    EXPECT_EQ(small % 8, 0u);
    EXPECT_LE((30003 + small - 1) / small, 7u);
    EXPECT_GE(small * 7, size_t(30003));
}

TEST(CollAlgoBcastSegments, NeverBelowTheMinimumUnlessConfiguredSo)
{
    EXPECT_EQ(zip_bcast_segment_bytes(16384, 8, 32768, 0.0), size_t(ZIP_BCAST_MIN_SEGMENT));
    EXPECT_EQ(zip_bcast_segment_bytes(100, 64, 32768, 0.0), size_t(ZIP_BCAST_MIN_SEGMENT));
    EXPECT_EQ(zip_bcast_segment_bytes(16384, 4, 1024, 0.0), 1024u); // configured below the floor
    EXPECT_EQ(zip_bcast_segment_bytes(16384, 4, 1001, 0.0), 1000u); // whole doubles
}

TEST(CollAlgoBcastSegments, EverySegmentFitsAnIntCount)
{
    const size_t seg = zip_bcast_segment_bytes(size_t(3) << 31, 2, size_t(1) << 40, 0.0);
    EXPECT_LE(seg, size_t(INT_MAX));
    EXPECT_EQ(seg % 8, 0u);
}

TEST(CollAlgoBcastRaw, IncompressibleOrDisabledTravelsRaw)
{
    World w(4);
    ToyCodec codec;
    std::vector<std::vector<char>> bufs;
    const auto random = algotest::make_data(100000, false, 5);
    Outcome o = bcast(w, codec, random, 1, 8192, ZIP_BCAST_AUTO, 1, bufs);
    size_t sent = 0;
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(o.rc[r], ZIP_ALGO_OK);
        EXPECT_TRUE(bufs[r] == random);
        EXPECT_FALSE(o.result[r].compressed);
        EXPECT_EQ(o.result[r].bytes_out, o.result[r].bytes_in);
        sent += o.result[r].bytes_in;
    }
    // Every rank but the root receives the message once, from one sender that counts it.
    EXPECT_EQ(sent, 3 * random.size());
    const auto smooth = algotest::make_data(100000, true, 5);
    o = bcast(w, codec, smooth, 2, 8192, ZIP_BCAST_AUTO, 0, bufs);
    for (int r = 0; r < 4; ++r) {
        EXPECT_TRUE(bufs[r] == smooth);
        EXPECT_FALSE(o.result[r].compressed);
    }
}

// Every rank receives every segment (the root sent them): all count the same raw and wire
// bytes, which the next call's plan weighs (zip_algo_seen_t).
TEST(CollAlgoBcastRaw, EveryRankCountsTheSameWireBytes)
{
    World w(5);
    ToyCodec codec;
    std::vector<std::vector<char>> bufs;
    for (int topology : {ZIP_BCAST_CHAIN, ZIP_BCAST_BINOMIAL})
        for (bool smooth : {false, true}) {
            const auto data = algotest::make_data(100000, smooth, 6);
            const Outcome o = bcast(w, codec, data, 3, 8192, topology, 1, bufs);
            for (int r = 0; r < 5; ++r) {
                ASSERT_EQ(o.rc[r], ZIP_ALGO_OK);
                EXPECT_TRUE(bufs[r] == data);
                EXPECT_EQ(o.result[r].gathered_raw, data.size());
                EXPECT_EQ(o.result[r].gathered_wire, o.result[3].gathered_wire);
            }
            if (smooth)
                EXPECT_LT(o.result[3].gathered_wire, data.size() / 2) << topology;
            else
                EXPECT_EQ(o.result[3].gathered_wire, data.size()) << topology;
        }
}

TEST(CollAlgoBcastErrors, CorruptFrameIsReportedNotHidden)
{
    World w(5);
    ToyCodec codec;
    codec.fail_decode = true;
    std::vector<std::vector<char>> bufs;
    const auto smooth = algotest::make_data(50000, true, 9);
    const Outcome o = bcast(w, codec, smooth, 0, 4096, ZIP_BCAST_BINOMIAL, 1, bufs);
    EXPECT_EQ(o.rc[0], ZIP_ALGO_OK); // the root decodes nothing
    for (int r = 1; r < 5; ++r)
        EXPECT_EQ(o.rc[r], ZIP_ALGO_ERR_CODEC) << "rank " << r;
    EXPECT_EQ(w.unreceived(), 0u); // frames were still forwarded: nobody hangs
}

TEST(CollAlgoBcastErrors, BadRootIsAnArgumentError)
{
    World w(2);
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    char b[16] = {};
    zip_transport_t t = w.transport(0);
    zip_bcast_args_t a{};
    a.buf = b;
    a.bytes = sizeof b;
    a.root = 5;
    a.segment_bytes = 8;
    zip_algo_result_t res;
    EXPECT_EQ(zip_algo_bcast(&t, &ops, &a, &res), ZIP_ALGO_ERR_ARG);
}

// The non-blocking form: over a testing transport the broadcast suspends instead of waiting;
// two calls in flight (different tags, different roots) are advanced alternately by every
// rank, as MPI_Test would, and give what the blocking call gives.
TEST(CollAlgoIbcast, TwoCallsInFlightDeliverEverySegment)
{
    for (int size : {2, 3, 5}) {
        World w(size, false, 0, true);
        ToyCodec codec;
        const zip_codec_ops_t ops = codec.ops();
        const auto smooth = algotest::make_data(90000, true, 3);
        const auto random = algotest::make_data(50000, false, 4);
        std::vector<std::vector<char>> a(size_t(size), std::vector<char>(smooth.size(), 'x'));
        std::vector<std::vector<char>> b(size_t(size), std::vector<char>(random.size(), 'y'));
        a[0] = smooth;
        b[size_t(size - 1)] = random;
        std::vector<int> rca(size_t(size), -100), rcb(size_t(size), -100);
        std::vector<zip_algo_result_t> ra(static_cast<size_t>(size)), rb(static_cast<size_t>(size));
        w.run([&](int rank, const zip_transport_t &t) {
            zip_bcast_args_t x{}, y{};
            x.buf = a[size_t(rank)].data();
            x.bytes = smooth.size();
            x.root = 0;
            x.tag = 7;
            x.try_compress = 1;
            x.segment_bytes = 8192;
            y = x;
            y.buf = b[size_t(rank)].data();
            y.bytes = random.size();
            y.root = size - 1;
            y.tag = 8;
            zip_algo_call_t *cx = zip_algo_ibcast(&t, &ops, &x, &ra[size_t(rank)]);
            zip_algo_call_t *cy = zip_algo_ibcast(&t, &ops, &y, &rb[size_t(rank)]);
            ASSERT_NE(cx, nullptr);
            ASSERT_NE(cy, nullptr);
            bool dx = false, dy = false;
            while (!dx || !dy) {
                dx = dx || zip_algo_call_advance(cx) != 0;
                dy = dy || zip_algo_call_advance(cy) != 0;
            }
            rca[size_t(rank)] = zip_algo_call_finish(cx);
            rcb[size_t(rank)] = zip_algo_call_finish(cy);
        });
        for (int r = 0; r < size; ++r) {
            EXPECT_EQ(rca[size_t(r)], ZIP_ALGO_OK);
            EXPECT_EQ(rcb[size_t(r)], ZIP_ALGO_OK);
            EXPECT_TRUE(a[size_t(r)] == smooth) << "size " << size << " rank " << r;
            EXPECT_TRUE(b[size_t(r)] == random) << "size " << size << " rank " << r;
        }
        EXPECT_EQ(ra[0].compressed, 1);
        EXPECT_EQ(w.unreceived(), 0u);
    }
}
