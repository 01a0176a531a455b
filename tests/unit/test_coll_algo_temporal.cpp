// Alltoallv's temporal streams (algo/temporal_streams.hpp) on the in-process transport with the
// real codec: over many calls, blocks of slowly changing doubles and integer keys arrive
// bit-exact and go as deltas where that pays; both ends stay in step through size changes,
// plain and empty blocks and the memory limit; a receiver without the reference reports
// ZIP_ALGO_ERR_STATE instead of wrong data.
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "temporal_streams.hpp"
#include "test_coll_algo_support.hpp"
#include "zip_algo.h"

using algotest::World;

namespace
{

constexpr size_t kThreshold = 4096;

// One rank's codec: contexts are not shared between threads.
struct RankCodec {
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    zip_algo_codec_binding_t binding{};
    zip_codec_ops_t ops{};
    RankCodec()
    {
        binding.codec = ctx;
        zip_algo_codec_bind(&ops, &binding);
    }
    ~RankCodec() { zip_ctx_destroy(ctx); }
};

uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

enum class Kind {
    Drifting,  // doubles of a smooth field; each step one element in 16 moves a little
    Keys,      // random 32-bit keys; each step one in 32 is replaced
    Unrelated, // doubles of a smooth field with another phase every step
    // A job with two phases: Unrelated until kPhaseSwitch (plain frames shrink, deltas do not
    // pay), then random doubles of which one in 64 changes per step (only deltas shrink them)
    UnrelatedThenRandom,
    // The same with random doubles, all new every step, until kPhaseSwitch (nothing shrinks)
    NoiseThenRandom,
};

constexpr int kPhaseSwitch = 12;

int elem_type(Kind k)
{
    return k == Kind::Keys ? ZIP_ALGO_I32 : ZIP_ALGO_F64;
}

// The block from `from` to `to` at `step`, `bytes` long (a multiple of 8 or not).
std::vector<char> block(Kind kind, int from, int to, int step, size_t bytes)
{
    std::vector<char> out(bytes);
    const uint64_t pair = uint64_t(from) * 131 + uint64_t(to);
    if (kind == Kind::Keys) {
        for (size_t i = 0; i + 4 <= bytes; i += 4) {
            const uint64_t gen = (uint64_t(step) + i / 4) / 32; // changes once in 32 steps
            const auto key = uint32_t(mix(pair << 40 ^ (i / 4) << 8 ^ gen));
            std::memcpy(&out[i], &key, 4);
        }
    } else if ((kind == Kind::UnrelatedThenRandom && step >= kPhaseSwitch) ||
               kind == Kind::NoiseThenRandom) {
        for (size_t i = 0; i + 8 <= bytes; i += 8) {
            // Every bit random; each value changes once in 64 steps (every step, before the
            // switch, for noise).
            const uint64_t gen =
                step < kPhaseSwitch ? uint64_t(step) << 32 : (uint64_t(step) + i / 8) / 64;
            const uint64_t bits = mix(pair << 40 ^ (i / 8) << 8 ^ gen);
            std::memcpy(&out[i], &bits, 8);
        }
    } else {
        for (size_t i = 0; i + 8 <= bytes; i += 8) {
            const size_t e = i / 8;
            double v;
            if (kind == Kind::Drifting)
                v = 100.0 * std::sin(0.001 * double(e) + double(pair)) +
                    1e-7 * double((uint64_t(step) + e) / 16);
            else
                v = 100.0 * std::sin(0.001 * double(e) + double(pair) + 0.7 * step);
            std::memcpy(&out[i], &v, 8);
        }
        // Values that must come back bit for bit: a NaN payload and -0.0.
        const uint64_t nan = 0x7ff8000000000123ull, negzero = 0x8000000000000000ull;
        if (bytes >= 48) {
            std::memcpy(&out[24], &nan, 8);
            std::memcpy(&out[40], &negzero, 8);
        }
    }
    for (size_t i = bytes / 8 * 8; i < bytes; ++i) // a ragged tail
        out[i] = char(step + int(i));
    return out;
}

using SizeFn = std::function<size_t(int from, int to, int step)>;

struct Outcome {
    int mismatches = 0;
    std::vector<int> failures; // (step * size + rank) of every rank whose call failed
    std::vector<int> rcs;      // their codes
    size_t bytes_in = 0, bytes_out = 0;
    uint64_t deltas = 0, plains = 0, probes = 0;
};

struct Scenario {
    int size = 4;
    int steps = 8;
    Kind kind = Kind::Drifting;
    SizeFn bytes = [](int, int, int) { return size_t(32768); };
    bool temporal = true;
    size_t memory = size_t(64) << 20;
    std::vector<bool> without; // ranks that keep no streams (settings differ)
    // Called between steps with every rank's streams (to break them on purpose).
    std::function<void(int step, std::vector<zip_algo_temporal_t *> &)> between;
    std::function<void(std::vector<zip_algo_temporal_t *> &)> after_each; // checks
};

Outcome run(const Scenario &s)
{
    World w(s.size);
    std::vector<RankCodec> codecs(size_t(s.size));
    std::vector<zip_algo_temporal_t *> streams(size_t(s.size), nullptr);
    for (int r = 0; r < s.size; ++r)
        if (s.temporal && (s.without.empty() || !s.without[size_t(r)]))
            streams[size_t(r)] = zip_algo_temporal_create(s.size, s.memory);
    Outcome out;
    for (int step = 0; step < s.steps; ++step) {
        if (s.between)
            s.between(step, streams);
        std::vector<std::vector<std::vector<char>>> recv(size_t(s.size));
        std::vector<zip_algo_result_t> res(size_t(s.size));
        std::vector<int> rc(size_t(s.size), -100);
        w.run([&](int rank, const zip_transport_t &t) {
            std::vector<std::vector<char>> send(size_t(s.size));
            auto &mine = recv[size_t(rank)];
            mine.resize(size_t(s.size));
            std::vector<zip_block_t> sb(size_t(s.size)), rb(size_t(s.size));
            for (int p = 0; p < s.size; ++p) {
                if (p == rank)
                    continue;
                send[size_t(p)] = block(s.kind, rank, p, step, s.bytes(rank, p, step));
                mine[size_t(p)].assign(s.bytes(p, rank, step), '\x5a');
                sb[size_t(p)] = {send[size_t(p)].data(), send[size_t(p)].size(), nullptr};
                rb[size_t(p)] = {mine[size_t(p)].data(), mine[size_t(p)].size(), nullptr};
            }
            zip_exchange_args_t a{};
            a.send = sb.data();
            a.recv = rb.data();
            a.tag = 5;
            a.elem_type = elem_type(s.kind);
            a.try_compress = 1;
            a.threshold = kThreshold;
            a.window = 2;
            a.temporal = streams[size_t(rank)];
            rc[size_t(rank)] =
                zip_algo_alltoallv(&t, &codecs[size_t(rank)].ops, &a, &res[size_t(rank)]);
        });
        EXPECT_EQ(w.unreceived(), 0u) << "step " << step;
        for (int r = 0; r < s.size; ++r) {
            out.bytes_in += res[size_t(r)].bytes_in;
            out.bytes_out += res[size_t(r)].bytes_out;
            if (rc[size_t(r)] != ZIP_ALGO_OK) {
                out.failures.push_back(step * s.size + r);
                out.rcs.push_back(rc[size_t(r)]);
                continue;
            }
            for (int p = 0; p < s.size; ++p)
                if (p != r &&
                    recv[size_t(r)][size_t(p)] != block(s.kind, p, r, step, s.bytes(p, r, step)))
                    ++out.mismatches;
        }
        if (s.after_each)
            s.after_each(streams);
    }
    for (auto *t : streams) {
        uint64_t d = 0, p = 0;
        zip_algo_temporal_counts(t, &d, &p);
        out.deltas += d;
        out.plains += p;
        out.probes += t != nullptr ? t->counts.probes : 0;
        zip_algo_temporal_destroy(t);
    }
    return out;
}

} // namespace

