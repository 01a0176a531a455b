#include "ring.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "exchange.hpp"

namespace zipcoll
{

size_t ring_segment_bytes(size_t block, size_t threshold)
{
    const size_t lo = std::max<size_t>(16384, threshold), hi = std::max<size_t>(49152, lo);
    const size_t seg = std::clamp(block / 4, lo, hi);
    return std::max<size_t>(64, seg - seg % 64);
}

int RingAllgather::prepare(const zip_transport_t *t, const BlockPolicy &policy,
                           const zip_block_t *blocks, int own, int tag, char *const *slots)
{
    size_t largest = 0;
    t_ = t;
    own_ = own;
    tag_ = tag;
    next_ = (t->rank + 1) % t->size;
    prev_ = (t->rank + t->size - 1) % t->size;
    // Measured on netemu, 8 ranks, 1-4 MiB of random data: at 10 Gbit/s raw segments took
    // 1.1-1.25x tuned's ring and whole blocks 0.9-1.03x; at 1 Gbit/s whole blocks took 1.1-1.15x
    // the segments (store and forward at each hop).
    whole_when_raw_ = policy.policy != nullptr && policy.policy->speeds.link_Bps >= kFastLinkBps;
    try {
        blocks_.resize(size_t(t->size));
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    for (int b = 0; b < t->size; ++b) {
        GatherBlock &x = blocks_[size_t(b)];
        const int rc = place_gather_block(t, policy, blocks[b], b == own, &x);
        if (rc != ZIP_ALGO_OK)
            return rc;
        all_plain_ = all_plain_ && x.plain;
        largest = std::max(largest, x.plain ? 0 : x.block.bytes);
    }
    segment_ = ring_segment_bytes(largest, policy.threshold);
    size_t most = 1;
    for (const Block &x : blocks_)
        most = std::max(most, segments(x));
    try {
        for (auto &r : sends_)
            r.assign(most, nullptr);
        receives_.assign(most, nullptr);
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    if (slots != nullptr) {
        slot_[0] = slots[0];
        slot_[1] = slots[1];
        return ZIP_ALGO_OK;
    }
    owned_ = raw_buffer(2 * largest);
    slot_[0] = owned_.get();
    slot_[1] = owned_.get() + largest;
    return largest != 0 && !owned_ ? ZIP_ALGO_ERR_NOMEM : ZIP_ALGO_OK;
}

int RingAllgather::block_of_step(int k) const
{
    return ((own_ - k - 1) % t_->size + t_->size) % t_->size;
}

size_t RingAllgather::segments(const Block &b) const
{
    if (b.block.bytes == 0)
        return 0;
    return b.plain ? 1 : (b.block.bytes + segment_ - 1) / segment_;
}

size_t RingAllgather::segment_bytes(const Block &b, size_t j) const
{
    return b.plain ? b.block.bytes : std::min(segment_, b.block.bytes - j * segment_);
}

bool RingAllgather::may_come_whole(const Block &b) const
{
    return !b.plain && segments(b) > 1;
}

int RingAllgather::post_recv(const Block &b, size_t j, zip_req_t *req)
{
    // The first receive of a block that may come whole has room for all of it.
    const size_t room = j == 0 && may_come_whole(b) ? b.block.bytes : segment_bytes(b, j);
    const int rc = b.plain ? post_as_is(t_, b.block, prev_, tag_, false, req)
                           : t_->irecv(t_->ctx, b.bytes + j * segment_, room, prev_, tag_, req);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

int RingAllgather::post_send(const Block &b, size_t j, const char *out, size_t len, zip_req_t *req,
                             zip_algo_result_t *res)
{
    if (!b.plain) {
        res->bytes_in += len == b.block.bytes ? len : segment_bytes(b, j);
        res->bytes_out += len;
    }
    const int rc = b.plain ? post_as_is(t_, b.block, next_, tag_, true, req)
                           : t_->isend(t_->ctx, out, len, next_, tag_, req);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

Task RingAllgather::run(BlockCodec &coder, zip_algo_result_t *res)
{
    const int steps = t_->size - 1;
    int err = ZIP_ALGO_OK;
    // Round 0: the own block, each segment compressed (or raw when that does not pay) into
    // slot 0. On a fast link, a block whose first segment says compressing does not pay goes
    // whole instead: one message per hop, as an uncompressed ring sends it.
    const Block &own = blocks_[size_t(own_)];
    size_t raw = own.block.bytes, wire = 0;
    for (size_t j = 0; j < segments(own); ++j) {
        const char *out = own.bytes + j * segment_;
        size_t len = segment_bytes(own, j);
        if (!own.plain) {
            coder.encode({next_, own.bytes + j * segment_, len}, slot_[0] + j * segment_, &out,
                         &len);
        }
        if (j == 0 && whole_when_raw_ && may_come_whole(own) && out == own.bytes &&
            !coder.compressing()) {
            err =
                keep_first(err, post_send(own, 0, own.bytes, own.block.bytes, &sends_[0][0], res));
            wire = own.block.bytes;
            break;
        }
        err = keep_first(err, post_send(own, j, out, len, &sends_[0][j], res));
        wire += len;
    }
    for (int k = 0; k < steps; ++k) {
        const Block &b = blocks_[size_t(block_of_step(k))];
        const bool forward = k + 1 < steps;
        char *slot = slot_[(k + 1) % 2];
        // Frames land in this slot even on the last step: its sends must be done.
        err = keep_first(err, co_await wait_all(t_, sends_[(k + 1) % 2]));
        const size_t m = segments(b);
        raw += b.block.bytes;
        // A block that may come whole: its first message says how it travels, and the other
        // segments' receives are posted once it has arrived.
        const size_t first_posted = may_come_whole(b) ? 1 : m;
        for (size_t j = 0; j < first_posted; ++j) {
            receives_[j] = nullptr;
            err = keep_first(err, post_recv(b, j, &receives_[j]));
        }
        for (size_t j = 0; j < m; ++j) {
            const size_t want = segment_bytes(b, j);
            size_t got = want;
            if (receives_[j] == nullptr || co_await wait(t_, &receives_[j], &got) != 0) {
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
                got = want; // forward what is there: the ring must not stop
            }
            if (j == 0 && may_come_whole(b)) {
                if (got == b.block.bytes) { // whole and raw, already in place
                    wire += got;
                    if (forward)
                        err = keep_first(
                            err, post_send(b, 0, b.bytes, got, &sends_[(k + 1) % 2][0], res));
                    break;
                }
                if (got > want) { // neither a segment nor the block: not this ring's
                    err = keep_first(err, ZIP_ALGO_ERR_CODEC);
                    got = want;
                }
                for (size_t i = 1; i < m; ++i) {
                    receives_[i] = nullptr;
                    err = keep_first(err, post_recv(b, i, &receives_[i]));
                }
            }
            wire += got;
            // A frame is copied aside first: decoding overwrites where it arrived.
            char *at = b.plain ? nullptr : b.bytes + j * segment_;
            const bool frame = !b.plain && got < want;
            if (frame)
                std::memcpy(slot + j * segment_, at, got);
            if (forward)
                err = keep_first(err, post_send(b, j, frame ? slot + j * segment_ : at, got,
                                                &sends_[(k + 1) % 2][j], res));
            if (frame) {
                err =
                    keep_first(err, coder.decode_into(slot + j * segment_, got, {prev_, at, want}));
            } else if (b.plain && got != want && err == ZIP_ALGO_OK) {
                res->plain_got = got;
                res->plain_want = want;
                err = ZIP_ALGO_ERR_LENGTH;
            }
        }
    }
    res->gathered_raw = raw;
    res->gathered_wire = wire;
    err = keep_first(err, co_await wait_all(t_, sends_[0]));
    co_return keep_first(err, co_await wait_all(t_, sends_[1]));
}

} // namespace zipcoll

// A ring pays a latency at each step where tuned's rabenseifner (allreduce) or recursive doubling
// and Bruck (allgather) pay log2 p of them for the same bytes: take the ring only where its
// latencies cost at most 1/32 of its wire time. Simulated (simscale, 30 us, docs/scale.md
// "Allreduce", "Allgatherv"), best tuned / zip: allreduce of 4 MiB, incompressible and smooth
// data, 1 Gbit/s 1.00 / 1.49 at 8 ranks, 0.95 / 1.39 at 64, 0.82 / 1.11 at 256; 10 Gbit/s 0.97 /
// 1.06 at 8, 0.82 / 0.92 at 32, 0.34 / 0.35 at 256; allgatherv of 64 KiB blocks at 10 Gbit/s
// 0.73 / 0.89 at 8 ranks, 0.60 / 0.77 at 256.
extern "C" bool zip_algo_ring_suits(size_t wire_bytes, int steps, double link_Bps, double latency_s)
{
    if (steps <= 2 || link_Bps <= 0.0 || latency_s <= 0.0)
        return true;
    return 32.0 * double(steps) * latency_s * link_Bps <= double(wire_bytes);
}
