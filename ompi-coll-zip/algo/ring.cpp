#include "ring.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "exchange.hpp"

namespace zipcoll
{

int RingAllgather::prepare(const zip_transport_t *t, const BlockPolicy &policy,
                           const zip_block_t *blocks, int own, int tag, char *const *slots)
{
    size_t largest = 0;
    t_ = t;
    own_ = own;
    tag_ = tag;
    next_ = (t->rank + 1) % t->size;
    prev_ = (t->rank + t->size - 1) % t->size;
    try {
        blocks_.resize(size_t(t->size));
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    for (int b = 0; b < t->size; ++b) {
        Block &x = blocks_[size_t(b)];
        x.block = blocks[b];
        // The peer does not matter: a block crosses every link of the ring.
        x.plain = x.block.bytes == 0 || policy.plain(x.block.bytes, next_);
        if (x.plain)
            continue;
        all_plain_ = false;
        const int rc = byte_view(t, x.block, b == own, &x.bytes);
        if (rc != ZIP_ALGO_OK)
            return rc;
        largest = std::max(largest, x.block.bytes);
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

int RingAllgather::post_recv(int k, zip_req_t *req)
{
    const Block &b = blocks_[size_t(block_of_step(k))];
    if (b.block.bytes == 0)
        return ZIP_ALGO_OK;
    const int rc = b.plain ? post_as_is(t_, b.block, prev_, tag_, false, req)
                           : t_->irecv(t_->ctx, b.bytes, b.block.bytes, prev_, tag_, req);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

int RingAllgather::post_send(const Block &b, const char *out, size_t len, zip_req_t *req,
                             zip_algo_result_t *res)
{
    if (b.block.bytes == 0)
        return ZIP_ALGO_OK;
    const int rc = b.plain ? post_as_is(t_, b.block, next_, tag_, true, req)
                           : t_->isend(t_->ctx, out, len, next_, tag_, req);
    if (!b.plain) {
        res->bytes_in += b.block.bytes;
        res->bytes_out += len;
    }
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

Task RingAllgather::run(BlockCodec &coder, zip_algo_result_t *res)
{
    const int steps = t_->size - 1;
    zip_req_t rreq = nullptr, sreq = nullptr;
    int err = post_recv(0, &rreq);
    // Step 0 sends the own block, compressed (or raw when that does not pay) into slot 0.
    const Block &own = blocks_[size_t(own_)];
    const char *out = own.bytes;
    size_t len = own.block.bytes;
    if (!own.plain)
        coder.encode({next_, own.bytes, own.block.bytes}, slot_[0], &out, &len);
    err = keep_first(err, post_send(own, out, len, &sreq, res));
    for (int k = 0; k < steps; ++k) {
        const Block &b = blocks_[size_t(block_of_step(k))];
        size_t got = b.block.bytes;
        if (rreq != nullptr && co_await wait(t_, &rreq, &got) != 0) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            got = b.block.bytes; // forward what is there: the ring must not stop
        }
        rreq = nullptr;
        const bool forward = k + 1 < steps;
        if (forward)
            err = keep_first(err, post_recv(k + 1, &rreq));
        // A frame is copied aside first: decoding overwrites where it arrived.
        const bool frame = !b.plain && got < b.block.bytes;
        char *slot = slot_[(k + 1) % 2];
        if (frame)
            std::memcpy(slot, b.bytes, got);
        if (sreq != nullptr && co_await wait(t_, &sreq, nullptr) != 0)
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
        sreq = nullptr;
        if (forward)
            err = keep_first(err, post_send(b, frame ? slot : b.bytes, got, &sreq, res));
        if (frame) {
            err = keep_first(err, coder.decode_into(slot, got, {prev_, b.bytes, b.block.bytes}));
        } else if (b.plain && got != b.block.bytes && err == ZIP_ALGO_OK) {
            res->plain_got = got;
            res->plain_want = b.block.bytes;
            err = ZIP_ALGO_ERR_LENGTH;
        }
    }
    if (sreq != nullptr && co_await wait(t_, &sreq, nullptr) != 0)
        err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    co_return err;
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
