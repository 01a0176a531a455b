// The compressed alltoallv on the in-process transport: uneven and zero blocks around the
// threshold, compressible and random data, the split into plain and compressed blocks, and the
// error paths (corrupt frame, plain block of the wrong length).
#include <gtest/gtest.h>

#include <initializer_list>

#include "test_coll_algo_support.hpp"
#include "exchange.hpp"
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
    size_t plain_sends = 0, plain_recvs = 0, byte_views = 0; // over all ranks
};

struct Options {
    size_t threshold = 1024;
    size_t window = 2;
    std::vector<const zip_algo_policy_t *> policies; // per rank, if given (nullptr: always)
    bool typed = false;            // blocks by handle, over a transport with the typed operations
    size_t max_message = 0;        // the transport's
    const bool *on_node = nullptr; // size x size: on_node[rank * size + peer], if given
};

ExchangeRun alltoallv(int size, int round, ToyCodec &codec, const Options &o)
{
    World w(size, o.typed, o.max_message);
    ExchangeRun out;
    out.rc.assign(size, -100);
    out.res.resize(size);
    std::vector<std::vector<std::vector<char>>> recv(size, std::vector<std::vector<char>>(size));
    const zip_codec_ops_t ops = codec.ops();
    w.run([&](int rank, const zip_transport_t &t) {
        std::vector<std::vector<char>> send(size);
        std::vector<zip_block_t> sb(size), rb(size);
        std::vector<algotest::Typed> st(size), rt(size);
        for (int p = 0; p < size; ++p) {
            if (p == rank)
                continue;
            send[p] = block_data(rank, p, round, block_bytes(rank, p, round));
            recv[rank][p].assign(block_bytes(p, rank, round), '\x11');
            st[p] = {send[p].data(), send[p].size()};
            rt[p] = {recv[rank][p].data(), recv[rank][p].size()};
            sb[p] = o.typed ? zip_block_t{nullptr, st[p].bytes, &st[p]}
                            : zip_block_t{st[p].data, st[p].bytes, nullptr};
            rb[p] = o.typed ? zip_block_t{nullptr, rt[p].bytes, &rt[p]}
                            : zip_block_t{rt[p].data, rt[p].bytes, nullptr};
        }
        zip_exchange_args_t a{};
        a.send = sb.data();
        a.recv = rb.data();
        a.tag = 3;
        a.elem_type = ZIP_ALGO_BYTES;
        a.try_compress = 1;
        a.threshold = o.threshold;
        a.window = o.window;
        a.policy = o.policies.empty() ? nullptr : o.policies[size_t(rank)];
        a.peer_on_node = o.on_node ? o.on_node + rank * size : nullptr;
        out.rc[rank] = zip_algo_alltoallv(&t, &ops, &a, &out.res[rank]);
    });
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p)
            if (p != r && recv[r][p] != block_data(p, r, round, block_bytes(p, r, round)))
                ++out.mismatches;
    EXPECT_EQ(w.unreceived(), 0u);
    out.plain_sends = w.plain_sends;
    out.plain_recvs = w.plain_recvs;
    out.byte_views = w.byte_views;
    return out;
}

ExchangeRun alltoallv(int size, int round, size_t threshold, size_t window, ToyCodec &codec,
                      const std::vector<const zip_algo_policy_t *> &policies = {})
{
    Options o;
    o.threshold = threshold;
    o.window = window;
    o.policies = policies;
    return alltoallv(size, round, codec, o);
}

// Blocks of one round that are not empty and not the rank's own.
size_t blocks_of_round(int size, int round, bool (*which)(size_t))
{
    size_t n = 0;
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p)
            n += p != r && block_bytes(r, p, round) > 0 && which(block_bytes(r, p, round));
    return n;
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

