// The compressed allgatherv, ring and Bruck (a message per block or per step), on the
// in-process transport: every block reaches
// every rank exactly, each is compressed once by its owner, forwarded as the frame it became and
// decoded once per receiver; plain blocks travel as they are; errors do not stop the schedule.
// And the choice between the two (zip_algo_allgatherv_choose).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bruck_steps.hpp"
#include "ring.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::ToyCodec;
using algotest::World;

namespace
{

size_t bytes_of(int owner, int round)
{
    static const size_t menu[] = {0, 1, 1000, 1024, 5000, 60000, 20000};
    return menu[(owner * 3 + round) % 7];
}

bool compressible(int owner, int round)
{
    return (owner + round) % 3 != 0;
}

std::vector<char> data_of(int owner, int round)
{
    return algotest::make_data(bytes_of(owner, round), compressible(owner, round),
                               uint64_t(owner * 31 + round));
}

struct RingRun {
    std::vector<int> rc;
    std::vector<zip_algo_result_t> res;
    int mismatches = 0;
    size_t plain_sends = 0, byte_views = 0, messages = 0;
};

// n bytes at p as a block: typed (through the handle h, which it keeps) or contiguous.
zip_block_t block_of(algotest::Typed &h, char *p, size_t n, bool typed)
{
    h = {p, n};
    return typed ? zip_block_t{nullptr, n, &h} : zip_block_t{p, n, nullptr};
}

// An allgatherv of bytes on tag 8 that may compress blocks of 1024 bytes or more.
zip_exchange_args_t ring_args(const zip_block_t *send, const zip_block_t *recv,
                              int algorithm = ZIP_ALLGATHERV_RING)
{
    zip_exchange_args_t a{};
    a.algorithm = algorithm;
    a.send = send;
    a.recv = recv;
    a.tag = 8;
    a.elem_type = ZIP_ALGO_BYTES;
    a.try_compress = 1;
    a.threshold = 1024;
    return a;
}

// Every rank contributes data_of(rank, round); blocks below 1024 bytes are plain. rendezvous:
// sends read their buffer when they meet their receive (World::rendezvous).
RingRun allgatherv(int size, int round, ToyCodec &codec, bool typed, bool rendezvous = false,
                   int algorithm = ZIP_ALLGATHERV_RING)
{
    World w(size, algotest::WorldOptions{.typed = typed, .rendezvous = rendezvous});
    RingRun out;
    out.rc.assign(size, -100);
    out.res.resize(size);
    std::vector<std::vector<std::vector<char>>> got(size, std::vector<std::vector<char>>(size));
    const zip_codec_ops_t ops = codec.ops();
    w.run([&](int rank, const zip_transport_t &t) {
        auto mine = data_of(rank, round);
        std::vector<algotest::Typed> handles(size + 1);
        std::vector<zip_block_t> rb(size);
        for (int p = 0; p < size; ++p) {
            got[rank][p].assign(bytes_of(p, round), '\x33');
            if (p != rank)
                rb[p] = block_of(handles[p], got[rank][p].data(), got[rank][p].size(), typed);
        }
        const zip_block_t sb = block_of(handles[size], mine.data(), mine.size(), typed);
        const zip_exchange_args_t a = ring_args(&sb, rb.data(), algorithm);
        out.rc[rank] = zip_algo_allgatherv(&t, &ops, &a, &out.res[rank]);
    });
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p)
            if (p != r && got[r][p] != data_of(p, round))
                ++out.mismatches;
    EXPECT_EQ(w.unreceived(), 0u);
    out.plain_sends = w.plain_sends;
    out.byte_views = w.byte_views;
    out.messages = w.messages;
    return out;
}

} // namespace

class CollAlgoAllgatherv : public ::testing::TestWithParam<std::tuple<int, bool, int>>
{
};

TEST_P(CollAlgoAllgatherv, EveryRankGetsEveryBlockExactly)
{
    const auto [size, typed, algorithm] = GetParam();
    bool compressed = false;
    for (int round = 0; round < 7; ++round) {
        ToyCodec codec;
        const RingRun r = allgatherv(size, round, codec, typed, false, algorithm);
        EXPECT_EQ(r.mismatches, 0) << "round " << round;
        for (int k = 0; k < size; ++k) {
            EXPECT_EQ(r.rc[k], ZIP_ALGO_OK) << "round " << round << " rank " << k;
            compressed |= r.res[k].compressed != 0;
        }
    }
    if (size > 1) {
        EXPECT_TRUE(compressed);
    }
}