TEST(CollAlgoTemporal, DriftingDoublesArriveExactlyAsDeltasFarSmaller)
{
    Scenario s;
    const Outcome plain = [&] {
        Scenario off = s;
        off.temporal = false;
        return run(off);
    }();
    const Outcome delta = run(s);
    EXPECT_EQ(plain.mismatches, 0);
    EXPECT_EQ(delta.mismatches, 0);
    EXPECT_TRUE(delta.failures.empty());
    EXPECT_EQ(delta.bytes_in, plain.bytes_in);
    // Every block after the first call of its stream goes as a delta.
    EXPECT_EQ(delta.deltas, uint64_t(4 * 3 * (s.steps - 1)));
    EXPECT_LT(delta.bytes_out * 3, plain.bytes_out)
        << "temporal " << delta.bytes_out << " plain " << plain.bytes_out;
}

TEST(CollAlgoTemporal, IntegerKeysThatDoNotShrinkOnTheirOwnShrinkAsDeltas)
{
    Scenario s;
    s.size = 3;
    s.steps = 12;
    s.kind = Kind::Keys;
    s.bytes = [](int, int, int) { return size_t(16384); };
    Scenario off = s;
    off.temporal = false;
    const Outcome plain = run(off), delta = run(s);
    EXPECT_EQ(plain.mismatches + delta.mismatches, 0);
    EXPECT_TRUE(delta.failures.empty());
    EXPECT_GT(plain.bytes_out * 10, plain.bytes_in * 9) << "random keys do not shrink alone";
    EXPECT_LT(delta.bytes_out * 3, delta.bytes_in)
        << "in " << delta.bytes_in << " out " << delta.bytes_out;
}

