// pml/zip's temporal streams (common/p2p_streams.h): the rules both ends of a point-to-point
// channel apply, driven here the way pml/zip drives them, with no MPI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "p2p_streams.h"
#include "temporal_choice.hpp"

namespace
{

constexpr zip_p2p_key_t kChan{7, 1, 42};
constexpr uint64_t kPair = 1;

// A sample coder under which delta frames always pay (10x) and plain ones never shrink.
size_t delta_pays(void *, const char *ref, size_t n)
{
    return ref != nullptr ? n / 10 : 0;
}

std::vector<char> message(size_t bytes, int step)
{
    std::vector<char> m(bytes);
    for (size_t i = 0; i < bytes; ++i)
        m[i] = char(i * 31 + size_t(step));
    return m;
}

struct Streams {
    zip_p2p_streams_t *s;
    Streams(size_t memory, unsigned nprocs) : s(zip_p2p_streams_create(memory, nprocs)) {}
    ~Streams() { zip_p2p_streams_destroy(s); }
};

// One message through sender and receiver, as pml/zip moves it: returns whether it was kept,
// and checks that the receiver held the reference the sender coded against.
int pass(Streams &snd, Streams &rcv, zip_p2p_key_t k, const std::vector<char> &m,
         uint32_t *cseq_out = nullptr)
{
    const char *ref = nullptr;
    const uint32_t cseq = zip_p2p_send_begin(snd.s, k, kPair, m.size(), delta_pays, nullptr, &ref);
    if (cseq_out != nullptr)
        *cseq_out = cseq;
    const char *rref = zip_p2p_recv_ref(rcv.s, k, m.size());
    if (ref != nullptr) {
        EXPECT_NE(rref, nullptr);
        if (rref != nullptr) {
            EXPECT_EQ(std::memcmp(ref, rref, m.size()), 0);
        }
    }
    const int keep =
        zip_p2p_send_end(snd.s, k, kPair, m.data(), m.size(), ref != nullptr, ref ? 10.0 : 1.0);
    EXPECT_EQ(zip_p2p_recv_next(rcv.s, k), cseq);
    void *copy = std::malloc(m.size());
    std::memcpy(copy, m.data(), m.size());
    zip_p2p_recv_done(rcv.s, k, m.size(), keep, copy);
    return keep;
}

} // namespace

TEST(P2pStreams, SecondMessageOfAStreamIsCodedAgainstTheFirstThatBothEndsHold)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    EXPECT_EQ(pass(snd, rcv, kChan, message(4096, 0)), 1);
    const char *ref = nullptr;
    EXPECT_EQ(zip_p2p_send_begin(snd.s, kChan, kPair, 4096, delta_pays, nullptr, &ref), 1u);
    ASSERT_NE(ref, nullptr);
    const auto first = message(4096, 0);
    EXPECT_EQ(std::memcmp(ref, first.data(), first.size()), 0);
    const char *rref = zip_p2p_recv_ref(rcv.s, kChan, 4096);
    ASSERT_NE(rref, nullptr);
    EXPECT_EQ(std::memcmp(rref, first.data(), first.size()), 0);
}

TEST(P2pStreams, AStreamIsOneSizeOnOneChannel)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    pass(snd, rcv, kChan, message(4096, 0));
    const char *ref = nullptr;
    zip_p2p_send_begin(snd.s, kChan, kPair, 8192, delta_pays, nullptr, &ref);
    EXPECT_EQ(ref, nullptr);
    zip_p2p_send_begin(snd.s, zip_p2p_key_t{7, 1, 43}, kPair, 4096, delta_pays, nullptr, &ref);
    EXPECT_EQ(ref, nullptr);
    zip_p2p_send_begin(snd.s, zip_p2p_key_t{8, 1, 42}, kPair, 4096, delta_pays, nullptr, &ref);
    EXPECT_EQ(ref, nullptr);
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, zip_p2p_key_t{7, 2, 42}, 4096), nullptr);
}

TEST(P2pStreams, InterleavedSizesAndTagsKeepBothEndsInStep)
{
    Streams snd(1 << 22, 2), rcv(1 << 22, 2);
    const size_t sizes[] = {4096, 8192, 4096, 12288, 16384, 20480, 4096, 8192, 24576};
    for (int step = 0; step < 40; ++step)
        for (int tag = 0; tag < 3; ++tag)
            pass(snd, rcv, zip_p2p_key_t{7, 1, tag}, message(sizes[(step + tag) % 9], step));
    zip_p2p_counts_t cs, cr;
    zip_p2p_streams_counts(snd.s, &cs);
    zip_p2p_streams_counts(rcv.s, &cr);
    EXPECT_GT(cs.delta_frames, 0u);
    // Plain samples never shrink (ratio 1), deltas are 10x: each delta saved 9/10 of its bytes.
    EXPECT_GT(cs.delta_saved, 0u);
    EXPECT_EQ(cs.bytes_sent_refs, cr.bytes_recv_refs);
    EXPECT_EQ(cs.temporal_sent, cr.temporal_recvd);
}