// What a call moved, every block raw and as it travelled, is what the next blocking call's
// schedule weighs on every rank (zip_algo_seen_t): each rank counts the same, frames shorter
// than their blocks.
TEST_P(CollAlgoAllgatherv, EveryRankCountsTheSameGatheredBytes)
{
    const auto [size, typed, algorithm] = GetParam();
    for (int round = 0; round < 7; ++round) {
        ToyCodec codec;
        const RingRun r = allgatherv(size, round, codec, typed, false, algorithm);
        if (size == 1) { // nothing moves: nothing to weigh (zip_algo_seen_ratio 0)
            EXPECT_EQ(r.res[0].gathered_raw, 0u);
            EXPECT_EQ(r.res[0].gathered_wire, 0u);
            continue;
        }
        size_t total = 0;
        bool compressed = false;
        for (int p = 0; p < size; ++p) {
            total += bytes_of(p, round);
            compressed |= r.res[p].compressed != 0;
        }
        for (int k = 0; k < size; ++k) {
            EXPECT_EQ(r.res[k].gathered_raw, total) << "round " << round << " rank " << k;
            EXPECT_EQ(r.res[k].gathered_wire, r.res[0].gathered_wire)
                << "round " << round << " rank " << k;
        }
        if (compressed)
            EXPECT_LT(r.res[0].gathered_wire, total) << "round " << round;
        else
            EXPECT_EQ(r.res[0].gathered_wire, total) << "round " << round;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CollAlgoAllgatherv,
    ::testing::Combine(::testing::Values(1, 2, 3, 4, 5, 7, 8, 9), ::testing::Bool(),
                       ::testing::Values(ZIP_ALLGATHERV_RING, ZIP_ALLGATHERV_BRUCK,
                                         ZIP_ALLGATHERV_BRUCK_BLOCKS, ZIP_ALLGATHERV_BRUCK_STEPS)));

// Compress once, forward compressed: every owner of a block at or above the threshold
// compresses it once, in ring segments (ring.hpp; the first segment is the sample, and a block
// whose sample does not shrink is not coded further), nobody else compresses; every frame is
// decoded by each of the other size - 1 ranks, once. Plain blocks go by handle, size - 1 times
// each, and coded ones get a byte view at every rank.
TEST(CollAlgoAllgathervRing, EachBlockCompressedOnceAndDecodedOncePerReceiver)
{
    const int size = 5;
    for (int round = 0; round < 7; ++round) {
        ToyCodec codec;
        const RingRun r = allgatherv(size, round, codec, true);
        EXPECT_EQ(r.mismatches, 0);
        size_t largest = 0;
        for (int p = 0; p < size; ++p)
            if (bytes_of(p, round) >= 1024)
                largest = std::max(largest, bytes_of(p, round));
        const size_t segment = zipcoll::ring_segment_bytes(largest, 1024);
        size_t coded = 0, plain = 0, compressions = 0, frames = 0;
        for (int p = 0; p < size; ++p) {
            const size_t b = bytes_of(p, round);
            if (b == 0)
                continue;
            (b < 1024 ? plain : coded) += 1;
            const size_t segments = (b + segment - 1) / segment;
            if (b >= 1024) {
                compressions += compressible(p, round) ? segments : 1;
                frames += compressible(p, round) ? segments : 0;
            }
        }
        EXPECT_EQ(codec.compressions.load(), compressions) << "round " << round;
        EXPECT_EQ(codec.decodes.load(), frames * (size - 1)) << "round " << round;
        EXPECT_EQ(r.plain_sends, plain * (size - 1)) << "round " << round;
        EXPECT_EQ(r.byte_views, coded * size) << "round " << round;
    }
}

// No slot is reused while its send is in flight (the ring's segments, on the last step
// included; Bruck's set-aside frames, raw blocks and the caller's own block; the store of
// Bruck's steps, whose prefix each step sends): over a rendezvous
// transport, which reads a send's buffer only when its receive meets it, every rank still gets
// every block exactly.
TEST(CollAlgoAllgathervSchedules, RendezvousSendsLeaveEveryBlockExact)
{
    for (int algorithm :
         {ZIP_ALLGATHERV_RING, ZIP_ALLGATHERV_BRUCK_BLOCKS, ZIP_ALLGATHERV_BRUCK_STEPS}) {
        for (int size : {2, 3, 4, 5, 6}) {
            for (int round = 0; round < 7; ++round) {
                ToyCodec codec;
                const RingRun r = allgatherv(size, round, codec, round % 2 == 1, true, algorithm);
                const std::string what = "algorithm " + std::to_string(algorithm) + " size " +
                                         std::to_string(size) + " round " + std::to_string(round);
                EXPECT_EQ(r.mismatches, 0) << what;
                for (int k = 0; k < size; ++k)
                    EXPECT_EQ(r.rc[k], ZIP_ALGO_OK) << what;
            }
        }
    }
}

// Statistics: a rank counts every coded block it sends, its own and the ones it forwards, once
// each; on smooth data what it puts on the wire for them is smaller.
TEST(CollAlgoAllgathervRing, ForwardedFramesCountAtEveryRankThatSendsThem)
{
    const int size = 4, round = 4; // blocks 5000, 0, 1024 (random), 20000
    ToyCodec codec;
    const RingRun r = allgatherv(size, round, codec, false);
    ASSERT_EQ(r.mismatches, 0);
    for (int k = 0; k < size; ++k) {
        size_t sent = 0;
        for (int s = 0; s < size - 1; ++s) { // step s sends block k - s
            const size_t b = bytes_of((k - s + size) % size, round);
            sent += b >= 1024 ? b : 0;
        }
        EXPECT_EQ(r.res[k].bytes_in, sent) << "rank " << k;
        EXPECT_LT(r.res[k].bytes_out, r.res[k].bytes_in) << "rank " << k;
    }
}

// Runs a 4-rank allgatherv of 200000-byte blocks (five 48 KiB segments each), smooth or random,
// typed or not, where rank r's policy has agreed on link_Bps(r); checks that every block
// arrives exactly and returns the number of messages sent.
template <class LinkOf> size_t ring_messages(bool typed, bool smooth, LinkOf link_Bps)
{
    const size_t bytes = 200000;
    const int size = 4;
    World w(size, algotest::WorldOptions{.typed = typed});
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    std::vector<int> rc(size, -100);
    std::vector<std::vector<std::vector<char>>> got(size);
    auto data = [&](int owner) { return algotest::make_data(bytes, smooth, uint64_t(owner + 1)); };
    w.run([&](int rank, const zip_transport_t &t) {
        auto mine = data(rank);
        got[rank].assign(size, std::vector<char>(bytes, '\x33'));
        std::vector<algotest::Typed> handles(size + 1);
        std::vector<zip_block_t> rb(size);
        for (int p = 0; p < size; ++p)
            if (p != rank)
                rb[p] = block_of(handles[p], got[rank][p].data(), bytes, typed);
        const zip_block_t sb = block_of(handles[size], mine.data(), bytes, typed);
        zip_algo_policy_t policy{};
        policy.mode = ZIP_POLICY_ALWAYS;
        policy.speeds.link_Bps = link_Bps(rank);
        zip_exchange_args_t a = ring_args(&sb, rb.data());
        a.policy = &policy;
        zip_algo_result_t res{};
        rc[rank] = zip_algo_allgatherv(&t, &ops, &a, &res);
    });
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(rc[r], ZIP_ALGO_OK) << "rank " << r;
        for (int p = 0; p < size; ++p) {
            if (p != r) {
                EXPECT_TRUE(got[r][p] == data(p)) << "rank " << r << " block " << p;
            }
        }
    }
    EXPECT_EQ(w.unreceived(), 0u);
    return w.messages.load();
}

