// Compressed reduce to a root, and scans, as a pipelined chain. Reduce: virtual ranks count
// from the root (v = rank - root mod p); rank v = p - 1 starts, every other rank receives the
// partial result of each segment from v + 1, reduces its own segment into it on the left and
// passes it on to v - 1; the root (v = 0) keeps it. So every element is
//     result = x_root op (x_root+1 op (... op x_root+p-1))          (ranks mod p)
// Scan and exscan: the chain runs from rank 0 up, and every rank keeps what it computes; rank i
// receives the prefix of ranks 0 .. i - 1 and sends on the prefix of 0 .. i:
//     scan(i)   = (...((x_0 op x_1) op x_2) ...) op x_i
//     exscan(i) = (...((x_0 op x_1) op x_2) ...) op x_i-1     (rank 0's is not written)
// which is Open MPI's linear scan and exscan (coll/base), element for element.
// Each hop sends a segment as a frame where it shrinks and decodes, reduces and encodes one
// segment while the next ones arrive, so the message crosses each link about once, as in
// coll/tuned's pipelined reduce, but compressed. (The ring reduce-scatter and gather before it
// carried 2 (p - 1) / p of the message through the root's link: netemu, 8 ranks, 1 Gbit/s,
// 0.77-0.88x of tuned's pipeline on smooth doubles, 0.37-0.53x on incompressible ones.)
#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>

