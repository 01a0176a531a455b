// Compressed allgatherv: a ring (ring.hpp) or Bruck's steps (bruck.hpp) in which every block is
// compressed once, by its owner, travels as the frame it became and is decoded once by every
// other rank, while later transfers run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "bruck.hpp"
#include "bruck_steps.hpp"
#include "chain_model.hpp"
#include "exchange.hpp"
#include "ring.hpp"
#include "zip_algo.h"

namespace zipcoll
{

namespace
{

// Runs one schedule (RingAllgather, BruckAllgather) over blocks; the caller's frame keeps the
// arguments alive while this one is suspended.
template <class Schedule>
Task gather_with(const zip_transport_t *t, const zip_codec_ops_t *codec, const BlockPolicy &policy,
                 const std::vector<zip_block_t> &blocks, int tag, zip_algo_result_t *res)
{
    Schedule schedule;
    const int rc = schedule.prepare(t, policy, blocks.data(), t->rank, tag);
    if (rc != ZIP_ALGO_OK)
        co_return rc;
    res->all_plain = schedule.all_plain();
    BlockCodec coder(codec, policy, res);
    co_return co_await schedule.run(coder, res);
}

// Bruck's form for these blocks: a few messages per step where every block is small and its
// messages (a block, or a chunk of up to kStepsChunkBytes) fit the transport's longest message,
// else a message per block (kBruckStepsLargest).
int bruck_form(const zip_transport_t &t, const std::vector<zip_block_t> &blocks)
{
    size_t largest = 0;
    for (const zip_block_t &b : blocks)
        largest = std::max(largest, b.bytes);
    const bool fits = t.max_message == 0 || std::max(largest, kStepsChunkBytes) <= t.max_message;
    return largest <= kBruckStepsLargest && fits ? ZIP_ALLGATHERV_BRUCK_STEPS
                                                 : ZIP_ALLGATHERV_BRUCK_BLOCKS;
}

} // namespace

Task allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    const int start = begin_exchange(t, a->send && a->recv ? a->send : nullptr, res);
    if (start != ZIP_ALGO_OK)
        co_return start > 0 ? ZIP_ALGO_OK : start;
    // Every block but this rank's own comes from recv; its own from send.
    std::vector<zip_block_t> blocks(a->recv, a->recv + t->size);
    blocks[size_t(t->rank)] = a->send[0];
    BlockPolicy policy = BlockPolicy::of(*a, *t);
    policy.peer_on_node = nullptr; // a block crosses links to several ranks
    const int algorithm =
        a->algorithm == ZIP_ALLGATHERV_BRUCK ? bruck_form(*t, blocks) : a->algorithm;
    if (algorithm == ZIP_ALLGATHERV_BRUCK_STEPS)
        co_return co_await gather_with<BruckStepsAllgather>(t, codec, policy, blocks, a->tag, res);
    if (algorithm == ZIP_ALLGATHERV_BRUCK_BLOCKS)
        co_return co_await gather_with<BruckAllgather>(t, codec, policy, blocks, a->tag, res);
    co_return co_await gather_with<RingAllgather>(t, codec, policy, blocks, a->tag, res);
}