constexpr size_t kRingHops = 4 * 3; // 4 ranks: each block crosses 3 links

// On a fast link a block whose owner finds that compressing it does not pay crosses each hop as
// one raw message, not as segments (which cost an uncompressed ring 1.1-1.25x at 10 Gbit/s); a
// compressible one still streams in segments.
TEST(CollAlgoAllgathervRing, OnAFastLinkIncompressibleBlocksCrossEachHopAsOneMessage)
{
    for (bool typed : {false, true}) {
        EXPECT_EQ(ring_messages(typed, false, [](int) { return 1.25e9; }), kRingHops)
            << "typed " << typed;
        EXPECT_EQ(ring_messages(typed, true, [](int) { return 1.25e9; }), kRingHops * 5)
            << "typed " << typed;
    }
}

// On a slow link (and where the link is unknown) raw blocks stream in segments too: there a
// whole block's store and forward per hop costs more than the extra messages.
TEST(CollAlgoAllgathervRing, OnASlowLinkIncompressibleBlocksStillStreamInSegments)
{
    for (bool typed : {false, true}) {
        EXPECT_EQ(ring_messages(typed, false, [](int) { return 1.25e8; }), kRingHops * 5)
            << "typed " << typed;
        EXPECT_EQ(ring_messages(typed, false, [](int) { return 0.0; }), kRingHops * 5)
            << "typed " << typed;
    }
}

// The choice is the owner's: ranks whose link estimates differ still receive every block
// exactly, each block travelling the way its owner chose on every hop.
TEST(CollAlgoAllgathervRing, RanksThatDisagreeOnTheLinkStillAgreeOnTheData)
{
    for (bool typed : {false, true}) {
        // Ranks 0 and 2 send whole (1 message a hop), 1 and 3 in five segments.
        EXPECT_EQ(ring_messages(typed, false, [](int r) { return r % 2 == 0 ? 1.25e9 : 1.25e8; }),
                  2 * 3 + 2 * 3 * 5)
            << "typed " << typed;
    }
}

// A frame that does not decode is an error at every receiver, and the ring still completes
// (nobody waits forever, no message is left behind).
TEST(CollAlgoAllgathervRing, CorruptFramesAreReportedAndTheRingCompletes)
{
    ToyCodec codec;
    codec.fail_decode = true;
    const RingRun r = allgatherv(4, 5, codec, false);
    for (int k = 0; k < 4; ++k)
        EXPECT_EQ(r.rc[k], ZIP_ALGO_ERR_CODEC) << "rank " << k;
}

namespace
{

// The blocks of one round on `size` ranks: non-empty, plain (below the threshold), coded (at
// or above it) and coded ones that shrink (frames).
struct RoundBlocks {
    size_t nonempty = 0, plain = 0, coded = 0, frames = 0;
};

RoundBlocks blocks_of(int size, int round)
{
    RoundBlocks n;
    for (int p = 0; p < size; ++p) {
        const size_t b = bytes_of(p, round);
        n.nonempty += b != 0 ? 1 : 0;
        n.plain += b != 0 && b < 1024 ? 1 : 0;
        n.coded += b >= 1024 ? 1 : 0;
        n.frames += b >= 1024 && compressible(p, round) ? 1 : 0;
    }
    return n;
}

} // namespace

// Bruck compresses once, forwards compressed: each owner compresses its block once (one sample,
// the whole block, no segments), nobody else compresses, every frame is decoded once by each of
// the other ranks, and every block crosses size - 1 hops as one message each.
TEST(CollAlgoAllgathervBruck, EachBlockCompressedOnceAndDecodedOncePerReceiver)
{
    for (int size : {3, 5, 8}) {
        for (int round = 0; round < 7; ++round) {
            ToyCodec codec;
            const RingRun r =
                allgatherv(size, round, codec, true, false, ZIP_ALLGATHERV_BRUCK_BLOCKS);
            EXPECT_EQ(r.mismatches, 0);
            const RoundBlocks n = blocks_of(size, round);
            const std::string what =
                "size " + std::to_string(size) + " round " + std::to_string(round);
            EXPECT_EQ(codec.compressions.load(), n.coded) << what;
            EXPECT_EQ(codec.decodes.load(), n.frames * (size - 1)) << what;
            EXPECT_EQ(r.plain_sends, n.plain * (size - 1)) << what;
            EXPECT_EQ(r.byte_views, n.coded * size) << what;
            EXPECT_EQ(r.messages, n.nonempty * (size - 1)) << what;
        }
    }
}