#include "block_codec.hpp"
#include "chain_model.hpp"
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace
{

using zipcoll::keep_first;
using zipcoll::Task;

// Receives posted ahead of the segment a rank works on, and sends kept in flight.
constexpr size_t kWindow = 4;

// A chain of p ranks and S segments takes about S + p - 2 segment times: eight segments per hop
// keep the fill within an eighth of the whole, between a floor and 48 KiB: a raw 64 KiB segment
// is past the TCP BTL's eager limit and waits a round trip each (netemu, 8 ranks, 1 Gbit/s,
// 4 MiB of incompressible doubles: 64 KiB segments 78 ms, tuned's best 36). Sixteen per hop
// measured no better there (one round each, within the rounds' noise).
//
// The floor: a hop keeps kWindow segments in flight, so it streams only while they cover a
// latency, kWindow seg / R >= L + seg / R. 16 KiB (and the threshold) was the floor for every
// link until the chain filled too slowly at scale where 8 KiB would stream: simscale, 64 ranks at
// 1 Gbit/s and 30 us, 4 MiB of random doubles, 16 KiB segments 43.8 ms where tuned's pipeline
// of 8 KiB takes 39.5. On links where 8 KiB would not stream it stays at 16 KiB (10 Gbit/s,
// 30 us: 8 KiB segments took the same reduce of gauss from 1.25x to 1.00x of tuned's best, and
// in nodes of 32 from 1.21x to 0.75x). A frame, a codec call and a message are still worth 8
// KiB (fast codes 4 KiB of gauss at 1.51x and 3.1 GB/s). The threshold applies to the call
// (each rank's share of the vector), as to a bcast's message. Where ranks share cores every
// segment's message, codec call and reduction wait for a core, and 8 KiB lost (netemu, 8 ranks
// on 2 cores at 1 Gbit/s, 512 KiB, three rounds alternating: 9.4 KiB segments took 5.1-6.6 ms
// on gauss where 16 KiB took 4.2-5.1, 5.4-6.3 on random data against 5.3-5.8); bcast's segments
// grow there too.
constexpr size_t kSmallSegment = 8192, kMinSegment = 16384, kMaxSegment = 49152;

size_t segment_bytes(size_t bytes, int p, size_t elem_bytes, size_t floor)
{
    const size_t lo = floor > 0 ? std::min(floor, kMaxSegment) : kMinSegment;
    const size_t target = bytes / (8 * size_t(std::max(1, p - 1)));
    const size_t seg = std::clamp(target, lo, kMaxSegment);
    return std::max(elem_bytes, seg - seg % elem_bytes);
}

// The segments the cost model weighs (zip_algo_reduce_segment): 8-48 KiB in steps of about
// 1.5x, at most the rule's cap.
constexpr size_t kModelSegments[] = {8192, 12288, 16384, 24576, 32768, 49152};

// How much less than the rule's another segment's worst loss must be for it to be taken: the
// model leaves out the reduction's own speed and the data's ratio, so a near tie keeps the
// measured rule.
constexpr double kClearlyFaster = 0.97;

// The ratio the segment must also suit besides raw data: what a smooth field's doubles shrink
// by (allgatherv's choice assumes the same where it has not measured one).
constexpr double kCompressibleRatio = 1.5;

int mod(int a, int p)
{
    return ((a % p) + p) % p;
}

// What a chain leaves where: a reduce's result at its root; a scan's at every rank.
enum class ChainKind { Reduce, Scan, Exscan };

class Chain
{
  public:
    Chain(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_allreduce_args_t *a,
          ChainKind kind, int root, zip_algo_result_t *res)
        : t_(t), a_(a), res_(res), kind_(kind), out_(static_cast<char *>(a->buf)),
          mine_(a->contribution != nullptr ? static_cast<const char *>(a->contribution) : out_),
          from_(kind == ChainKind::Reduce
                    ? (mod(t->rank - root, t->size) + 1 < t->size ? mod(t->rank + 1, t->size) : -1)
                    : t->rank - 1),
          to_(kind == ChainKind::Reduce ? (t->rank != root ? mod(t->rank - 1, t->size) : -1)
              : t->rank + 1 < t->size   ? t->rank + 1
                                        : -1),
          seg_(a->segment != 0 ? std::max(a->reduce->elem_bytes,
                                          a->segment - a->segment % a->reduce->elem_bytes)
                               : segment_bytes(a->bytes, t->size, a->reduce->elem_bytes, 0)),
          count_((a->bytes + seg_ - 1) / seg_),
          hop_policy_(a->policy != nullptr ? zip_algo_reduce_hop_policy(a->policy, seg_)
                                           : zip_algo_policy_t{}),
          blocks_(codec, policy_to(a, a->policy != nullptr ? &hop_policy_ : nullptr, to_, seg_),
                  res)
    {
    }

    bool allocate()
    {
        const size_t recv_slots = from_ >= 0 ? kWindow : 0, send_slots = to_ >= 0 ? kWindow : 0;
        recv_ = zipcoll::raw_buffer(recv_slots * seg_);
        send_ = zipcoll::raw_buffer(send_slots * seg_);
        partial_ = zipcoll::raw_buffer(from_ >= 0 ? seg_ : 0);
        // A middle rank without a buffer of its own reduces each segment into a slot that stays
        // with its send (the glue's whole-message copy of the contribution cost a pass over
        // memory and an allocation as large as the message in every call); so does an exscan's,
        // whose buffer receives what arrived.
        const bool slots =
            from_ >= 0 && to_ >= 0 && (out_ == nullptr || kind_ == ChainKind::Exscan);
        if (slots)
            sums_ = zipcoll::raw_buffer(kSumSlots * seg_);
        return (recv_slots == 0 || (recv_ && partial_)) && (send_slots == 0 || send_) &&
               (!slots || sums_);
    }

    // Every segment is received (but at the chain's start) and sent (but at the root) even
    // after an error, so that no rank waits for a message that never comes; the first error
    // is returned.
    Task run()
    {
        int err = ZIP_ALGO_OK;
        for (size_t i = 0; i < std::min(count_, kWindow); ++i)
            err = keep_first(err, post_recv(i));
        for (size_t i = 0; i < count_; ++i) {
            const size_t off = i * seg_, len = std::min(seg_, a_->bytes - off);
            const char *segment = mine_ + off;
            if (from_ >= 0) {
                size_t got = 0;
                if (recvs_[i % kWindow] == nullptr ||
                    co_await zipcoll::wait(t_, &recvs_[i % kWindow], &got) != 0) {
                    err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
                } else {
                    // A raw segment is reduced from where it arrived; a frame is decoded first
                    // (an exscan's straight into its result where that does not hold mine).
                    const char *values = recv_slot(i);
                    char *decoded = kind_ == ChainKind::Exscan && out_ != nullptr && out_ != mine_
                                        ? out_ + off
                                        : partial_.get();
                    int rc = ZIP_ALGO_OK;
                    if (got != len) {
                        rc = blocks_.decode_into(recv_slot(i), got, {from_, decoded, len});
                        values = decoded;
                    }
                    err = keep_first(err, rc);
                    if (kind_ == ChainKind::Exscan) {
                        segment = exscan_step(i, off, len, values, segment, rc);
                    } else {
                        // The operator's inout = in op inout with what arrived as in (a
                        // reduce's partial of the ranks after this one, a scan's prefix before
                        // it), into the result's place (the root's or a scanning rank's buffer,
                        // else the segment's sum slot or this rank's own buffer) holding a copy
                        // of mine.
                        char *sum = out_ != nullptr ? out_ + off : sum_slot(i);
                        if (sum != segment)
                            copy_mine(sum, segment, len);
                        if (rc == ZIP_ALGO_OK)
                            a_->reduce->reduce(a_->reduce->ctx, values, sum, len);
                        segment = sum;
                    }
                }
                if (i + kWindow < count_)
                    err = keep_first(err, post_recv(i + kWindow));
            } else if (kind_ == ChainKind::Scan && out_ + off != segment) {
                copy_mine(out_ + off, segment, len); // rank 0's prefix is its own contribution
            }
            if (to_ >= 0) {
                if (sends_[i % kWindow] != nullptr &&
                    co_await zipcoll::wait(t_, &sends_[i % kWindow], nullptr) != 0)
                    err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
                err = keep_first(err, send(i, segment, len));
            }
        }
        for (auto &s : sends_)
            if (s != nullptr && co_await zipcoll::wait(t_, &s, nullptr) != 0)
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
        co_return err;
    }

  private:
    static zipcoll::BlockPolicy policy_to(const zip_allreduce_args_t *a,
                                          const zip_algo_policy_t *hop, int to, size_t seg)
    {
        zipcoll::BlockPolicy p;
        p.elem_type = a->elem_type;
        // Shared memory beats any codec: a hop to a peer on this node goes raw.
        p.try_compress = to >= 0 && (a->peer_on_node == nullptr || !a->peer_on_node[to]);
        // Whole segments may shrink; a last one shorter than both goes raw.
        p.threshold = std::min(a->threshold, seg);
        p.policy = hop;
        return p;
    }

    // An exscan's rank: what arrived (the prefix before it) is its result, and that op mine
    // goes on; the sum is taken first, since in place mine is where the result goes. Returns
    // the segment to send (nullptr at the last rank, which sends none).
    const char *exscan_step(size_t i, size_t off, size_t len, const char *prefix,
                            const char *segment, int rc)
    {
        const char *next = nullptr;
        if (to_ >= 0) {
            char *sum = sum_slot(i);
            copy_mine(sum, segment, len);
            if (rc == ZIP_ALGO_OK)
                a_->reduce->reduce(a_->reduce->ctx, prefix, sum, len);
            next = sum;
        }
        if (rc == ZIP_ALGO_OK && out_ + off != prefix)
            std::memcpy(out_ + off, prefix, len);
        return next;
    }

    void copy_mine(char *to, const char *from, size_t len) const
    {
        if (a_->reduce->copy != nullptr)
            a_->reduce->copy(a_->reduce->ctx, to, from, len);
        else
            std::memcpy(to, from, len);
    }

    char *recv_slot(size_t i) { return recv_.get() + (i % kWindow) * seg_; }
    // Segment i is reduced before the send of i - kWindow is waited for (so the reduction
    // overlaps that send), hence one slot more than sends in flight.
    static constexpr size_t kSumSlots = kWindow + 1;
    char *sum_slot(size_t i) { return sums_.get() + (i % kSumSlots) * seg_; }

    int post_recv(size_t i)
    {
        if (from_ < 0)
            return ZIP_ALGO_OK;
        const size_t len = std::min(seg_, a_->bytes - i * seg_);
        return t_->irecv(t_->ctx, recv_slot(i), len, from_, a_->tag, &recvs_[i % kWindow]) != 0
                   ? ZIP_ALGO_ERR_TRANSPORT
                   : ZIP_ALGO_OK;
    }

    // A frame is never longer than its raw segment; raw, the segment goes from the buffer.
    int send(size_t i, const char *segment, size_t len)
    {
        // Only read: a contribution the caller handed over as const may go as it is.
        const zipcoll::Transfer block{to_, const_cast<char *>(segment), len};
        const char *out = nullptr;
        size_t out_len = 0;
        blocks_.encode(block, send_.get() + (i % kWindow) * seg_, &out, &out_len);
        res_->bytes_in += len;
        res_->bytes_out += out_len;
        return t_->isend(t_->ctx, out, out_len, to_, a_->tag, &sends_[i % kWindow]) != 0
                   ? ZIP_ALGO_ERR_TRANSPORT
                   : ZIP_ALGO_OK;
    }

    const zip_transport_t *t_;
    const zip_allreduce_args_t *a_;
    zip_algo_result_t *res_;
    ChainKind kind_;
    char *out_;        // the result's place; nullptr off a reduce's root with a contribution apart
    const char *mine_; // this rank's contribution
    int from_, to_;
    size_t seg_, count_;
    zip_algo_policy_t hop_policy_; // before blocks_, which points to it
    zipcoll::BlockCodec blocks_;
    zipcoll::RawBuffer recv_, send_, partial_, sums_;
    zip_req_t recvs_[kWindow] = {}, sends_[kWindow] = {};
};

Task run_chain(const zip_transport_t *t, const zip_codec_ops_t *codec,
               const zip_allreduce_args_t *a, ChainKind kind, int root, zip_algo_result_t *res)
{
    Chain chain(t, codec, a, kind, root, res);
    if (!chain.allocate())
        co_return ZIP_ALGO_ERR_NOMEM;
    co_return co_await chain.run();
}

Task chain_reduce(const zip_transport_t *t, const zip_codec_ops_t *codec,
                  const zip_allreduce_args_t *a, int root, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if (a == nullptr || a->reduce == nullptr || a->reduce->reduce == nullptr ||
        a->reduce->elem_bytes == 0 || a->bytes % a->reduce->elem_bytes != 0 || root < 0 ||
        root >= t->size ||
        // Off the root a contribution apart needs no buffer; the root always writes one.
        (a->bytes > 0 && a->buf == nullptr && (a->contribution == nullptr || t->rank == root)))
        co_return ZIP_ALGO_ERR_ARG;
    if (a->bytes == 0)
        co_return ZIP_ALGO_OK;
    if (t->size == 1) { // the root's own contribution is the result
        if (a->contribution != nullptr && a->contribution != a->buf)
            std::memcpy(a->buf, a->contribution, a->bytes);
        co_return ZIP_ALGO_OK;
    }
    co_return co_await run_chain(t, codec, a, ChainKind::Reduce, root, res);
}

// An exscan's rank 0 writes no result and may pass no buffer; every other rank needs one.
Task chain_scan(const zip_transport_t *t, const zip_codec_ops_t *codec,
                const zip_allreduce_args_t *a, bool exclusive, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    const bool writes = !exclusive || t->rank > 0;
    if (a == nullptr || a->reduce == nullptr || a->reduce->reduce == nullptr ||
        a->reduce->elem_bytes == 0 || a->bytes % a->reduce->elem_bytes != 0 ||
        (a->bytes > 0 &&
         ((writes && a->buf == nullptr) || (a->buf == nullptr && a->contribution == nullptr))))
        co_return ZIP_ALGO_ERR_ARG;
    if (a->bytes == 0)
        co_return ZIP_ALGO_OK;
    if (t->size == 1) { // a scan's only prefix is the rank's own; an exscan has none
        if (!exclusive && a->contribution != nullptr && a->contribution != a->buf)
            std::memcpy(a->buf, a->contribution, a->bytes);
        co_return ZIP_ALGO_OK;
    }
    co_return co_await run_chain(t, codec, a, exclusive ? ChainKind::Exscan : ChainKind::Scan, 0,
                                 res);
}

} // namespace