// Statistics (docs/user-guide.md): every block a rank sends in zip's path (at or above the
// threshold) counts in bytes_in, raw or compressed; bytes_out is what went on the wire for them,
// so it equals bytes_in when nothing was compressed. Plain blocks count in neither, and a rank
// whose blocks were all plain says so.
TEST(CollAlgoAlltoallvStats, EveryCodedBlockCountsInBytesIn)
{
    const int size = 4;
    for (const size_t threshold : {size_t(0), size_t(1024), size_t(1) << 30}) {
        for (int round = 0; round < 3; ++round) {
            ToyCodec codec;
            const ExchangeRun r = alltoallv(size, round, threshold, 2, codec);
            for (int k = 0; k < size; ++k) {
                size_t sent = 0;
                bool any_coded = false;
                for (int p = 0; p < size; ++p) {
                    if (p == k)
                        continue;
                    const size_t out = block_bytes(k, p, round), in = block_bytes(p, k, round);
                    if (out >= threshold && out > 1)
                        sent += out;
                    any_coded |= (out >= threshold && out > 1) || (in >= threshold && in > 1);
                }
                EXPECT_EQ(r.res[k].bytes_in, sent) << "threshold " << threshold;
                EXPECT_EQ(r.res[k].all_plain, any_coded ? 0 : 1) << "threshold " << threshold;
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
    const zip_algo_policy_t slow{ZIP_POLICY_AUTO, {2e9, 3e9, 0.1e9, 0}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t fast{ZIP_POLICY_AUTO, {2e9, 3e9, 20e9, 0}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t never{ZIP_POLICY_NEVER, {0, 0, 0, 0}, ZIP_TRANSFER_PIPELINED};
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
    const zip_algo_policy_t pipelined{
        ZIP_POLICY_AUTO, {2e9, 3e9, 1.2e9, 0}, ZIP_TRANSFER_PIPELINED};
    const zip_algo_policy_t one_shot{ZIP_POLICY_AUTO, {2e9, 3e9, 1.2e9, 0}, ZIP_TRANSFER_ONE_SHOT};
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

namespace
{

bool any_size(size_t)
{
    return true;
}
bool below_1024(size_t bytes)
{
    return bytes < 1024;
}
bool at_least_1024(size_t bytes)
{
    return bytes >= 1024;
}

// A run with blocks by handle that must succeed: every block exact, every rank OK.
ExchangeRun typed_run(int size, int round, ToyCodec &codec, Options o)
{
    o.typed = true;
    const ExchangeRun r = alltoallv(size, round, codec, o);
    EXPECT_EQ(r.mismatches, 0) << "round " << round;
    for (int k = 0; k < size; ++k)
        EXPECT_EQ(r.rc[k], ZIP_ALGO_OK) << "round " << round << " rank " << k;
    return r;
}

} // namespace

// The split (zip_algo.h): blocks below the threshold move by handle, in the caller's layout; they
// are neither viewed as bytes nor offered to the codec, and the call counts as all plain.
TEST(CollAlgoAlltoallvPlain, PlainBlocksMoveTypedAndNeverTouchTheCodec)
{
    const int size = 4;
    for (int round = 0; round < 8; ++round) {
        ToyCodec codec;
        Options o;
        o.threshold = size_t(1) << 30;
        const ExchangeRun r = typed_run(size, round, codec, o);
        EXPECT_EQ(r.plain_sends, blocks_of_round(size, round, any_size));
        EXPECT_EQ(r.plain_recvs, r.plain_sends);
        EXPECT_EQ(r.byte_views, 0u);
        EXPECT_EQ(codec.bytes_offered.load(), 0u);
        for (int k = 0; k < size; ++k) {
            EXPECT_EQ(r.res[k].all_plain, 1);
            EXPECT_EQ(r.res[k].bytes_in, 0u);
        }
    }
}

// One call with both kinds: small blocks by handle, the others received through their byte
// views and sent through theirs and the codec, or, once their sender's sample said raw, by
// handle unpacked (Transfer::typed); every block exact.
TEST(CollAlgoAlltoallvPlain, MixedPlainAndCompressedBlocksInOneCall)
{
    const int size = 5;
    bool compressed = false, unpacked = false;
    for (int round = 0; round < 8; ++round) {
        ToyCodec codec;
        const ExchangeRun r = typed_run(size, round, codec, Options{});
        const size_t small = blocks_of_round(size, round, below_1024);
        const size_t coded = blocks_of_round(size, round, at_least_1024);
        EXPECT_EQ(r.plain_recvs, small);
        ASSERT_GE(r.plain_sends, small);
        // Each coded-class block: a byte view where it is received, and one where it is sent
        // or a send by handle.
        EXPECT_EQ(r.byte_views + (r.plain_sends - small), 2 * coded);
        unpacked |= r.plain_sends > small;
        for (int k = 0; k < size; ++k)
            compressed |= r.res[k].compressed != 0;
    }
    EXPECT_TRUE(compressed);
    EXPECT_TRUE(unpacked);
}

// Blocks between ranks of one node move plainly whatever their size; between nodes the large
// ones are compressed. Ranks 0, 1 share a node, and so do 2, 3.
TEST(CollAlgoAlltoallvPlain, PeersOnTheSameNodeMovePlainly)
{
    const int size = 4;
    bool on_node[size * size];
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p)
            on_node[r * size + p] = r / 2 == p / 2;
    for (int round = 0; round < 8; ++round) {
        ToyCodec codec;
        Options o;
        o.on_node = on_node;
        const ExchangeRun r = typed_run(size, round, codec, o);
        size_t plain = 0, coded = 0;
        for (int from = 0; from < size; ++from)
            for (int to = 0; to < size; ++to) {
                const size_t b = block_bytes(from, to, round);
                if (from == to || b == 0)
                    continue;
                (b < 1024 || from / 2 == to / 2 ? plain : coded) += 1;
            }
        // Sends of the coded class go by handle too once their sender's sample said raw.
        EXPECT_EQ(r.plain_recvs, plain) << "round " << round;
        ASSERT_GE(r.plain_sends, plain) << "round " << round;
        EXPECT_EQ(r.byte_views + (r.plain_sends - plain), 2 * coded) << "round " << round;
    }
}

// A block longer than the transport's byte messages (the PML's int count) moves plainly.
TEST(CollAlgoAlltoallvPlain, BlocksLongerThanAMessageMovePlainly)
{
    const int size = 4;
    for (int round = 0; round < 8; ++round) {
        ToyCodec codec;
        Options o;
        o.max_message = 5000; // the menu's 70000-byte blocks are longer
        const ExchangeRun r = typed_run(size, round, codec, o);
        EXPECT_EQ(r.plain_recvs,
                  blocks_of_round(size, round, [](size_t b) { return b < 1024 || b > 5000; }));
    }
}

// Ranks that disagree on which blocks are plain (different settings) get an error, not a wrong
// result: rank 0 takes rank 1 for a node mate and expects its 1024-byte block plain, rank 1
// compresses it.
TEST(CollAlgoAlltoallvPlain, PlainBlockOfAnotherLengthIsAnError)
{
    const int size = 3, round = 1;
    ASSERT_EQ(block_bytes(1, 0, round), 1024u);
    bool on_node[size * size] = {};
    on_node[0 * size + 1] = true; // rank 0's view only
    ToyCodec codec;
    Options o;
    o.typed = true;
    o.on_node = on_node;
    const ExchangeRun r = alltoallv(size, round, codec, o);
    EXPECT_EQ(r.rc[0], ZIP_ALGO_ERR_LENGTH);
    EXPECT_EQ(r.res[0].plain_want, 1024u);
    EXPECT_LT(r.res[0].plain_got, 1024u);
    EXPECT_EQ(r.rc[1], ZIP_ALGO_OK);
    EXPECT_EQ(r.rc[2], ZIP_ALGO_OK);
}

// The window alltoallv picks when none is given (exchange.hpp), for blocks of one size, at
// every link rate of `links`.
namespace
{

struct WindowCase {
    int ranks;
    size_t block;
    size_t steps;
};

void expect_auto_windows(std::initializer_list<double> links,
                         std::initializer_list<WindowCase> cases)
{
    for (double link : links)
        for (const WindowCase &c : cases) {
            std::vector<zip_block_t> b(size_t(c.ranks), zip_block_t{nullptr, c.block, nullptr});
            EXPECT_EQ(zipcoll::alltoallv_auto_window(0, c.ranks, b.data(), b.data(), link), c.steps)
                << c.ranks << " ranks, blocks of " << c.block << " bytes, " << link << " B/s";
        }
}

constexpr double kGbit = 125e6;

} // namespace

// On a slow link (or one of unknown rate): a step per 32 KiB of the mean block, at most about
// 2 MiB in flight, 2 to 4 steps and, from 4 ranks on, never all of them; one on two ranks.
TEST(CollAlgoAlltoallvWindow, AutoWindowGrowsWithTheBlockUpToTwoMebibytesInFlight)
{
    expect_auto_windows({0.0, 1 * kGbit, 2.9 * kGbit}, {{2, 1 << 20, 1},
                                                        {8, 16 << 10, 2},
                                                        {8, 32 << 10, 2},
                                                        {8, 64 << 10, 2},
                                                        {8, 96 << 10, 3},
                                                        {8, 128 << 10, 4},
                                                        {8, 256 << 10, 4},
                                                        {8, 512 << 10, 4},
                                                        {8, 768 << 10, 3},
                                                        {8, 1 << 20, 2},
                                                        {8, 4 << 20, 2},
                                                        {8, 0, 4},
                                                        {3, 1024, 2},
                                                        {4, 80 << 10, 2},
                                                        {4, 0, 2},
                                                        {5, 128 << 10, 3},
                                                        {6, 128 << 10, 4},
                                                        {64, 32 << 10, 2}});
}

// From 3 Gbit/s a step is short next to the latency and the codec's time: up to 16 steps, about
// 8 MiB in flight, never more steps than peers.
TEST(CollAlgoAlltoallvWindow, OnAFastLinkUpToSixteenStepsAndEightMebibytesAreInFlight)
{
    expect_auto_windows({3 * kGbit, 10 * kGbit, 400 * kGbit}, {{2, 1 << 20, 1},
                                                               {8, 16 << 10, 7},
                                                               {8, 1 << 20, 7},
                                                               {16, 32 << 10, 15},
                                                               {64, 32 << 10, 16},
                                                               {64, 512 << 10, 16},
                                                               {64, 1 << 20, 8},
                                                               {64, 2 << 20, 4},
                                                               {64, 16 << 20, 2},
                                                               {64, 0, 16},
                                                               {3, 1024, 2}});
}

// The frame slots (window x the largest send block) stay near 8 MiB on a fast link even where
// one block is far larger than the rest.
TEST(CollAlgoAlltoallvWindow, OneLargeBlockAmongSmallOnesKeepsTheFastWindowShort)
{
    std::vector<zip_block_t> send(64, zip_block_t{nullptr, 32 << 10, nullptr});
    const std::vector<zip_block_t> recv = send;
    EXPECT_EQ(zipcoll::alltoallv_auto_window(0, 64, send.data(), recv.data(), 10 * kGbit), 16u);
    send[5].bytes = 8 << 20;
    EXPECT_EQ(zipcoll::alltoallv_auto_window(0, 64, send.data(), recv.data(), 10 * kGbit), 2u);
    send[5].bytes = 1 << 20;
    EXPECT_EQ(zipcoll::alltoallv_auto_window(0, 64, send.data(), recv.data(), 10 * kGbit), 8u);
}

// A rank that sends nothing but receives (a sparse exchange) gets the window of what it
// receives; on a fast link it once divided by its largest send block, zero (SIGFPE, found by
// test_soak.c).
TEST(CollAlgoAlltoallvWindow, ARankThatOnlyReceivesGetsAWindowOnAFastLink)
{
    const std::vector<zip_block_t> send(64, zip_block_t{nullptr, 0, nullptr});
    const std::vector<zip_block_t> recv(64, zip_block_t{nullptr, 1 << 20, nullptr});
    EXPECT_EQ(zipcoll::alltoallv_auto_window(0, 64, send.data(), recv.data(), 10 * kGbit), 8u);
    EXPECT_EQ(zipcoll::alltoallv_auto_window(0, 64, send.data(), recv.data(), 1e8), 2u);
}