// Statistics: a rank counts every coded block it sends, its own and the ones it forwards, once
// per send; on smooth data what it puts on the wire for them is smaller.
TEST(CollAlgoAllgathervBruck, ForwardedFramesCountAtEveryRankThatSendsThem)
{
    const int size = 4, round = 4; // blocks 5000, 0, 1024 (random), 20000
    ToyCodec codec;
    for (int algorithm : {ZIP_ALLGATHERV_BRUCK_BLOCKS, ZIP_ALLGATHERV_BRUCK_STEPS}) {
        const RingRun r = allgatherv(size, round, codec, false, false, algorithm);
        ASSERT_EQ(r.mismatches, 0);
        for (int k = 0; k < size; ++k) {
            size_t sent = 0;
            bool smooth = false;
            // Distance 1 sends the own block, distance 2 the own block and the next one.
            for (int b : {k, k, (k + 1) % size}) {
                const size_t n = bytes_of(b, round);
                sent += n >= 1024 ? n : 0;
                smooth = smooth || (n >= 1024 && compressible(b, round));
            }
            EXPECT_EQ(r.res[k].bytes_in, sent) << "rank " << k;
            if (smooth)
                EXPECT_LT(r.res[k].bytes_out, r.res[k].bytes_in) << "rank " << k;
            else
                EXPECT_EQ(r.res[k].bytes_out, r.res[k].bytes_in) << "rank " << k;
        }
    }
}

// A frame that does not decode is an error at every receiver, and every step still runs.
TEST(CollAlgoAllgathervBruck, CorruptFramesAreReportedAndEveryStepCompletes)
{
    for (int algorithm : {ZIP_ALLGATHERV_BRUCK_BLOCKS, ZIP_ALLGATHERV_BRUCK_STEPS}) {
        ToyCodec codec;
        codec.fail_decode = true;
        const RingRun r = allgatherv(5, 5, codec, false, false, algorithm);
        for (int k = 0; k < 5; ++k)
            EXPECT_EQ(r.rc[k], ZIP_ALGO_ERR_CODEC) << "algorithm " << algorithm << " rank " << k;
    }
}

namespace
{

// The messages rank `own` sends in Bruck's steps (bruck_steps.hpp) for blocks of bytes(p):
// per step whose blocks are not all empty, the lengths and a message per chunk of K offsets
// that holds any bytes (one, chunk 0's prefix, where the step sends at most K offsets).
template <class Bytes> size_t steps_messages(int size, int own, Bytes bytes)
{
    size_t largest = 0;
    for (int p = 0; p < size; ++p)
        largest = std::max(largest, bytes(p));
    int k = 1;
    while (k < size && size_t(2 * k) * largest <= zipcoll::kStepsChunkBytes)
        k *= 2;
    auto raw = [&](int first, int count) {
        size_t n = 0;
        for (int j = first; j < first + count; ++j)
            n += bytes((own + j) % size);
        return n;
    };
    size_t messages = 0;
    for (int d = 1; d < size; d <<= 1) {
        const int n = std::min(d, size - d);
        if (raw(0, n) == 0)
            continue;
        messages += 1;
        if (n <= k) {
            messages += 1;
            continue;
        }
        for (int j = 0; j < n; j += k)
            messages += raw(j, std::min(k, n - j)) != 0 ? 1 : 0;
    }
    return messages;
}

} // namespace

// Bruck's steps: the same compress-once, decode-once-per-receiver, but every block, plain ones
// included, travels through the store in its byte view, and a step is its lengths and a message
// per chunk of offsets, not one per block.
TEST(CollAlgoAllgathervBruckSteps, EachBlockCompressedOnceAndEachStepIsAFewMessages)
{
    for (int size : {3, 5, 8}) {
        for (int round = 0; round < 7; ++round) {
            ToyCodec codec;
            const RingRun r =
                allgatherv(size, round, codec, true, false, ZIP_ALLGATHERV_BRUCK_STEPS);
            EXPECT_EQ(r.mismatches, 0);
            const RoundBlocks n = blocks_of(size, round);
            size_t messages = 0;
            for (int p = 0; p < size; ++p)
                messages += steps_messages(size, p, [&](int q) { return bytes_of(q, round); });
            const std::string what =
                "size " + std::to_string(size) + " round " + std::to_string(round);
            EXPECT_EQ(codec.compressions.load(), n.coded) << what;
            EXPECT_EQ(codec.decodes.load(), n.frames * (size - 1)) << what;
            EXPECT_EQ(r.plain_sends, 0u) << what;
            EXPECT_EQ(r.byte_views, n.nonempty * size) << what;
            EXPECT_EQ(r.messages, messages) << what;
        }
    }
}

