#include "bruck_steps.hpp"

#include <algorithm>
#include <new>

#include "exchange.hpp"

namespace zipcoll
{

int BruckStepsAllgather::prepare(const zip_transport_t *t, const BlockPolicy &policy,
                                 const zip_block_t *blocks, int own, int tag)
{
    t_ = t;
    own_ = own;
    tag_ = tag;
    const int size = t->size;
    size_t total = 0, largest = 0;
    for (int b = 0; b < size; ++b) {
        total += blocks[b].bytes;
        largest = std::max(largest, blocks[b].bytes);
    }
    while (chunk_ < size && size_t(2 * chunk_) * largest <= kStepsChunkBytes)
        chunk_ *= 2;
    const size_t chunks = size_t((size + chunk_ - 1) / chunk_);
    int steps = 0;
    for (int d = 1; d < size; d <<= 1)
        ++steps;
    try {
        blocks_.resize(size_t(size));
        lens_.assign(size_t(size), 0);
        raw_before_.assign(size_t(size) + 1, 0);
        in_.reserve(chunks + 1);
        out_.reserve(chunks + 1);
        pending_.reserve(chunks + 1);
        // Requests are written through pointers into it: no reallocation once posted. Per
        // step the lengths and a piece per chunk sent (at most one more than the chunks the
        // rank holds, which double every step).
        sends_.reserve(2 * size_t(steps) + 2 * chunks);
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    for (int b = 0; b < size; ++b) {
        GatherBlock &x = blocks_[size_t(b)];
        int rc = place_gather_block(t, policy, blocks[b], b == own, &x);
        // Plain blocks travel inside the steps' messages too, as their bytes.
        if (rc == ZIP_ALGO_OK && x.plain && x.block.bytes != 0)
            rc = byte_view(t, x.block, b == own, &x.bytes);
        if (rc != ZIP_ALGO_OK)
            return rc;
        all_plain_ = all_plain_ && x.plain;
    }
    // Chunk c lies at raw_before_[c K], the raw length of the offsets before it.
    for (int j = 0; j < size; ++j)
        raw_before_[size_t(j) + 1] = raw_before_[size_t(j)] + block(j).block.bytes;
    store_ = raw_buffer(total);
    return total == 0 || store_ ? ZIP_ALGO_OK : ZIP_ALGO_ERR_NOMEM;
}

size_t BruckStepsAllgather::wires_of(int first, int count) const
{
    size_t n = 0;
    for (int j = first; j < first + count; ++j)
        n += lens_[size_t(j)];
    return n;
}

void BruckStepsAllgather::pieces(int first, int count, size_t held, std::vector<Piece> *out) const
{
    out->clear();
    if (first < chunk_ && first + count <= chunk_) {
        out->push_back({first, count, held, nullptr});
        return;
    }
    // From distance K on, pieces start at chunk boundaries (first is 0 or a multiple of K).
    for (int j = first; j < first + count; j += chunk_)
        out->push_back({j, std::min(chunk_, first + count - j), raw_before_[size_t(j)], nullptr});
}

void BruckStepsAllgather::put_own(BlockCodec &coder)
{
    GatherBlock &mine = block(0);
    const size_t raw = mine.block.bytes;
    if (raw == 0)
        return;
    const char *wire = mine.bytes;
    size_t len = raw;
    if (!mine.plain)
        coder.encode({(t_->rank + t_->size - 1) % t_->size, mine.bytes, raw}, store_.get(), &wire,
                     &len);
    if (wire != store_.get())
        transport_copy(t_, store_.get(), wire, len);
    lens_[0] = WireLen(len);
}

int BruckStepsAllgather::send_step(int count, int to, zip_algo_result_t *res)
{
    if (raw_of(0, count) == 0) // the receiver knows: nothing to send
        return ZIP_ALGO_OK;
    for (int j = 0; j < count; ++j)
        if (!block(j).plain) {
            res->bytes_in += block(j).block.bytes;
            res->bytes_out += lens_[size_t(j)];
        }
    sends_.push_back(nullptr);
    if (t_->isend(t_->ctx, lens_.data(), sizeof(WireLen) * size_t(count), to, tag_,
                  &sends_.back()) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    // Below distance K the offsets sent are chunk 0's first ones, a prefix of the store.
    pieces(0, count, 0, &out_);
    for (const Piece &p : out_) {
        if (raw_of(p.first, p.count) == 0)
            continue;
        sends_.push_back(nullptr);
        if (t_->isend(t_->ctx, store_.get() + p.at, wires_of(p.first, p.count), to, tag_,
                      &sends_.back()) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
    }
    return ZIP_ALGO_OK;
}

int BruckStepsAllgather::check_lengths(int first, int count, size_t got)
{
    const bool valid = wire_lengths_valid(lens_.data() + first, count, got, [&](int i, size_t len) {
        const GatherBlock &b = block(first + i);
        // A plain block is never coded: it arrives at its raw length.
        return len <= b.block.bytes && (!b.plain || len == b.block.bytes);
    });
    if (valid)
        return ZIP_ALGO_OK;
    for (int j = first; j < first + count; ++j)
        lens_[size_t(j)] = WireLen(block(j).block.bytes);
    return ZIP_ALGO_ERR_LENGTH;
}

int BruckStepsAllgather::check_piece(const Piece &p, size_t got)
{
    if (got == wires_of(p.first, p.count))
        return ZIP_ALGO_OK;
    for (int j = p.first; j < p.first + p.count; ++j)
        lens_[size_t(j)] = WireLen(block(j).block.bytes);
    return ZIP_ALGO_ERR_LENGTH;
}

int BruckStepsAllgather::settle(const Piece &p, BlockCodec &coder)
{
    int err = ZIP_ALGO_OK;
    size_t at = p.at;
    for (int j = p.first; j < p.first + p.count; ++j) {
        GatherBlock &b = block(j);
        const size_t raw = b.block.bytes, len = lens_[size_t(j)];
        const char *wire = store_.get() + at;
        at += len;
        if (raw == 0)
            continue;
        if (len == raw)
            transport_copy(t_, b.bytes, wire, raw);
        else
            err = keep_first(err,
                             coder.decode_into(wire, len, {(own_ + j) % t_->size, b.bytes, raw}));
    }
    return err;
}

Task BruckStepsAllgather::run(BlockCodec &coder, zip_algo_result_t *res)
{
    const int size = t_->size, rank = t_->rank;
    int err = ZIP_ALGO_OK;
    put_own(coder);
    for (int d = 1; d < size; d <<= 1) {
        const int n = std::min(d, size - d);
        const int to = (rank - d + size) % size, from = (rank + d) % size;
        const bool last = 2 * d >= size;
        zip_req_t lens = nullptr;
        in_.clear();
        if (raw_of(d, n) != 0) {
            // Below distance K this step's wires land behind the ones chunk 0 holds.
            pieces(d, n, wires_of(0, d), &in_);
            if (t_->irecv(t_->ctx, lens_.data() + d, sizeof(WireLen) * size_t(n), from, tag_,
                          &lens) != 0)
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            for (Piece &p : in_) {
                const size_t raw = raw_of(p.first, p.count);
                if (raw != 0 &&
                    t_->irecv(t_->ctx, store_.get() + p.at, raw, from, tag_, &p.req) != 0)
                    err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            }
        }
        err = keep_first(err, send_step(n, to, res));
        // The previous step's blocks land while this step's messages travel.
        for (const Piece &p : pending_)
            err = keep_first(err, settle(p, coder));
        pending_.clear();
        if (in_.empty())
            continue; // nothing comes: the lengths stay 0
        size_t got = sizeof(WireLen) * size_t(n);
        if (lens == nullptr || co_await wait(t_, &lens, &got) != 0) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            got = 0;
        }
        err = keep_first(err, check_lengths(d, n, got));
        for (Piece &p : in_) {
            size_t wires = raw_of(p.first, p.count);
            if (wires != 0 && (p.req == nullptr || co_await wait(t_, &p.req, &wires) != 0)) {
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
                wires = 0;
            }
            // Forward what is there, at raw lengths if need be: later steps must not stop.
            err = keep_first(err, check_piece(p, wires));
            if (last)
                err = keep_first(err, settle(p, coder));
        }
        if (!last)
            pending_.swap(in_);
    }
    res->gathered_raw = raw_of(0, size);
    res->gathered_wire = wires_of(0, size);
    co_return keep_first(err, co_await wait_all(t_, sends_));
}

} // namespace zipcoll