extern "C" int zip_algo_reduce(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                               const zip_allreduce_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(chain_reduce(t, codec, a, root, res));
}

extern "C" zip_algo_call_t *zip_algo_ireduce(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                             int root, const zip_allreduce_args_t *a,
                                             zip_algo_result_t *res)
{
    return zip_algo_call_new(chain_reduce(t, codec, a, root, res));
}

extern "C" int zip_algo_scan(const zip_transport_t *t, const zip_codec_ops_t *codec, bool exclusive,
                             const zip_allreduce_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(chain_scan(t, codec, a, exclusive, res));
}

extern "C" zip_algo_call_t *zip_algo_iscan(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                           bool exclusive, const zip_allreduce_args_t *a,
                                           zip_algo_result_t *res)
{
    return zip_algo_call_new(chain_scan(t, codec, a, exclusive, res));
}

// The chain's last rank starts a segment p - 2 hops before the root can finish its first, so the
// call takes about S + p - 2 segment times for S segments, plus p - 1 latencies. With fewer than
// 2.5 segments per hop, tuned's rabenseifner (log p steps) or its pipeline of smaller segments
// is faster: simscale with policy always, gauss, 30 us latency at 10 Gbit/s, best tuned / zip
// at S / (p - 2) = 1.0, 1.1, 2.0, 2.1: 0.58, 0.76, 0.84, 0.93; from 2.7 up zip wins (1.02-1.47;
// docs/scale.md, "Reduce"). p <= 2: no hop to fill.
extern "C" size_t zip_algo_reduce_segment_floor(double link_Bps, double latency_s,
                                                double ranks_per_core)
{
    if (!(link_Bps > 0.0) || !(latency_s > 0.0) || ranks_per_core > 1.0)
        return kMinSegment;
    const double in_flight = double(kWindow - 1) * double(kSmallSegment) / link_Bps;
    return in_flight >= latency_s ? kSmallSegment : kMinSegment;
}