// Runs an allgatherv of `bytes` per rank with ZIP_ALLGATHERV_BRUCK on `size` ranks over a
// transport whose longest byte message is max_message; checks every block and returns the
// messages sent.
size_t bruck_messages(size_t bytes, size_t max_message, int size = 3)
{
    World w(size, algotest::WorldOptions{.max_message = max_message});
    ToyCodec codec;
    const zip_codec_ops_t ops = codec.ops();
    std::vector<std::vector<std::vector<char>>> got(size);
    auto data = [&](int owner) { return algotest::make_data(bytes, true, uint64_t(owner + 7)); };
    std::vector<int> rc(size, -100);
    w.run([&](int rank, const zip_transport_t &t) {
        auto mine = data(rank);
        got[rank].assign(size, std::vector<char>(bytes, '\x33'));
        std::vector<zip_block_t> rb(size);
        for (int p = 0; p < size; ++p)
            if (p != rank)
                rb[p] = zip_block_t{got[rank][p].data(), bytes, nullptr};
        const zip_block_t sb{mine.data(), bytes, nullptr};
        const zip_exchange_args_t a = ring_args(&sb, rb.data(), ZIP_ALLGATHERV_BRUCK);
        zip_algo_result_t res{};
        rc[rank] = zip_algo_allgatherv(&t, &ops, &a, &res);
    });
    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(rc[r], ZIP_ALGO_OK) << "rank " << r;
        for (int p = 0; p < size; ++p) {
            if (p != r) {
                EXPECT_TRUE(got[r][p] == data(p)) << "rank " << r << " block " << p;
            }
        }
    }
    return w.messages.load();
}

// ZIP_ALLGATHERV_BRUCK sends a step's lengths and wires (2 steps x 2 x 3 ranks) where no block is
// above 512 KiB and its messages (a block, or a chunk of up to 128 KiB) fit the transport's
// longest one, else a message per block (each rank sends its own block, then one more: 2 x 3).
TEST(CollAlgoAllgathervBruck, SmallBlocksGoAMessagePerStepLargeOnesAMessagePerBlock)
{
    EXPECT_EQ(bruck_messages(zipcoll::kBruckStepsLargest, 0), 12u);
    EXPECT_EQ(bruck_messages(zipcoll::kBruckStepsLargest + 8, 0), 6u);
    EXPECT_EQ(bruck_messages(100000, 120000), 6u); // a chunk may be 128 KiB: too long
    EXPECT_EQ(bruck_messages(100000, zipcoll::kStepsChunkBytes), 12u);
}

// Chunks of K offsets, K blocks within 128 KiB: 16 blocks of 16 KiB (K 8) go two messages a
// step at every step (the last sends 8 offsets, one chunk); of 64 KiB (K 2) the steps of distance
// 4 and 8 send 2 and 4 chunks after the lengths: 2 + 2 + 3 + 5 a rank, where a message per block
// is 15.
TEST(CollAlgoAllgathervBruckSteps, AStepSendsAMessagePerChunkOfOffsets)
{
    EXPECT_EQ(bruck_messages(16 << 10, 0, 16), 16u * 4 * 2);
    EXPECT_EQ(bruck_messages(64 << 10, 0, 16), 16u * 12);
    EXPECT_EQ(steps_messages(16, 0, [](int) { return size_t(64) << 10; }), 12u);
}

namespace
{

constexpr double kGbit = 1e9 / 8.0, kLatency = 20e-6;

// n blocks of `bytes`, odd ranks' `bytes` + `skew` and even ranks' `bytes` - `skew` (gatherv's
// and simscale's uneven contribution).
std::vector<size_t> alternating(int n, size_t bytes, size_t skew)
{
    std::vector<size_t> out(size_t(n), 0);
    for (int p = 0; p < n; ++p)
        out[size_t(p)] = p % 2 == 1 ? bytes + skew : bytes - skew;
    return out;
}

size_t bytes_at(const void *blocks, int p)
{
    return (*static_cast<const std::vector<size_t> *>(blocks))[size_t(p)];
}

// The schedule for blocks b, ranks agreed to run per_node to a node and per_core to a core,
// the last call having achieved `ratio` (0: none seen); a blocking call `records` its own.
int choose(const std::vector<size_t> &b, double link_Bps, int pairs = 0, int per_node = 1,
           double per_core = 1.0, double ratio = 0.0, int records = 0)
{
    zip_algo_agreed_t agreed{};
    agreed.ranks_per_node = per_node;
    agreed.ranks_per_core = per_core;
    return zip_algo_allgatherv_choose(bytes_at, &b, int(b.size()), &agreed, link_Bps, kLatency,
                                      pairs, ratio, records);
}

} // namespace

// Where the ring's latencies are small next to its wire time, the ring, whose segments overlap
// the codec with the wire; also with blocks of unequal sizes, where the model has Bruck 10 %
// ahead but netemu measured the ring ahead; also where the link is unknown.
TEST(AllgathervChoice, FewRanksKeepTheRing)
{
    const size_t MiB = 1 << 20;
    EXPECT_EQ(choose(alternating(8, MiB, 0), 1 * kGbit), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(5, MiB, 0), 1 * kGbit), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(8, MiB, MiB / 8), 1 * kGbit), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(6, MiB, MiB / 8), 1 * kGbit), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(2, MiB, MiB / 8), 1 * kGbit), ZIP_ALLGATHERV_RING); // one step
    EXPECT_EQ(choose(alternating(64, 64 << 10, 0), 0.0), ZIP_ALLGATHERV_RING);       // link unknown
}

// Many ranks where the ring pays more than 1/32 of its wire time in latencies: Bruck's log2 p
// latencies instead of handing the call on, even where Bruck saves only a few per cent; blocks
// of up to 512 KiB go a few messages per step, as tuned's steps go one; but not larger blocks
// beside blocks whose wire time is below 8 latencies (650 KiB beside 150 KiB at 10 Gbit/s,
// 123 us), where each of Bruck's messages per block costs about what it carries.
TEST(AllgathervChoice, ManyRanksOnAFastLinkTakeBruckInsteadOfHandingOn)
{
    const size_t KiB = 1 << 10;
    EXPECT_EQ(choose(alternating(64, 256 * KiB, 0), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 64 * KiB, 0), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 4 * KiB, 0), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 200 * KiB, 100 * KiB), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 400 * KiB, 250 * KiB), 10 * kGbit), ZIP_ALLGATHERV_HAND_ON);
    // 16 equal blocks of 512 KiB at 10 Gbit/s: Bruck saves 11 of the ring's 15 latencies, 3 %
    // of its time.
    EXPECT_EQ(choose(alternating(16, 512 * KiB, 0), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 1024 * KiB, 0), 1 * kGbit), ZIP_ALLGATHERV_RING);
}