// Sizes change between calls; blocks go empty, below the threshold, and come back: whatever
// moves plainly ends the stream at both ends, and every call stays exact.
TEST(CollAlgoTemporal, ChangingCountsKeepBothEndsInStep)
{
    Scenario s;
    s.steps = 14;
    s.bytes = [](int from, int to, int step) {
        static const size_t menu[] = {16384, 16384, 0, 100, 16384, 24576, 24576, 8200, 16384};
        return menu[size_t(from * 2 + to + step / 2) % 9];
    };
    const Outcome o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_TRUE(o.failures.empty());
    EXPECT_GT(o.deltas, 0u);
}

// With room for 32 KiB per stream, 64 KiB blocks are never kept (at either end) and go plain;
// the others still go as deltas, and the references stay within the memory given.
TEST(CollAlgoTemporal, BlocksLongerThanTheMemoryAllowsGoOnTheirOwn)
{
    Scenario s;
    s.size = 3;
    s.memory = 4 * 32768;
    s.bytes = [](int from, int, int) { return from == 0 ? size_t(65536) : size_t(8192); };
    s.after_each = [&](std::vector<zip_algo_temporal_t *> &t) {
        for (auto *r : t)
            EXPECT_LE(zip_algo_temporal_bytes(r), s.memory);
        EXPECT_FALSE(t[0]->send[1].held || t[0]->send[2].held);
        EXPECT_FALSE(t[1]->recv[0].held || t[2]->recv[0].held);
        EXPECT_TRUE(t[1]->send[0].held && t[0]->recv[1].held);
    };
    const Outcome o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_TRUE(o.failures.empty());
    EXPECT_EQ(o.deltas, uint64_t(4 * (s.steps - 1))); // the four 8 KiB streams
}

// A field that moves with every call: coding against the previous one does not pay, the
// probes say so, and the blocks go as plain frames.
TEST(CollAlgoTemporal, UnrelatedStepsGoAsPlainFrames)
{
    Scenario s;
    s.kind = Kind::Unrelated;
    s.steps = 10;
    Scenario off = s;
    off.temporal = false;
    const Outcome plain = run(off), o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_TRUE(o.failures.empty());
    EXPECT_EQ(o.deltas, 0u);
    EXPECT_GT(o.plains, 0u);
    // The same frames but for a few bytes (fast's frames may differ with its history).
    EXPECT_LT(o.bytes_out * 100, plain.bytes_out * 101);
}