extern "C" zip_algo_policy_t zip_algo_reduce_hop_policy(const zip_algo_policy_t *call,
                                                        size_t segment)
{
    zip_algo_policy_t p = call != nullptr ? *call : zip_algo_policy_t{};
    if (segment == 0 || !(p.speeds.compress_Bps > 0.0))
        return p;
    // The messages' time per byte joins the encoder's: 1 / C' = 1 / C + 2 m / segment.
    const double messages = 2.0 * zipcoll::chain_model::kMessageCost / double(segment);
    p.speeds.compress_Bps = 1.0 / (1.0 / p.speeds.compress_Bps + messages);
    return p;
}

// A hop that sends raw receives, reduces and sends a segment; one that compresses also decodes
// and encodes it, on the same core, while the messages cost both the same. Where that core's
// time at the best ratio is not below the raw segment's wire, compressing cannot pay, and zip's
// raw chain is slower than tuned's pipeline (simscale, 256 ranks one per node at 25 Gbit/s,
// 16 MiB of miniFE's data at its own codec speeds, 6.6 / 13.2 GB/s, a microsecond per message:
// tuned's pipeline of 16 KiB 7.78 ms, zip's chain raw 8.49, compressed at ratio 1.26 9.60).
extern "C" bool zip_algo_reduce_may_compress(const zip_algo_policy_t *call, size_t segment)
{
    if (call == nullptr || call->mode != ZIP_POLICY_AUTO || !(call->speeds.link_Bps > 0.0))
        return true;
    const zip_algo_policy_t hop = zip_algo_reduce_hop_policy(call, segment);
    return zip_policy_decide(ZIP_POLICY_AUTO, &hop.speeds, segment, 0, 0.0, hop.shape) !=
           ZIP_VERDICT_LINK_FASTER;
}