// An owner codes its block's sample (up to 64 KiB) before Bruck's first step, which data that do
// not compress never repay: handed on where that is more than 3 % of the schedule's time (16 ranks
// at 25 Gbit/s and 2 us, 16 or 64 KiB blocks, codec 4.6 GB/s: 4 %; simulated, random data took
// 0.935 / 0.952x of tuned's recursive doubling on Bruck's steps), Bruck where it is less (64
// ranks: 1 %; 16 ranks at 10 Gbit/s).
TEST(AllgathervChoice, BruckOnlyWhereTheOwnersSampleIsSmallNextToTheSchedule)
{
    const size_t KiB = 1 << 10;
    auto pick = [](const std::vector<size_t> &b, double link_Bps) {
        zip_algo_agreed_t agreed{};
        agreed.ranks_per_node = 1;
        agreed.ranks_per_core = 1.0;
        agreed.compress_Bps = 4.6e9;
        return zip_algo_allgatherv_choose(bytes_at, &b, int(b.size()), &agreed, link_Bps, 2e-6, 0,
                                          0.0, 0);
    };
    EXPECT_EQ(pick(alternating(16, 16 * KiB, 0), 25 * kGbit), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(pick(alternating(16, 64 * KiB, 0), 25 * kGbit), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(pick(alternating(64, 16 * KiB, 0), 25 * kGbit), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(pick(alternating(16, 16 * KiB, 0), 10 * kGbit), ZIP_ALLGATHERV_BRUCK);
}

// Where ranks share cores (or nothing was agreed: policy always) the call is handed on instead:
// netemu, 6 ranks on 2 cores at 10 Gbit/s, Bruck took 0.7-0.95x of tuned's time.
TEST(AllgathervChoice, RanksSharingCoresHandTheCallOn)
{
    const auto blocks = alternating(16, 512 << 10, 0);
    EXPECT_EQ(choose(blocks, 10 * kGbit, 0, 1, 3.0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(blocks, 10 * kGbit, 0, 1, 0.0), ZIP_ALLGATHERV_BRUCK); // unknown: a core each
    EXPECT_EQ(
        zip_algo_allgatherv_choose(bytes_at, &blocks, 16, nullptr, 10 * kGbit, kLatency, 0, 0.0, 0),
        ZIP_ALLGATHERV_HAND_ON);
}

// Over the TCP BTL the two directions of an exchange between two ranks take turns: on a power
// of two of ranks Bruck's last step, half the data, is such an exchange and counts twice, and
// the ring is faster (as tuned's ring is than its recursive doubling there); on 6 ranks no step
// is one.
TEST(AllgathervChoice, WherePairsSerialiseBrucksExchangeStepCountsTwice)
{
    const size_t KiB = 1 << 10;
    const auto eight = alternating(8, 256 * KiB, 32 * KiB);
    EXPECT_EQ(choose(eight, 10 * kGbit, 0), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(eight, 10 * kGbit, 1), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(6, 256 * KiB, 32 * KiB), 10 * kGbit, 1), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(choose(alternating(64, 256 * KiB, 0), 10 * kGbit, 1), ZIP_ALLGATHERV_RING);
}

// Nodes of 32 ranks behind one link, placed by node: from distance 32 on every one of a node's
// ranks sends its blocks through that link at once (32 times a rank's bytes), where the ring
// passes each block through each node once: the ring, also where its latencies are many.
// Simulated (simscale, 256 ranks in nodes of 32, 1 MiB blocks of gauss at 10 Gbit/s): Bruck
// 0.055x of tuned's best, the ring 1.43x.
TEST(AllgathervChoice, ManyRanksPerNodeTakeTheRing)
{
    const size_t MiB = 1 << 20;
    EXPECT_EQ(choose(alternating(256, MiB, MiB / 8), 25 * kGbit, 0, 32), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(256, MiB, 0), 10 * kGbit, 0, 32), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(256, MiB, MiB / 8), 25 * kGbit, 0, 1), ZIP_ALLGATHERV_BRUCK);
}

// tuned's neighbor exchange (even sizes) pays half the ring's latencies, a quarter where ranks
// share nodes: where zip's faster schedule is predicted more than 8 % slower raw, the call is
// handed on (simscale, 256 ranks in nodes of 32 at 10 Gbit/s, 16 KiB blocks: zip's ring 0.52x on
// gauss, 0.49x on random data); with 1 MiB blocks the ring stays (1.43x), and an odd number of
// ranks has no neighbor exchange.
TEST(AllgathervChoice, WhereTheNeighborExchangeIsFasterRawTheCallIsHandedOn)
{
    const size_t KiB = 1 << 10;
    EXPECT_EQ(choose(alternating(256, 16 * KiB, 0), 10 * kGbit, 0, 32), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(alternating(256, 64 * KiB, 0), 10 * kGbit, 0, 32), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(alternating(256, 1024 * KiB, 0), 10 * kGbit, 0, 32), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(alternating(255, 16 * KiB, 0), 10 * kGbit, 0, 32), ZIP_ALLGATHERV_RING);
}

// With the ratio the last call achieved: data that did not shrink (1.0) hand on where tuned's
// schedules are as fast as zip's or faster (blocks of unequal sizes hold each of the ring's
// steps up; simscale, 8 ranks at 1 Gbit/s, 1 MiB -/+ 1/8 of random data: zip's ring 0.89x of
// tuned's recursive doubling), while data that did keep zip's ring; ranks sharing cores too
// (netemu), where the ring suits.
TEST(AllgathervChoice, WithARatioSeenDataThatDidNotShrinkAreHandedOn)
{
    const size_t MiB = 1 << 20;
    const auto unequal = alternating(8, MiB, MiB / 8), equal = alternating(8, MiB, 0);
    EXPECT_EQ(choose(unequal, 1 * kGbit, 0, 1, 1.0, 0.0), ZIP_ALLGATHERV_RING); // none seen
    EXPECT_EQ(choose(unequal, 1 * kGbit, 0, 1, 1.0, 1.0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(unequal, 1 * kGbit, 0, 1, 1.0, 1.05), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(unequal, 1 * kGbit, 0, 1, 1.0, 1.5), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(equal, 1 * kGbit, 0, 1, 1.0, 1.0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(equal, 1 * kGbit, 0, 1, 1.0, 1.1), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(equal, 1 * kGbit, 0, 1, 4.0, 1.5), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(equal, 1 * kGbit, 0, 1, 4.0, 1.0), ZIP_ALLGATHERV_HAND_ON);
}

// Where tuned's neighbor exchange beats zip's schedules raw, the rule without a ratio hands on
// (test above); with one, data that shrank enough take zip's ring compressed (256 ranks in nodes
// of 32, 16 KiB blocks at 1 Gbit/s: the ring's 255 steps of 151 us raw against the neighbor
// exchange's 64 of 544 us), and data that did not stay handed on. At 10 Gbit/s the ring's
// latencies alone take longer than the neighbor exchange: handed on whatever the ratio.
TEST(AllgathervChoice, WithARatioSeenShrunkBlocksBeatTheNeighborExchange)
{
    const auto blocks = alternating(256, 16 << 10, 0);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 0.0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 1.0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 2.0), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(blocks, 10 * kGbit, 0, 32, 1.0, 2.0), ZIP_ALLGATHERV_HAND_ON);
}

// A blocking call records its ratio: without one, where a ratio of 1.5 would win, it takes zip's
// path to see (and loses once where the data do not shrink); a non-blocking one, which never
// records, stays handed on, as does a call where no ratio of 1.5 would win.
TEST(AllgathervChoice, WithoutARatioABlockingCallGoesToSeeWhereARatioWouldWin)
{
    const auto blocks = alternating(256, 16 << 10, 0);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 0.0, 1), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 0.0, 0), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(blocks, 10 * kGbit, 0, 32, 1.0, 0.0, 1), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(choose(blocks, 1 * kGbit, 0, 32, 1.0, 1.0, 1), ZIP_ALLGATHERV_HAND_ON); // seen
}