// A job whose data change character: first a field that moves with every call (plain frames
// win), then random doubles that change little between calls, which shrink only as deltas and
// whose plain sample (blocks above 64 KiB are judged on their first 64 KiB) finds nothing to
// compress. The streams measure again and go as deltas from the second call of the new phase,
// as they do when that phase runs alone.
TEST(CollAlgoTemporal, StreamsMeasureAgainWhenTheDataChangeCharacter)
{
    Scenario s;
    s.size = 3;
    s.steps = kPhaseSwitch + 10;
    s.kind = Kind::UnrelatedThenRandom;
    s.bytes = [](int, int, int) { return size_t(131072); };
    uint64_t before_switch = 0;
    s.between = [&](int step, std::vector<zip_algo_temporal_t *> &t) {
        if (step == kPhaseSwitch)
            for (auto *r : t)
                before_switch += r->counts.delta_frames;
    };
    const Outcome o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_TRUE(o.failures.empty());
    EXPECT_EQ(before_switch, 0u) << "deltas do not pay on the moving field";
    // Six streams, as deltas from the second call of the random phase on (the first has only
    // the field to code against, and finds that plain frames stopped shrinking).
    EXPECT_EQ(o.deltas, uint64_t(6 * (s.steps - kPhaseSwitch - 1)))
        << "delta frames in the random phase: " << o.deltas;
}

// The same after noise, where nothing shrinks and every call's first sample stops its coding:
// its blocks still count towards the next measurement of their streams, which finds deltas
// paying within a period.
TEST(CollAlgoTemporal, StreamsOfUncodedBlocksStillMeasureAgain)
{
    Scenario s;
    s.size = 3;
    s.steps = kPhaseSwitch + 10;
    s.kind = Kind::NoiseThenRandom;
    s.bytes = [](int, int, int) { return size_t(131072); };
    const Outcome o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    EXPECT_TRUE(o.failures.empty());
    EXPECT_GE(o.deltas,
              uint64_t(6 * (s.steps - kPhaseSwitch - zipcoll::TemporalChoice::kProbeEvery)))
        << "delta frames in the random phase: " << o.deltas;
}

// Where deltas never pay, whether plain frames shrink (a moving field) or nothing does (noise),
// a stream measures both kinds once per period and no more.
TEST(CollAlgoTemporal, WhereDeltasNeverPayAStreamMeasuresOncePerPeriod)
{
    for (Kind kind : {Kind::Unrelated, Kind::NoiseThenRandom}) {
        Scenario s;
        s.size = 3;
        s.steps = kPhaseSwitch; // NoiseThenRandom: noise throughout
        s.kind = kind;
        s.bytes = [](int, int, int) { return size_t(131072); };
        const Outcome o = run(s);
        EXPECT_EQ(o.mismatches, 0);
        EXPECT_EQ(o.deltas, 0u);
        // Six streams, from their second call on: calls 1 and 9.
        const unsigned per_stream = 1 + (s.steps - 2) / zipcoll::TemporalChoice::kProbeEvery;
        EXPECT_LE(o.probes, 6u * per_stream) << "kind " << int(kind);
        EXPECT_GT(o.probes, 0u);
    }
}

// Both ends kept the reference, then the receiver lost it: the next delta frame is a clear
// error at that receiver, not wrong data, and the others are unaffected.
TEST(CollAlgoTemporal, AReceiverThatLostItsReferenceReportsAStateError)
{
    Scenario s;
    s.size = 3;
    s.steps = 3;
    s.between = [](int step, std::vector<zip_algo_temporal_t *> &t) {
        if (step == 2)
            t[1]->drop(0, false);
    };
    const Outcome o = run(s);
    ASSERT_EQ(o.failures, std::vector<int>{2 * 3 + 1});
    EXPECT_EQ(o.rcs, std::vector<int>{ZIP_ALGO_ERR_STATE});
    EXPECT_EQ(o.mismatches, 0);
}