extern "C" bool zip_algo_reduce_suits(size_t bytes, int size, size_t elem_bytes,
                                      size_t segment_floor)
{
    if (size <= 2)
        return true;
    const size_t seg = segment_bytes(bytes, size, std::max<size_t>(1, elem_bytes), segment_floor);
    const size_t segments = (bytes + seg - 1) / seg;
    return 2 * segments >= 5 * size_t(size - 2);
}

// Open MPI's scans move the whole message per step: the linear one p - 1 times in turn, recursive
// doubling ceil(log2 p) times (each step an exchange both ways, which a full-duplex link moves in
// the time of one way), so against the better of them the chain's fill of p - 2 segments and its
// p - 1 latencies may be far longer than a reduce's rule allows (simscale, 4 MiB of gauss at
// 10 Gbit/s and 2 us, one rank per node: 8.2x tuned's recursive doubling at 64 ranks, 3.1x at
// 1024, where a reduce's rule would have handed the call on from 128 ranks; docs/scale.md,
// "Scan"). The model leaves out the reductions, which the chain overlaps and doubling does not.
extern "C" bool zip_algo_scan_suits(size_t bytes, int size, size_t elem_bytes, size_t segment_floor,
                                    double link_Bps, double latency_s, double share)
{
    if (size <= 2)
        return true;
    if (!(link_Bps > 0.0) || !(latency_s > 0.0))
        return zip_algo_reduce_suits(bytes, size, elem_bytes, segment_floor);
    const size_t seg = segment_bytes(bytes, size, std::max<size_t>(1, elem_bytes), segment_floor);
    const double segments = double((bytes + seg - 1) / seg);
    const double chain =
        (segments + double(size - 2)) * double(seg) / link_Bps + double(size - 1) * latency_s;
    int steps = 0;
    while ((1 << steps) < size)
        ++steps;
    const double doubling = double(steps) * (double(bytes) / link_Bps + latency_s);
    return chain < share * doubling;
}