// Compressed blocks still have to be decoded: where every rank decoding every block at the
// agreed speed takes longer than tuned moves them raw, the ratio does not help; and a ratio
// weighs only where speeds were agreed and the link is known.
TEST(AllgathervChoice, WithARatioSeenDecodingAndUnknownsStillCount)
{
    const auto blocks = alternating(8, 1 << 20, 0);
    auto pick = [&](double link_Bps, double decompress_Bps, double ratio, bool agreed_speeds) {
        zip_algo_agreed_t agreed{};
        agreed.ranks_per_node = 1;
        agreed.ranks_per_core = 1.0;
        agreed.decompress_Bps = decompress_Bps;
        return zip_algo_allgatherv_choose(bytes_at, &blocks, 8, agreed_speeds ? &agreed : nullptr,
                                          link_Bps, kLatency, 0, ratio, 0);
    };
    // 8 MiB decoded at 2 GB/s: 4.2 ms; tuned's ring moves 7 MiB at 10 Gbit/s in 5.9 ms, at
    // 25 Gbit/s in 2.3.
    EXPECT_EQ(pick(10 * kGbit, 2e9, 3.0, true), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(pick(25 * kGbit, 2e9, 3.0, true), ZIP_ALLGATHERV_HAND_ON);
    EXPECT_NE(pick(25 * kGbit, 0.0, 3.0, true), ZIP_ALLGATHERV_HAND_ON); // speed unknown
    EXPECT_EQ(pick(1 * kGbit, 2e9, 1.0, false), ZIP_ALLGATHERV_RING);    // no speeds: no ratio
    EXPECT_EQ(pick(0.0, 2e9, 1.0, true), ZIP_ALLGATHERV_RING);           // link unknown
}

// A ratio so high that each of the ring's steps carries little wire leaves the ring its
// latencies, messages (a block goes as four segments) and its segments' decoding on each step:
// Bruck's few steps (simscale, 64 ranks, one per node, at 100 Gbit/s, LULESH's 64 KiB
// blocks at ratio 65 decoded at 21.8 GB/s, a microsecond per message: the ring 836 us, Bruck 339,
// tuned's recursive doubling 357). At the calibration field's speeds, every rank decoding 4 MiB
// takes longer than tuned moves them: handed on.
TEST(AllgathervChoice, WithAHighRatioSeenTheRingsStepsCostMoreThanBrucks)
{
    const auto blocks = alternating(64, 64 << 10, 0);
    auto pick = [&](double compress_Bps, double decompress_Bps, double ratio) {
        zip_algo_agreed_t agreed{};
        agreed.ranks_per_node = 1;
        agreed.ranks_per_core = 1.0;
        agreed.compress_Bps = compress_Bps;
        agreed.decompress_Bps = decompress_Bps;
        return zip_algo_allgatherv_choose(bytes_at, &blocks, 64, &agreed, 100 * kGbit, 2e-6, 0,
                                          ratio, 0);
    };
    EXPECT_EQ(pick(16.9e9, 21.8e9, 32.0), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(pick(4.6e9, 7.8e9, 32.0), ZIP_ALLGATHERV_HAND_ON);
}

// Where the wire is long, Bruck's messages hide behind it as its decoding does: a ratio of 1.13
// at 25 Gbit/s keeps Bruck ahead of tuned's recursive doubling (simscale, 64 ranks one per
// node, CoMD's 64 KiB blocks, 69 messages a rank at a microsecond each: 1222 us against 1350),
// where counting them on top of the wire handed the call on.
TEST(AllgathervChoice, BrucksMessagesHideBehindALongWire)
{
    const auto blocks = alternating(64, 64 << 10, 4 << 10);
    zip_algo_agreed_t agreed{};
    agreed.ranks_per_node = 1;
    agreed.ranks_per_core = 1.0;
    agreed.compress_Bps = 10.1e9;
    agreed.decompress_Bps = 15.7e9;
    EXPECT_EQ(
        zip_algo_allgatherv_choose(bytes_at, &blocks, 64, &agreed, 25 * kGbit, 2e-6, 0, 1.13, 0),
        ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(
        zip_algo_allgatherv_choose(bytes_at, &blocks, 64, &agreed, 25 * kGbit, 2e-6, 0, 1.0, 0),
        ZIP_ALLGATHERV_HAND_ON);
}

// What a communicator's blocking allgather(v) calls moved: a ratio recorded (half the last
// call, half the ones before, so that alternating fields keep one between theirs), forgotten
// after ZIP_ALGO_SEEN_RECHECK calls handed on, so that data that start to shrink are seen again.
TEST(AllgatherSeen, ARatioIsAveragedAndForgottenAfterCallsHandedOn)
{
    zip_algo_seen_t seen{};
    EXPECT_EQ(zip_algo_seen_ratio(&seen), 0.0);
    zip_algo_seen_chosen(&seen, ZIP_ALLGATHERV_HAND_ON); // none known: nothing counts
    EXPECT_EQ(seen.handed_on, 0);
    zip_algo_result_t res{};
    res.gathered_raw = 3000;
    res.gathered_wire = 2000;
    zip_algo_seen_record(&seen, &res);
    EXPECT_DOUBLE_EQ(zip_algo_seen_ratio(&seen), 1.5);
    res.gathered_wire = 3000; // a call whose data did not shrink
    zip_algo_seen_record(&seen, &res);
    EXPECT_DOUBLE_EQ(zip_algo_seen_ratio(&seen), 1.25);
    for (int k = 0; k < ZIP_ALGO_SEEN_RECHECK - 1; ++k) {
        zip_algo_seen_chosen(&seen, ZIP_ALLGATHERV_HAND_ON);
        zip_algo_seen_chosen(&seen, ZIP_ALLGATHERV_RING); // taken (non-blocking: not recorded)
    }
    EXPECT_DOUBLE_EQ(zip_algo_seen_ratio(&seen), 1.25);
    zip_algo_seen_chosen(&seen, ZIP_ALLGATHERV_HAND_ON);
    EXPECT_EQ(zip_algo_seen_ratio(&seen), 0.0);
    // A record starts the count afresh; a call that moved nothing records nothing.
    zip_algo_seen_record(&seen, &res);
    zip_algo_seen_chosen(&seen, ZIP_ALLGATHERV_HAND_ON);
    zip_algo_seen_record(&seen, &res);
    EXPECT_EQ(seen.handed_on, 0);
    EXPECT_DOUBLE_EQ(zip_algo_seen_ratio(&seen), 1.0);
    res.gathered_wire = 0;
    zip_algo_seen_record(&seen, &res);
    EXPECT_DOUBLE_EQ(zip_algo_seen_ratio(&seen), 1.0);
}

// Over the TCP BTL (pairs serialise) zip's ring of segments, raw, was measured ahead of tuned's
// best schedules (netemu): there no ratio hands a call on.
TEST(AllgathervChoice, OverTheTcpBtlTheRatioIsNotWeighed)
{
    const size_t MiB = 1 << 20;
    const auto unequal = alternating(8, MiB, MiB / 8);
    EXPECT_EQ(choose(unequal, 1 * kGbit, 1, 1, 1.0, 1.0), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(choose(unequal, 1 * kGbit, 0, 1, 1.0, 1.0), ZIP_ALLGATHERV_HAND_ON);
}

TEST(AllgathervChoice, NamesParse)
{
    EXPECT_EQ(zip_allgatherv_algorithm_parse(nullptr), ZIP_ALLGATHERV_AUTO);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("auto"), ZIP_ALLGATHERV_AUTO);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("ring"), ZIP_ALLGATHERV_RING);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("bruck"), ZIP_ALLGATHERV_BRUCK);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("bruck_blocks"), ZIP_ALLGATHERV_BRUCK_BLOCKS);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("bruck_steps"), ZIP_ALLGATHERV_BRUCK_STEPS);
    EXPECT_EQ(zip_allgatherv_algorithm_parse("recursive_doubling"), -1);
}