TEST(P2pStreams, AChannelKeepsFourSizesDroppingTheOneKeptLongestAgo)
{
    Streams snd(1 << 22, 2), rcv(1 << 22, 2);
    for (size_t kib = 1; kib <= 5; ++kib)
        pass(snd, rcv, kChan, message(kib * 1024, 0));
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, kChan, 1024), nullptr);
    for (size_t kib = 2; kib <= 5; ++kib)
        EXPECT_NE(zip_p2p_recv_ref(rcv.s, kChan, kib * 1024), nullptr) << kib;
    pass(snd, rcv, kChan, message(2 * 1024, 1)); // 2 KiB is now the newest
    pass(snd, rcv, kChan, message(6 * 1024, 0)); // drops 3 KiB
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, kChan, 3 * 1024), nullptr);
    EXPECT_NE(zip_p2p_recv_ref(rcv.s, kChan, 2 * 1024), nullptr);
}

TEST(P2pStreams, AMessageThatIsNotKeptDropsItsStreamAtBothEnds)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    pass(snd, rcv, kChan, message(4096, 0));
    const char *ref = nullptr;
    zip_p2p_send_begin(snd.s, kChan, kPair, 4096, delta_pays, nullptr, &ref);
    ASSERT_NE(ref, nullptr);
    // A receiver that could not decode it says so with NULL data: its stream is gone.
    const auto m = message(4096, 1);
    const int keep = zip_p2p_send_end(snd.s, kChan, kPair, m.data(), m.size(), 1, 10.0);
    EXPECT_EQ(keep, 1);
    zip_p2p_recv_done(rcv.s, kChan, 4096, keep, nullptr);
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, kChan, 4096), nullptr);
    // And a sender's "not kept" drops the reference it had at both ends.
    zip_p2p_recv_done(rcv.s, kChan, 4096, 1, std::calloc(4096, 1)); // (as a receiver in step)
    EXPECT_NE(zip_p2p_recv_ref(rcv.s, kChan, 4096), nullptr);
    zip_p2p_recv_done(rcv.s, kChan, 4096, 0, std::calloc(4096, 1));
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, kChan, 4096), nullptr);
}

TEST(P2pStreams, KeptBytesPerPeerStayWithinItsShareOfTheMemory)
{
    // 4 processes, 96 KiB: 16 KiB per peer and direction.
    Streams snd(96 * 1024, 4), rcv(96 * 1024, 4);
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{7, 1, 0}, message(12 * 1024, 0)), 1);
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{7, 1, 1}, message(8 * 1024, 0)), 0);
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{7, 1, 2}, message(4 * 1024, 0)), 1);
    // The claim of a channel stays with it: the first can keep its 12 KiB again, and less.
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{7, 1, 0}, message(12 * 1024, 1)), 1);
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{7, 1, 0}, message(20 * 1024, 1)), 0);
    zip_p2p_counts_t c;
    zip_p2p_streams_counts(rcv.s, &c);
    EXPECT_LE(c.peak_recv_refs, 16u * 1024);
    // Its communicator going releases the claim.
    zip_p2p_streams_drop_cid(snd.s, 7);
    zip_p2p_streams_drop_cid(rcv.s, 7);
    EXPECT_EQ(pass(snd, rcv, zip_p2p_key_t{9, 1, 1}, message(16 * 1024, 0)), 1);
    zip_p2p_streams_counts(rcv.s, &c);
    EXPECT_EQ(c.bytes_recv_refs, 16u * 1024);
}

TEST(P2pStreams, ACommunicatorGoingStartsItsChannelsAfresh)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    pass(snd, rcv, kChan, message(4096, 0));
    pass(snd, rcv, kChan, message(4096, 1));
    EXPECT_EQ(zip_p2p_recv_next(rcv.s, kChan), 2u);
    zip_p2p_streams_drop_cid(snd.s, kChan.cid);
    zip_p2p_streams_drop_cid(rcv.s, kChan.cid);
    EXPECT_EQ(zip_p2p_recv_next(rcv.s, kChan), 0u);
    EXPECT_EQ(zip_p2p_recv_ref(rcv.s, kChan, 4096), nullptr);
    uint32_t cseq = 99;
    pass(snd, rcv, kChan, message(4096, 2), &cseq);
    EXPECT_EQ(cseq, 0u);
}