extern "C" zip_scan_route_t zip_algo_scan_route(bool link_faster, bool may_compress, bool own_core,
                                                size_t bytes, int size, size_t elem_bytes,
                                                size_t segment_floor, double link_Bps,
                                                double latency_s)
{
    const auto suits = [&](double share) {
        return zip_algo_scan_suits(bytes, size, elem_bytes, segment_floor, link_Bps, latency_s,
                                   share);
    };
    if (!link_faster && may_compress)
        return suits(1.0) ? ZIP_SCAN_CHAIN : ZIP_SCAN_HAND_ON_SLOWER;
    return size >= 3 && own_core && suits(ZIP_SCAN_RAW_SHARE) ? ZIP_SCAN_CHAIN_RAW
                                                              : ZIP_SCAN_HAND_ON_LINK_FASTER;
}

// Each hop of the chain receives a segment, decodes it where it came as a frame, reduces it,
// encodes it and sends it, all in turn on its one core: the codings and the reduction add up
// (the reduction reads two segments and writes one, about what a copy on the node costs).
// Where the rule's eight segments per hop leave a long fill (64 ranks one per node at 1 Gbit/s,
// 16 MiB: 33 KiB segments, 154 ms of random doubles in simscale, tuned's pipeline of 8 KiB 140)
// the chain's model, which prices fill, window, messages and codings, picks the segment. It
// cannot know the ratio (each hop samples its own partial sums), and the ratio moves the best
// segment: at 10 Gbit/s and 30 us, 64 ranks, 16 MiB, 16 KiB segments are the fastest raw and
// lose 10 % on doubles that shrink by half, whose shorter wire leaves the receive window
// waiting on the latency (simscale: gauss 1.46x of tuned's best with the rule's 33 KiB, 1.35x
// with 16 KiB). So each segment is weighed by its worst loss against the best one for raw
// data and for data of ratio kCompressibleRatio, and the least worst loss is taken where it
// beats the rule's by kClearlyFaster. Where ranks share cores the model does not price their
// waiting for a core, and the rule stays (netemu, 8 ranks on 2 cores: fewer, larger segments
// measured faster).
extern "C" size_t zip_algo_reduce_segment(size_t bytes, int size, size_t elem_bytes,
                                          size_t segment_floor, double link_Bps, double latency_s,
                                          const zip_algo_agreed_t *agreed)
{
    namespace cm = zipcoll::chain_model;
    const size_t elem = std::max<size_t>(1, elem_bytes);
    const size_t rule = segment_bytes(bytes, size, elem, segment_floor);
    if (bytes == 0 || size <= 1 || agreed == nullptr || !(link_Bps > 0.0) || !(latency_s > 0.0) ||
        agreed->ranks_per_core > 1.0)
        return rule;
    const size_t lo = segment_floor > 0 ? std::min(segment_floor, kMaxSegment) : kMinSegment;
    size_t candidates[std::size(kModelSegments) + 1] = {rule};
    size_t n = 1;
    for (size_t seg : kModelSegments) {
        seg -= seg % elem;
        if (seg >= lo && seg <= kMaxSegment && seg != rule)
            candidates[n++] = seg;
    }
    // predicted[r][i]: candidate i's time with ratio kRatios[r].
    constexpr double kRatios[] = {1.0, kCompressibleRatio};
    double predicted[std::size(kRatios)][std::size(candidates)] = {};
    double fastest[std::size(kRatios)] = {};
    for (size_t r = 0; r < std::size(kRatios); ++r) {
        zip_bcast_model_t in{};
        in.latency_s = latency_s;
        in.link_Bps = link_Bps;
        in.compress_Bps = agreed->compress_Bps;
        in.decompress_Bps = agreed->decompress_Bps;
        in.ratio = kRatios[r];
        in.ranks_per_node = agreed->ranks_per_node;
        in.local_link_Bps = agreed->link_Bps[ZIP_PEER_LOCAL];
        in.chain_local_share = agreed->chain_local_share;
        const cm::Model m(in);
        for (size_t i = 0; i < n; ++i) {
            const double seg = double(candidates[i]);
            const double core = m.coding(seg, m.C) + m.coding(seg, m.D) +
                                m.coding(seg, m.local_beta) + 2.0 * cm::kMessageCost;
            predicted[r][i] = cm::chain_time(m, double(bytes), size, seg, core, double(kWindow));
            fastest[r] = i == 0 ? predicted[r][i] : std::min(fastest[r], predicted[r][i]);
        }
    }
    const auto worst_loss = [&](size_t i) {
        double worst = 0.0;
        for (size_t r = 0; r < std::size(kRatios); ++r)
            worst = std::max(worst, predicted[r][i] / fastest[r]);
        return worst;
    };
    size_t best = 0;
    double best_loss = worst_loss(0) * kClearlyFaster;
    for (size_t i = 1; i < n; ++i) {
        const double loss = worst_loss(i);
        if (loss < best_loss) {
            best = i;
            best_loss = loss;
        }
    }
    return candidates[best];
}