namespace
{

// Bruck's predicted time (see zip_algo.h) in two parts, its latencies and its wire time, so that
// the time of bytes scaled by s (compressed) is latency + s wire without walking the blocks again.
struct BruckTime {
    double latency = 0.0, wire = 0.0;
    double at(double scale) const { return latency + scale * wire; }
};

BruckTime bruck_cost(zip_algo_block_bytes_t bytes_of, const void *ctx, int size, int per_node,
                     double link_Bps, double latency_s, bool pairs_serialise)
{
    BruckTime t;
    for (int d = 1; d < size; d <<= 1) {
        const int n = std::min(d, size - d);
        // What rank r receives: blocks r + d .. r + d + n - 1 (mod size), a window slid by r.
        double window = 0.0;
        for (int j = 0; j < n; ++j)
            window += double(bytes_of(ctx, (d + j) % size));
        double widest = window; // the most any rank receives at this step
        for (int r = 1; r < size; ++r) {
            window += double(bytes_of(ctx, (r + d + n - 1) % size)) -
                      double(bytes_of(ctx, (r + d - 1) % size));
            widest = std::max(widest, window);
        }
        const double serial = pairs_serialise && 2 * d == size ? 2.0 : 1.0;
        // Ranks placed by node: of a node's ranks, min(d, per_node) have their partner on
        // another node, and their messages share the node's link.
        t.latency += serial * latency_s;
        t.wire += serial * double(std::min(d, per_node)) * widest / link_Bps;
    }
    return t;
}

double ring_cost(double largest, int size, double link_Bps, double latency_s)
{
    return double(size - 1) * (latency_s + largest / link_Bps);
}

// tuned's neighbor exchange (even sizes only): size / 2 steps, each moving a pair of blocks
// (2i, 2i + 1: the pairs its first step made) between neighbours, both ways; `pair` is the
// largest such pair. One rank per node: every step crosses the node's link with a pair. Ranks
// placed by node: every other step stays on the nodes, and the others cross at both boundary
// ranks of a node at once, two pairs on its link (simscale, 256 ranks in nodes of 32, 16 KiB
// blocks at 10 Gbit/s: 5.39 ms simulated, 5.28 by this model; 64 ranks in nodes of 32, 16 KiB
// -/+ 2 KiB at 1 Gbit/s: 8.90 simulated, 8.86 by pairs, 9.92 by twice the largest block).
double neighbor_cost(double pair, int size, int per_node, double link_Bps, double latency_s,
                     bool pairs_serialise)
{
    if (size % 2 != 0)
        return std::numeric_limits<double>::infinity();
    const double serial = pairs_serialise ? 2.0 : 1.0; // every step is an exchange
    const double pairs = per_node > 1 ? 2.0 : 1.0;
    return serial * double(size) / (2.0 * pairs) * (latency_s + pairs * pair / link_Bps);
}

// The largest pair of blocks 2i, 2i + 1 (size even).
double largest_pair(zip_algo_block_bytes_t bytes_of, const void *ctx, int size)
{
    double pair = 0.0;
    for (int p = 0; p + 1 < size; p += 2)
        pair = std::max(pair, double(bytes_of(ctx, p)) + double(bytes_of(ctx, p + 1)));
    return pair;
}

// The models of one call's blocks, their bytes scaled (1: raw; 1 / ratio: compressed).
struct Costs {
    int size;
    double link_Bps, latency_s;
    double largest, total;
    BruckTime bruck;
    // tuned's neighbor exchange by its pairs of blocks, and by twice the largest block (the
    // model the rule without a ratio set its margin against)
    double neighbor, neighbor_by_largest;
    double ring_at(double scale) const
    {
        return ring_cost(scale * largest, size, link_Bps, latency_s);
    }
    double bruck_at(double scale) const { return bruck.at(scale); }
};

// The ratio a call without one is taken at to see the data (where zip's schedule would
// win at it): smooth fields shrink 1.3-1.7x with the default codec.
constexpr double kProbeRatio = 1.5;

// What a message costs its ends beside its bytes: a send here and a receive at its peer, both
// on the cores that also code.
using chain_model::kMessageCost;
using chain_model::step_count;

// The messages a rank sends in zip's Bruck for blocks of at most `largest` bytes on `size` ranks
// (bruck_steps.hpp: a step's lengths, then its offsets in chunks of `chunk`; bruck.hpp, above
// kBruckStepsLargest: a message per block and one of lengths per step).
double bruck_messages(double largest, int size)
{
    if (largest > double(kBruckStepsLargest))
        return double(size - 1 + step_count(size));
    int chunk = 1;
    while (2.0 * chunk * largest <= double(kStepsChunkBytes))
        chunk *= 2;
    double messages = 0.0;
    for (int d = 1; d < size; d <<= 1)
        messages += 1.0 + double((std::min(d, size - d) + chunk - 1) / chunk);
    return messages;
}

// The schedule where a ratio is known (zip_algo_seen_t): zip's (the ring where it suits, else
// the faster of ring and Bruck), its wire shrunk by the ratio and no faster than its decoding,
// or Bruck's first step no sooner than the owner's frame; handed on unless that is 3 % ahead of
// tuned's best schedule raw (ring, Bruck or recursive doubling, neighbor exchange). Every model
// counts a microsecond per message at each end: zip's ring sends a block as up to four segments,
// where tuned's schedules send one message per step. Data that did not compress (ratio 1) go to
// tuned, whose neighbor exchange or Bruck gain where zip's ring pays latencies or waits for the
// largest of unequal blocks (simscale: 0.87-0.93x of tuned's best on random data).
int choose_by_ratio(const Costs &c, const zip_algo_agreed_t &agreed, bool ring_suits,
                    bool bruck_runs, double ratio)
{
    const double decode = agreed.decompress_Bps > 0.0 ? c.total / agreed.decompress_Bps : 0.0;
    const double encode = agreed.compress_Bps > 0.0 ? c.largest / agreed.compress_Bps : 0.0;
    const double steps = double(c.size - 1);
    const double message_steps = double(step_count(c.size));
    // A ring step forwards each segment as it comes, then decodes it, and posts the next step's
    // receives after the last: where the frames' wire is short, a step takes its segments'
    // decoding and messages on the core (simscale, 64 ranks, one per node, at 100 Gbit/s,
    // LULESH's 64 KiB blocks as four segments of ratio 65, a microsecond per message: 836 us,
    // 13 a step; where they are one segment, nodes of 32, 16 KiB of gauss at 25 Gbit/s: 503 us
    // compressed, 457 raw).
    const double segment = std::min(double(ring_segment_bytes(size_t(c.largest), 0)), c.largest);
    const double segments = c.largest > 0.0 ? std::ceil(c.largest / segment) : 1.0;
    const double segment_core =
        (agreed.decompress_Bps > 0.0 ? segment / agreed.decompress_Bps : 0.0) + 2.0 * kMessageCost;
    const double block_wire = c.largest / ratio / c.link_Bps;
    const double segment_wire = segment / ratio / c.link_Bps;
    const double ring_step = c.latency_s +
                             std::max(block_wire, (segments - 1.0) * segment_core + segment_wire) +
                             segment_core;
    const double zip_ring = std::max(steps * ring_step, decode);
    // Bruck's messages cost its core as its decoding does, beside the wire: where the wire is
    // long they hide behind it (simscale, 64 ranks one per node at 25 Gbit/s, CoMD's 64 KiB
    // blocks at ratio 1.13, 69 messages a rank: 1222 us, the wire alone 1196 by the model), where
    // it is short they add to the decoding (LULESH's at ratio 65: 339 us, 202 without message
    // costs).
    const double zip_bruck =
        std::max(c.bruck_at(1.0 / ratio),
                 decode + 2.0 * kMessageCost * bruck_messages(c.largest, c.size)) +
        encode;
    const bool bruck = !ring_suits && bruck_runs && zip_bruck < zip_ring;
    const double tuned = std::min({c.ring_at(1.0) + 2.0 * kMessageCost * steps,
                                   c.bruck_at(1.0) + 2.0 * kMessageCost * message_steps,
                                   c.neighbor + 2.0 * kMessageCost * double(c.size / 2)});
    if ((bruck ? zip_bruck : zip_ring) > 0.97 * tuned)
        return ZIP_ALLGATHERV_HAND_ON;
    return bruck ? ZIP_ALLGATHERV_BRUCK : ZIP_ALLGATHERV_RING;
}

// Without a ratio: where zip's schedules would still beat tuned's raw, or nearly.
int choose_unseen(const Costs &c, const zip_algo_agreed_t &agreed, bool bruck_runs)
{
    const double bruck = c.bruck_at(1.0);
    const double ring = c.ring_at(1.0);
    // tuned's neighbor exchange pays half the ring's latencies (a quarter where ranks share
    // nodes) for the same bytes. Where zip's faster schedule, raw, is predicted more than 8 %
    // slower, handed on: data that do not compress would lose that much, and compressed blocks
    // rarely make up for the latencies (simscale, 256 ranks in nodes of 32 at 10 Gbit/s, 16 /
    // 64 / 256 KiB blocks: zip's ring took 0.52 / 0.64 / 1.13x of tuned's time on gauss, 0.49 /
    // 0.74 / 0.93x on random data). 8 %, as this model puts the ring 2-5 % farther behind than
    // simscale does with 1 MiB blocks (1.02-1.06 for 1.00-1.01), where zip gains 1.29-1.49x.
    if (std::min(ring, bruck) > 1.08 * c.neighbor_by_largest)
        return ZIP_ALLGATHERV_HAND_ON;
    if (ring <= bruck)
        return ZIP_ALLGATHERV_RING;
    // Before its first step an owner codes its block's sample, which data that do not compress
    // never repay, where tuned's Bruck and recursive doubling start at once: where that costs
    // more than 3 % of the schedule (few ranks on a link near the codec's speed), handed on.
    const double sample = std::min(c.largest, double(kSampleBytes));
    if (agreed.compress_Bps > 0.0 && sample / agreed.compress_Bps > 0.03 * bruck)
        return ZIP_ALLGATHERV_HAND_ON;
    return bruck_runs ? ZIP_ALLGATHERV_BRUCK : ZIP_ALLGATHERV_HAND_ON;
}

} // namespace

} // namespace zipcoll

