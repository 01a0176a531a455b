// Compressed broadcast: the root compresses each segment once, every interior rank forwards
// the compressed segment as soon as it arrives and only then decodes its own copy, so codec
// work on one rank overlaps network transfer on the next.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "bcast.hpp"
#include "block_codec.hpp"
#include "task.hpp"
#include "tree.hpp"
#include "zip_algo.h"

namespace
{

using zipcoll::Task;
using zipcoll::TreeNode;

using zipcoll::kChainRecvWindow;

// Frames being sent live in a ring of this many segment-sized slots: a slot is reused once the
// sends of the segment that used it have completed. This bounds both the staging memory
// (kSlots segments, not the whole message) and the number of sends in flight.
constexpr size_t kSlots = 8;

struct Segments {
    size_t seg;
    size_t count;
    size_t bytes;
    size_t offset(size_t i) const { return i * seg; }
    size_t length(size_t i) const { return std::min(seg, bytes - i * seg); }
};

int first_error(int current, int rc)
{
    return current != 0 ? current : rc;
}

// The sends of the last kSlots segments, one group per ring slot.
class SendRing
{
  public:
    SendRing(const zip_transport_t *t, size_t fanout) : t_(t), groups_(kSlots)
    {
        for (auto &g : groups_)
            g.reserve(fanout);
    }

    // Makes slot `segment % kSlots` free: waits for the sends of the segment that used it.
    Task reclaim(size_t segment) { return wait_group(groups_[segment % kSlots]); }

    // Sends one segment (frame or raw) to every child.
    int forward(const TreeNode &node, size_t segment, const char *data, size_t len, size_t raw_len,
                int tag, zip_algo_result_t *res)
    {
        auto &group = groups_[segment % kSlots];
        for (int child : node.children) {
            zip_req_t req = nullptr;
            if (t_->isend(t_->ctx, data, len, child, tag, &req) != 0)
                return ZIP_ALGO_ERR_TRANSPORT;
            group.push_back(req);
            res->bytes_in += raw_len;
            res->bytes_out += len;
        }
        return ZIP_ALGO_OK;
    }

    Task drain()
    {
        int err = ZIP_ALGO_OK;
        for (auto &g : groups_)
            err = first_error(err, co_await wait_group(g));
        co_return err;
    }

  private:
    Task wait_group(std::vector<zip_req_t> &group)
    {
        int err = ZIP_ALGO_OK;
        for (auto &r : group)
            if (co_await zipcoll::wait(t_, &r, nullptr) != 0)
                err = first_error(err, ZIP_ALGO_ERR_TRANSPORT);
        group.clear();
        co_return err;
    }