TEST(P2pStreams, AMessageWaitsUntilEveryEarlierOneOfItsChannelIsDone)
{
    Streams rcv(1 << 20, 2);
    int a = 1, b = 2;
    EXPECT_EQ(zip_p2p_recv_park(rcv.s, kChan, 2, &b), 0);
    EXPECT_EQ(zip_p2p_recv_park(rcv.s, kChan, 1, &a), 0);
    EXPECT_EQ(zip_p2p_recv_unpark(rcv.s, kChan), nullptr); // 0 not done yet
    zip_p2p_recv_done(rcv.s, kChan, 4096, 1, std::calloc(4096, 1));
    EXPECT_EQ(zip_p2p_recv_unpark(rcv.s, kChan), &a);
    EXPECT_EQ(zip_p2p_recv_unpark(rcv.s, kChan), nullptr); // 1 taken, not done
    zip_p2p_recv_done(rcv.s, kChan, 4096, 1, std::calloc(4096, 1));
    EXPECT_EQ(zip_p2p_recv_unpark(rcv.s, kChan), &b);
    EXPECT_EQ(zip_p2p_recv_park(rcv.s, kChan, 5, &a), 0);
    EXPECT_NE(zip_p2p_recv_park(rcv.s, kChan, 5, &b), 0); // one message per cseq
}

TEST(P2pStreams, PlainFramesWinWhereDeltasDoNoBetterAsInCollZip)
{
    // Plain frames that do as well as deltas: the rule (temporal_choice.hpp) picks plain.
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    pass(snd, rcv, kChan, message(4096, 0));
    auto same = [](void *, const char *, size_t n) { return n / 4; };
    const char *ref = reinterpret_cast<const char *>(1);
    zip_p2p_send_begin(snd.s, kChan, kPair, 4096, same, nullptr, &ref);
    EXPECT_EQ(ref, nullptr);
    zip_p2p_counts_t c;
    zip_p2p_streams_counts(snd.s, &c);
    EXPECT_EQ(c.probes, 1u);
}

// A job with phases on one stream: first data whose plain frames halve them and whose deltas
// do not shrink (a field that moves with every step), then data that shrink only as deltas
// (random values that change little per step). The stream measures again as soon as a message
// goes raw where plain frames used to shrink, and codes the next one as a delta, as coll/zip's
// Alltoallv streams do (the rule of temporal_choice.hpp).
TEST(P2pStreams, AStreamOnPlainFramesTakesDeltasWhenItsDataStopShrinkingOnTheirOwn)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    bool random_phase = false;
    auto coder = [](void *arg, const char *ref, size_t n) -> size_t {
        if (*static_cast<bool *>(arg))
            return ref != nullptr ? n / 14 : 0;
        return ref != nullptr ? 0 : n / 2;
    };
    // One message as pml/zip sends it: coded against what the choice returned, frame or raw.
    auto send = [&](int step) {
        const auto m = message(4096, step);
        const char *ref = nullptr;
        zip_p2p_send_begin(snd.s, kChan, kPair, m.size(), coder, &random_phase, &ref);
        const size_t frame = coder(&random_phase, ref, m.size());
        zip_p2p_send_end(snd.s, kChan, kPair, m.data(), m.size(), frame > 0 && ref != nullptr,
                         frame > 0 ? double(m.size()) / double(frame) : 1.0);
        void *copy = std::malloc(m.size());
        std::memcpy(copy, m.data(), m.size());
        zip_p2p_recv_done(rcv.s, kChan, m.size(), 1, copy);
        return ref != nullptr;
    };
    int step = 0;
    for (; step < 12; ++step)
        EXPECT_FALSE(send(step)) << step;
    random_phase = true;
    EXPECT_FALSE(send(step++)); // raw: plain frames stopped shrinking
    for (int i = 0; i < 4; ++i, ++step)
        EXPECT_TRUE(send(step)) << step;
    zip_p2p_counts_t c;
    zip_p2p_streams_counts(snd.s, &c);
    EXPECT_EQ(c.delta_frames, 4u);
    EXPECT_EQ(c.probes, 3u); // the second message, the tenth, the random phase's second
}

TEST(P2pStreams, AChannelWhoseMessageNeverWentOutSendsNoMoreStreamMessages)
{
    Streams snd(1 << 20, 2), rcv(1 << 20, 2);
    pass(snd, rcv, kChan, message(4096, 0));
    const char *ref = nullptr;
    EXPECT_EQ(zip_p2p_send_begin(snd.s, kChan, kPair, 4096, delta_pays, nullptr, &ref), 1u);
    zip_p2p_send_abandon(snd.s, kChan);
    EXPECT_EQ(zip_p2p_send_begin(snd.s, kChan, kPair, 4096, delta_pays, nullptr, &ref),
              ZIP_P2P_ABANDONED);
    EXPECT_EQ(ref, nullptr);
    // Other channels go on.
    EXPECT_EQ(
        zip_p2p_send_begin(snd.s, zip_p2p_key_t{7, 1, 43}, kPair, 4096, delta_pays, nullptr, &ref),
        0u);
}