// A rank whose settings leave temporal off receives delta frames it cannot decode: an error
// there, every call of it, never wrong data.
TEST(CollAlgoTemporal, ARankWithoutStreamsReportsAStateError)
{
    Scenario s;
    s.size = 3;
    s.steps = 3;
    s.without = {false, false, true};
    const Outcome o = run(s);
    EXPECT_EQ(o.mismatches, 0);
    ASSERT_EQ(o.failures, (std::vector<int>{1 * 3 + 2, 2 * 3 + 2}));
    EXPECT_EQ(o.rcs, (std::vector<int>{ZIP_ALGO_ERR_STATE, ZIP_ALGO_ERR_STATE}));
}

TEST(CollAlgoTemporal, ModeNames)
{
    EXPECT_EQ(zip_algo_temporal_mode_parse("off"), 0);
    EXPECT_EQ(zip_algo_temporal_mode_parse("auto"), 1);
    EXPECT_EQ(zip_algo_temporal_mode_parse("on"), -1);
    EXPECT_EQ(zip_algo_temporal_mode_parse(nullptr), -1);
}

TEST(CollAlgoTemporal, ChoiceProbesAgainWhenDeltasStopPaying)
{
    zipcoll::TemporalChoice c;
    EXPECT_TRUE(c.probe_due());
    c.probed(2.0, 8.0);
    EXPECT_TRUE(c.delta());
    EXPECT_FALSE(c.probe_due());
    c.coded(true, 7.5);
    EXPECT_FALSE(c.probe_due());
    c.coded(true, 1.5); // worse than the plain sample was
    EXPECT_TRUE(c.probe_due());
    c.probed(2.0, 2.05); // within the margin: plain
    EXPECT_FALSE(c.delta());
    for (unsigned i = 0; i < zipcoll::TemporalChoice::kProbeEvery; ++i)
        c.coded(false, 2.0);
    EXPECT_TRUE(c.probe_due());
}

// Plain frames that shrank, then a block that did not shrink at all (or was not coded): the
// data changed character, and may now pay as deltas. The next call measures.
TEST(CollAlgoTemporal, ChoiceProbesAgainWhenPlainFramesStopShrinking)
{
    zipcoll::TemporalChoice c;
    c.probed(1.6, 1.0);
    EXPECT_FALSE(c.delta());
    c.coded(false, 1.5); // a little worse than the sample: no sign
    EXPECT_FALSE(c.probe_due());
    c.coded(false, 1.0);
    EXPECT_TRUE(c.probe_due());
    c.probed(1.0, 14.0);
    EXPECT_TRUE(c.delta());
}

// Data that never shrink on their own are no sign of change: only the periodic measurements.
TEST(CollAlgoTemporal, ChoiceOfIncompressibleDataMeasuresOncePerPeriod)
{
    zipcoll::TemporalChoice c;
    c.probed(1.0, 1.0);
    for (unsigned i = 1; i < zipcoll::TemporalChoice::kProbeEvery; ++i) {
        c.coded(false, 1.0);
        EXPECT_FALSE(c.probe_due()) << i;
    }
    c.coded(false, 1.0);
    EXPECT_TRUE(c.probe_due());
}

// Frames that swing from call to call bring at most one early measurement per period, which
// does not move the next periodic one.
TEST(CollAlgoTemporal, ChoiceMeasuresEarlyAtMostOncePerPeriod)
{
    constexpr unsigned every = zipcoll::TemporalChoice::kProbeEvery;
    zipcoll::TemporalChoice c;
    c.probed(1.6, 1.0);
    c.coded(false, 1.0);
    ASSERT_TRUE(c.probe_due());
    c.probed(1.6, 1.0); // early, after 1 call
    for (unsigned i = 2; i < every; ++i) {
        c.coded(false, i % 2 ? 1.0 : 1.6);
        EXPECT_FALSE(c.probe_due()) << i;
    }
    c.coded(false, 1.6);
    EXPECT_TRUE(c.probe_due()); // periodic, kProbeEvery calls after the last periodic one
    c.probed(1.6, 1.0);
    c.coded(false, 1.0);
    EXPECT_TRUE(c.probe_due()); // a new period may measure early again
}