    const zip_transport_t *t_;
    std::vector<std::vector<zip_req_t>> groups_;
};

char *slot_of(char *staging, const Segments &sg, size_t segment)
{
    return staging + (segment % kSlots) * sg.seg;
}

Task root_side(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_bcast_args_t *a,
               const TreeNode &node, const Segments &sg, char *staging, zip_algo_result_t *res)
{
    char *buf = static_cast<char *>(a->buf);
    bool compressing = a->try_compress && codec != nullptr && staging != nullptr;
    if (compressing) {
        const zip_verdict_t pre = zipcoll::pre_verdict(a->policy, sg.bytes, ZIP_TRANSFER_PIPELINED);
        if (pre != ZIP_VERDICT_COMPRESS) {
            res->verdict = pre; // never, or a link faster than the codec: no codec work
            compressing = false;
        }
    }
    SendRing ring(t, node.children.size());
    int err = ZIP_ALGO_OK;

    for (size_t i = 0; i < sg.count && err == ZIP_ALGO_OK; ++i) {
        const size_t off = sg.offset(i), len = sg.length(i);
        err = co_await ring.reclaim(i);
        const char *out = buf + off;
        size_t out_len = len;
        if (compressing && len > 1) {
            char *slot = slot_of(staging, sg, i);
            size_t frame_len = 0;
            const int rc = codec->compress(codec->ctx, a->elem_type, buf + off, len, slot, len - 1,
                                           &frame_len);
            if (rc == 0 && frame_len < len) {
                out = slot;
                out_len = frame_len;
                res->compressed = 1;
            }
            // The first segment is the sample that decides for the rest.
            if (i == 0) {
                res->verdict = zipcoll::sample_verdict(a->policy, rc, frame_len, len, sg.bytes,
                                                       ZIP_TRANSFER_PIPELINED);
                compressing = res->verdict == ZIP_VERDICT_COMPRESS;
            }
        }
        if (err == ZIP_ALGO_OK)
            err = ring.forward(node, i, out, out_len, len, a->tag, res);
        res->gathered_raw += len;
        res->gathered_wire += out_len;
    }
    co_return first_error(err, co_await ring.drain());
}

Task leaf_or_interior_side(const zip_transport_t *t, const zip_codec_ops_t *codec,
                           const zip_bcast_args_t *a, const TreeNode &node, const Segments &sg,
                           char *staging, zip_algo_result_t *res)
{
    char *buf = static_cast<char *>(a->buf);
    std::vector<zip_req_t> recvs(sg.count, nullptr);
    SendRing ring(t, node.children.size());

    auto post = [&](size_t i) {
        return t->irecv(t->ctx, buf + sg.offset(i), sg.length(i), node.parent, a->tag, &recvs[i]);
    };
    size_t posted = 0;
    for (; posted < std::min(kChainRecvWindow, sg.count); ++posted) {
        if (post(posted) != 0) {
            for (size_t j = 0; j < posted; ++j)
                co_await zipcoll::wait(t, &recvs[j], nullptr);
            co_return ZIP_ALGO_ERR_TRANSPORT;
        }
    }

    int err = ZIP_ALGO_OK;
    for (size_t i = 0; i < sg.count; ++i) {
        size_t got = 0;
        if (co_await zipcoll::wait(t, &recvs[i], &got) != 0) {
            // The stream from the parent is broken; drain what is posted and give up.
            for (size_t j = i + 1; j < posted; ++j)
                co_await zipcoll::wait(t, &recvs[j], nullptr);
            co_await ring.drain();
            co_return ZIP_ALGO_ERR_TRANSPORT;
        }
        if (posted < sg.count) {
            if (post(posted) != 0)
                err = first_error(err, ZIP_ALGO_ERR_TRANSPORT);
            else
                ++posted;
        }
        const size_t off = sg.offset(i), len = sg.length(i);
        res->gathered_raw += len;
        res->gathered_wire += std::min(got, len);
        err = first_error(err, co_await ring.reclaim(i));
        if (got == len) {
            err = first_error(err, ring.forward(node, i, buf + off, len, len, a->tag, res));
            continue;
        }
        // A frame landed in our own slot of the user buffer: move it to a ring slot so it can
        // be forwarded while we decode into the user buffer. (A leaf has a single slot.)
        res->compressed = 1;
        char *frame = node.children.empty() ? staging : slot_of(staging, sg, i);
        std::memcpy(frame, buf + off, got);
        err = first_error(err, ring.forward(node, i, frame, got, len, a->tag, res));
        size_t raw_len = 0;
        const int rc =
            codec ? codec->decompress(codec->ctx, frame, got, buf + off, len, &raw_len) : 1;
        if (rc != 0 || raw_len != len)
            err = first_error(err, ZIP_ALGO_ERR_CODEC);
    }
    // A failed post leaves later segments unreceived; the error already says so.
    co_return first_error(err, co_await ring.drain());
}

} // namespace

// A binomial tree sends the whole message through the root's port once per child; a chain
// sends it once per port, which is what a bandwidth-bound link wants, but only pays with a
// segment per rank to pipeline. Mid-sized messages therefore get smaller segments: 4 ranks at
// 1 Gbit/s, 16-64 KiB of incompressible doubles, 32 KiB segments (binomial) took 0.71-0.73x
// the time of tuned's scatter-allgather, 4 KiB segments (chain) 1.27-1.42x less. The floor of
// 2 KiB keeps a segment worth a message and a frame (8 ranks, 16 KiB: 2 KiB segments 0.75-0.80x
// of scatter-allgather, 4 KiB ones, too few for a chain, 0.58-0.65x).
// A chain of P ranks and S segments takes S + P - 1 segment times, so one segment per rank
// costs up to twice the wire time: segments shrink to four per rank, while that leaves them
// kChainSegment or more (simscale, 4 MiB at 1 Gbit/s against the best tuned configuration:
// 0.79-1.20x -> 1.08-1.62x at 64 ranks, random and smooth data; at 10 Gbit/s 64 ranks 0.91-1.23x
// -> 1.15-1.42x; at 8 ranks 256 KiB 0.81-1.21x -> 1.17-1.70x). The model charges nothing per
// message, and a rank that shares its core with others pays each message's send, receive and
// network stack on a share of a core: on netemu, 8 ranks on 2 cores, 256 KiB against tuned's
// pipeline of 32 KiB segments, 8 KiB segments took 0.69-0.91x its time, 16 KiB 0.90-1.01x and
// 32 KiB 0.96-1.41x (docs/performance.md). So the floor grows with the ranks per core, up to
// kSharedChainSegment, whose frame still fits the TCP BTL's 64 KiB eager limit.
constexpr size_t kChainSegment = 8192, kSharedChainSegment = 32768;