extern "C" int zip_algo_allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                   const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::allgatherv(t, codec, a, res));
}

extern "C" int zip_allgatherv_algorithm_parse(const char *name)
{
    if (name == nullptr || std::strcmp(name, "auto") == 0)
        return ZIP_ALLGATHERV_AUTO;
    if (std::strcmp(name, "ring") == 0)
        return ZIP_ALLGATHERV_RING;
    if (std::strcmp(name, "bruck") == 0)
        return ZIP_ALLGATHERV_BRUCK;
    if (std::strcmp(name, "bruck_blocks") == 0)
        return ZIP_ALLGATHERV_BRUCK_BLOCKS;
    if (std::strcmp(name, "bruck_steps") == 0)
        return ZIP_ALLGATHERV_BRUCK_STEPS;
    return -1;
}

// Where the ring suits it stays, even on blocks of unequal sizes where the model has Bruck 10 %
// ahead: its segments overlap the owner's codec with the wire and stream every block through
// each rank, where Bruck's first step waits for the whole frame and each later one for whole
// blocks (netemu, 6 ranks at 1 Gbit/s, 1-4 MiB per rank of gatherv-shaped blocks: Bruck took
// 1.08-1.19x the ring's time on smooth and random data, equal blocks 1.03-1.21x). Where the ring
// pays too many latencies, the faster of the two by the model, if every rank has a core of its
// own (netemu, 6 ranks on 2 cores at 10 Gbit/s, 64-256 KiB blocks, whose wire time is a fifth of
// what the calls took: Bruck 0.7-0.95x and the ring 0.5-1.0x of tuned's allgather(v), where the
// calls had been handed on); Bruck where its blocks go a message per step (bruck_steps.hpp), or
// where each block carries 8 latencies of wire time, as above 512 KiB it sends each block as a
// message of its own where tuned's Bruck and recursive doubling send one per step.
extern "C" int zip_algo_allgatherv_choose(zip_algo_block_bytes_t bytes_of, const void *ctx,
                                          int size, const zip_algo_agreed_t *agreed,
                                          double link_Bps, double latency_s, int pairs_serialise,
                                          double seen_ratio, int records)
{
    if (size <= 2 || bytes_of == nullptr)
        return ZIP_ALLGATHERV_RING;
    size_t total = 0, smallest = SIZE_MAX, largest = 0;
    for (int p = 0; p < size; ++p) {
        const size_t b = bytes_of(ctx, p);
        total += b;
        largest = std::max(largest, b);
        if (b > 0)
            smallest = std::min(smallest, b);
    }
    const bool ring_suits = zip_algo_ring_suits(total, size - 1, link_Bps, latency_s);
    // The ratio weighs only where the link and latency are known, as every model needs them.
    // Not over the TCP BTL: there zip's ring of segments, raw, was measured ahead of tuned's
    // best schedules, which move whole blocks (netemu, 8 ranks at 1 Gbit/s, 1-4 MiB of random
    // data per rank: 65-67 ms against tuned's best 74-82 at 1 MiB; handed on, zip took tuned's
    // time), so there the rules below, which keep the ring, stand.
    const bool known = seen_ratio > 0.0 && agreed != nullptr && link_Bps > 0.0 && latency_s > 0.0 &&
                       pairs_serialise == 0;
    if (ring_suits && !known)
        return ZIP_ALLGATHERV_RING;
    const bool own_cores = agreed != nullptr && agreed->ranks_per_core <= 1.0;
    if (!ring_suits && !own_cores)
        return ZIP_ALLGATHERV_HAND_ON;
    // Raw, each model stands for tuned's schedules of its kind too (its ring; its Bruck and
    // recursive doubling, which share a node's link as Bruck does): where compressing pays,
    // zip's faster schedule beats tuned's best.
    const int per_node = agreed != nullptr ? std::max(1, agreed->ranks_per_node) : 1;
    const zipcoll::Costs costs{size,
                               link_Bps,
                               latency_s,
                               double(largest),
                               double(total),
                               zipcoll::bruck_cost(bytes_of, ctx, size, per_node, link_Bps,
                                                   latency_s, pairs_serialise != 0),
                               zipcoll::neighbor_cost(zipcoll::largest_pair(bytes_of, ctx, size),
                                                      size, per_node, link_Bps, latency_s,
                                                      pairs_serialise != 0),
                               zipcoll::neighbor_cost(2.0 * double(largest), size, per_node,
                                                      link_Bps, latency_s, pairs_serialise != 0)};
    // Bruck where its blocks travel a message per step, or each carries 8 latencies of wire.
    const bool per_step = largest <= zipcoll::kBruckStepsLargest;
    const bool bruck_runs = per_step || double(smallest) / link_Bps >= 8.0 * latency_s;
    if (known)
        return zipcoll::choose_by_ratio(costs, *agreed, ring_suits, bruck_runs, seen_ratio);
    const int unseen = zipcoll::choose_unseen(costs, *agreed, bruck_runs);
    // A call that records what it moves, handed on for want of a ratio where one of
    // kProbeRatio would win, takes zip's path to see what the data do: a call that loses once,
    // where they do not shrink, and the calls after it weigh its ratio.
    if (unseen == ZIP_ALLGATHERV_HAND_ON && records != 0 && pairs_serialise == 0)
        return zipcoll::choose_by_ratio(costs, *agreed, ring_suits, bruck_runs,
                                        zipcoll::kProbeRatio);
    return unseen;
}

extern "C" double zip_algo_seen_ratio(const zip_algo_seen_t *seen)
{
    return seen != nullptr ? seen->ratio : 0.0;
}

extern "C" void zip_algo_seen_record(zip_algo_seen_t *seen, const zip_algo_result_t *res)
{
    if (res->gathered_raw == 0 || res->gathered_wire == 0) // nothing moved: nothing learnt
        return;
    const double ratio = double(res->gathered_raw) / double(res->gathered_wire);
    // Half the last call, half the ones before: fields that alternate keep a ratio between
    // theirs (and zip's path, as before these records), not the last one's alone.
    seen->ratio = seen->ratio > 0.0 ? 0.5 * (seen->ratio + ratio) : ratio;
    seen->handed_on = 0;
}

extern "C" void zip_algo_seen_chosen(zip_algo_seen_t *seen, int algorithm)
{
    if (algorithm != ZIP_ALLGATHERV_HAND_ON || zip_algo_seen_ratio(seen) == 0.0)
        return;
    if (++seen->handed_on >= ZIP_ALGO_SEEN_RECHECK)
        *seen = zip_algo_seen_t{};
}
