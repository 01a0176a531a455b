#include "bruck.hpp"

#include <algorithm>
#include <new>

#include "exchange.hpp"

namespace zipcoll
{

int BruckAllgather::prepare(const zip_transport_t *t, const BlockPolicy &policy,
                            const zip_block_t *blocks, int own, int tag)
{
    t_ = t;
    own_ = own;
    tag_ = tag;
    try {
        blocks_.resize(size_t(t->size));
        to_decode_.reserve(size_t(t->size));
        receives_.resize(size_t(t->size));
        // Requests are written through pointers into it: no reallocation once posted. The
        // steps send size - 1 blocks in all.
        sends_.reserve(size_t(t->size));
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    for (int b = 0; b < t->size; ++b) {
        Block &x = blocks_[size_t(b)];
        const int rc = place_gather_block(t, policy, blocks[b], b == own, &x);
        if (rc != ZIP_ALGO_OK)
            return rc;
        all_plain_ = all_plain_ && x.plain;
        x.wire = x.bytes;
        x.wire_len = x.block.bytes;
    }
    // Blocks own + 1 .. own + last - 1 arrive before the step of distance `last` and are
    // forwarded: each gets a slot; the rest arrive at that step and are only decoded.
    int last = 1;
    while (2 * last < t->size)
        last *= 2;
    size_t total = 0, last_step = 0;
    for (int j = 0; j < t->size; ++j) {
        const Block &x = block(j);
        if (!x.plain && j < last)
            total += x.block.bytes;
        else if (!x.plain)
            last_step = std::max(last_step, x.block.bytes);
    }
    if (total + last_step == 0)
        return ZIP_ALGO_OK;
    store_ = raw_buffer(total + last_step);
    if (!store_)
        return ZIP_ALGO_ERR_NOMEM;
    char *at = store_.get();
    for (int j = 0; j < last; ++j) {
        Block &x = block(j);
        if (!x.plain) {
            x.slot = at;
            at += x.block.bytes;
        }
    }
    last_slot_ = at;
    return ZIP_ALGO_OK;
}

int BruckAllgather::post_recv(Block &b, int peer, zip_req_t *req)
{
    const int rc = b.plain ? post_as_is(t_, b.block, peer, tag_, false, req)
                           : t_->irecv(t_->ctx, b.bytes, b.block.bytes, peer, tag_, req);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

int BruckAllgather::post_send(const Block &b, int peer, zip_req_t *req, zip_algo_result_t *res)
{
    if (!b.plain) {
        res->bytes_in += b.block.bytes;
        res->bytes_out += b.wire_len;
    }
    const int rc = b.plain ? post_as_is(t_, b.block, peer, tag_, true, req)
                           : t_->isend(t_->ctx, b.wire, b.wire_len, peer, tag_, req);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

int BruckAllgather::arrived(Block &b, int peer, size_t got, BlockCodec &coder)
{
    if (b.plain || got >= b.block.bytes) // raw, in place (no receive brings more than its room)
        return ZIP_ALGO_OK;
    if (b.slot == nullptr) // the last step: decoded at once, never forwarded
        return coder.decode({peer, b.bytes, b.block.bytes}, got, last_slot_);
    // Set aside first: decoding overwrites where it arrived, and the frame is forwarded.
    transport_copy(t_, b.slot, b.bytes, got);
    b.wire = b.slot;
    b.wire_len = got;
    to_decode_.push_back({&b, peer});
    return ZIP_ALGO_OK;
}

Task BruckAllgather::run(BlockCodec &coder, zip_algo_result_t *res)
{
    const int size = t_->size, rank = t_->rank;
    int err = ZIP_ALGO_OK;
    Block &mine = blocks_[size_t(own_)];
    if (!mine.plain)
        coder.encode({(rank + size - 1) % size, mine.bytes, mine.block.bytes}, mine.slot,
                     &mine.wire, &mine.wire_len);
    size_t raw = mine.block.bytes, wire = mine.wire_len;
    for (int d = 1; d < size; d <<= 1) {
        const int n = std::min(d, size - d);
        const int to = (rank - d + size) % size, from = (rank + d) % size;
        for (int j = 0; j < n; ++j) {
            Block &b = block(d + j);
            receives_[size_t(j)] = nullptr;
            if (b.block.bytes != 0)
                err = keep_first(err, post_recv(b, from, &receives_[size_t(j)]));
        }
        for (int j = 0; j < n; ++j) {
            const Block &b = block(j);
            if (b.block.bytes == 0)
                continue;
            sends_.push_back(nullptr);
            err = keep_first(err, post_send(b, to, &sends_.back(), res));
        }
        // The previous step's frames decode while this step's messages travel.
        for (const Pending &p : to_decode_)
            err =
                keep_first(err, coder.decode_into(p.block->wire, p.block->wire_len,
                                                  {p.peer, p.block->bytes, p.block->block.bytes}));
        to_decode_.clear();
        for (int j = 0; j < n; ++j) {
            Block &b = block(d + j);
            if (b.block.bytes == 0)
                continue;
            const size_t want = b.block.bytes;
            size_t got = want;
            zip_req_t *req = &receives_[size_t(j)];
            if (*req == nullptr || co_await wait(t_, req, &got) != 0) {
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
                continue; // forward what is there: later steps must not stop
            }
            raw += want;
            wire += got;
            if (b.plain && got != want) {
                if (err == ZIP_ALGO_OK) {
                    res->plain_got = got;
                    res->plain_want = want;
                    err = ZIP_ALGO_ERR_LENGTH;
                }
                continue;
            }
            err = keep_first(err, arrived(b, from, got, coder));
        }
    }
    res->gathered_raw = raw;
    res->gathered_wire = wire;
    // Every frame of an earlier step was decoded during the step after it.
    co_return keep_first(err, co_await wait_all(t_, sends_));
}

} // namespace zipcoll