extern "C" size_t zip_bcast_segment_bytes(size_t bytes, int ranks, size_t largest,
                                          double ranks_per_core)
{
    const size_t cap = zipcoll::segment_cap(largest);
    const size_t p = ranks > 0 ? size_t(ranks) : 1;
    const auto round8 = [](size_t b) { return (b + 7) & ~size_t(7); };
    const size_t floor =
        ranks_per_core > 1.0
            ? round8(size_t(std::min(double(kSharedChainSegment), kChainSegment * ranks_per_core)))
            : kChainSegment;
    // One segment per rank at least (down to the minimum), and four per rank while segments stay
    // at the floor or more.
    const size_t one_per_rank =
        std::max<size_t>(ZIP_BCAST_MIN_SEGMENT, round8((bytes + p - 1) / p));
    const size_t four_per_rank = round8((bytes + 4 * p - 1) / (4 * p));
    const size_t seg = std::max(four_per_rank, std::min(floor, one_per_rank));
    return std::min(cap, seg);
}

namespace
{

// The whole broadcast; its locals (segments, tree node, staging) live in the coroutine frame
// for as long as the call runs, blocking or not.
Task bcast(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_bcast_args_t *a,
           zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if (a->bytes == 0 || t->size <= 1)
        co_return ZIP_ALGO_OK;
    if (a->buf == nullptr || a->root < 0 || a->root >= t->size)
        co_return ZIP_ALGO_ERR_ARG;

    if (a->topology == ZIP_BCAST_SCATTER_ALLGATHER)
        co_return co_await zipcoll::scatter_allgather_bcast(t, codec, a, res);

    // The segment every rank cuts: the plan's (the cost model's, computed by every rank from the
    // same agreed values), else the rule's; either way the same on every rank, since a receiver
    // posts each segment at its raw length.
    Segments sg;
    sg.seg = a->chain_segment != 0
                 ? std::min(zipcoll::segment_cap(a->chain_segment),
                            zipcoll::segment_cap(a->segment_bytes))
                 : zip_bcast_segment_bytes(a->bytes, t->size, a->segment_bytes, 0.0);
    sg.bytes = a->bytes;
    sg.count = (a->bytes + sg.seg - 1) / sg.seg;

    int topology = a->topology;
    if (topology == ZIP_BCAST_AUTO)
        topology = sg.count >= size_t(t->size) ? ZIP_BCAST_CHAIN : ZIP_BCAST_BINOMIAL;
    const TreeNode node = topology == ZIP_BCAST_CHAIN
                              ? zipcoll::chain_node(t->rank, t->size, a->root)
                              : zipcoll::binomial_node(t->rank, t->size, a->root);

    const bool is_root = t->rank == a->root;
    // Frames are never longer than their raw segment. Allocated before anything is posted so
    // that a failure leaves no request behind.
    zipcoll::RawBuffer staging;
    if (!is_root || a->try_compress) {
        const size_t slots = (!is_root && node.children.empty()) ? 1 : kSlots;
        const size_t need = std::min(a->bytes, slots * sg.seg);
        staging = zipcoll::raw_buffer(need);
        if (!staging)
            co_return ZIP_ALGO_ERR_NOMEM;
    }
    // std::bad_alloc from the request vectors ends the task with ZIP_ALGO_ERR_NOMEM. (No
    // co_await inside ?: here: GCC 12 miscompiles it, running the wrong branch.)
    if (is_root)
        co_return co_await root_side(t, codec, a, node, sg, staging.get(), res);
    co_return co_await leaf_or_interior_side(t, codec, a, node, sg, staging.get(), res);
}

} // namespace

extern "C" int zip_algo_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                              const zip_bcast_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(bcast(t, codec, a, res));
}

extern "C" zip_algo_call_t *zip_algo_ibcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                            const zip_bcast_args_t *a, zip_algo_result_t *res)
{
    return zip_algo_call_new(bcast(t, codec, a, res));
}
