// Compressed scatter-allgather broadcast, for many ranks: the root cuts the message into one
// block per rank, compresses each block once and sends rank v its block's frame (a linear
// scatter: every send posted at once, so the root's link carries each byte once); then a Bruck
// allgather forwards the frames as they are, in ceil(log2 P) steps; every rank decodes every
// block once. A chain pays a latency per hop and per window of segments (docs/design.md,
// "Bcast"); this pays ceil(log2 P) + 1 of them and moves each byte about twice.
//
// Every block travels as its own message, posted at the block's raw length: a frame is the
// shorter message, as everywhere in zip (zip_algo.h), so the frame sizes, which only the root
// knows, travel as the messages' lengths and no rank needs them in advance.
//
// Bruck step d = 1, 2, 4, ... (< P), c = min(d, P - d) blocks, in virtual ranks (root = 0):
// rank v sends blocks v .. v+c-1 to v - d and receives blocks v+d .. v+d+c-1 from v + d (mod P).
// After step d a rank holds blocks v .. v+2d-1. The root holds every block: it receives nothing,
// and nobody sends to it. One pair of ranks meets in one step only (d = their distance), and
// the root's scatter message to a rank goes before its Bruck ones, so MPI's ordering matches
// every message with the receive posted for it.
#include "bcast.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "exchange.hpp"

namespace zipcoll
{
namespace
{

struct Blocks {
    size_t block; // every block but the last non-empty one, a multiple of 8
    size_t bytes;
    int size;
    size_t offset(int v) const { return std::min(bytes, size_t(v) * block); }
    size_t length(int v) const { return offset(v + 1) - offset(v); }
};

Blocks blocks_of(size_t bytes, int size)
{
    const size_t per = (bytes + size_t(size) - 1) / size_t(size);
    return {(per + 7) & ~size_t(7), bytes, size};
}

int real_rank(int v, int size, int root)
{
    return (v + root) % size;
}

// What a rank sends for each block: a frame in the frame store or the raw block.
struct Wire {
    const char *ptr = nullptr;
    size_t len = 0;
    bool frame = false;
};

class SagBcast
{
  public:
    SagBcast(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_bcast_args_t *a,
             zip_algo_result_t *res)
        : t_(t), a_(a), res_(res), sg_(blocks_of(a->bytes, t->size)),
          vr_((t->rank - a->root + t->size) % t->size),
          policy_{a->elem_type, a->try_compress != 0, 0, a->policy, nullptr, t->max_message},
          coder_(codec, policy_, res)
    {
    }

    int prepare()
    {
        // A rank keeps every frame it forwards; frames are shorter than their blocks.
        const bool needs_store = vr_ != 0 || (a_->try_compress && policy_.try_compress);
        if (needs_store) {
            store_ = raw_buffer(a_->bytes);
            if (!store_)
                return ZIP_ALGO_ERR_NOMEM;
        }
        try {
            wire_.resize(size_t(t_->size));
            sends_.reserve(2 * size_t(t_->size));
            recvs_.assign(size_t(t_->size), nullptr);
        } catch (const std::bad_alloc &) {
            return ZIP_ALGO_ERR_NOMEM;
        }
        return ZIP_ALGO_OK;
    }

    Task root();
    Task non_root();

  private:
    char *buf(int v) const { return static_cast<char *>(a_->buf) + sg_.offset(v); }
    int peer(int v) const { return real_rank(v, t_->size, a_->root); }
    int post_send(int v, int to);
    int post_recv(int v, int from);
    int arrived(int v, size_t got);
    int decode(int v);
    Task receive(int v);
    Task finish(int err);

    const zip_transport_t *t_;
    const zip_bcast_args_t *a_;
    zip_algo_result_t *res_;
    Blocks sg_;
    int vr_;
    BlockPolicy policy_;
    BlockCodec coder_;
    std::unique_ptr<char[]> store_; // block v's frame at offset(v)
    std::vector<Wire> wire_;
    std::vector<zip_req_t> sends_, recvs_; // recvs_[v]: block v's receive
};

int SagBcast::post_send(int v, int to)
{
    const Wire &w = wire_[size_t(v)];
    if (sg_.length(v) == 0)
        return ZIP_ALGO_OK;
    zip_req_t req = nullptr;
    if (t_->isend(t_->ctx, w.ptr, w.len, peer(to), a_->tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    sends_.push_back(req);
    res_->bytes_in += sg_.length(v);
    res_->bytes_out += w.len;
    return ZIP_ALGO_OK;
}

int SagBcast::post_recv(int v, int from)
{
    if (sg_.length(v) == 0)
        return ZIP_ALGO_OK;
    const int rc = t_->irecv(t_->ctx, buf(v), sg_.length(v), peer(from), a_->tag,
                             &recvs_[size_t(v)]);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

// Block v arrived with `got` bytes in the user buffer: a frame is moved to the frame store,
// where it stays to be forwarded, and is decoded later (decode) into the user buffer.
int SagBcast::arrived(int v, size_t got)
{
    Wire &w = wire_[size_t(v)];
    const size_t len = sg_.length(v);
    if (got >= len) {
        w = {buf(v), len, false};
        return ZIP_ALGO_OK;
    }
    char *frame = store_.get() + sg_.offset(v);
    std::memcpy(frame, buf(v), got);
    w = {frame, got, true};
    res_->compressed = 1;
    return ZIP_ALGO_OK;
}

int SagBcast::decode(int v)
{
    const Wire &w = wire_[size_t(v)];
    if (!w.frame)
        return ZIP_ALGO_OK;
    return coder_.decode_into(w.ptr, w.len, {peer(v), buf(v), sg_.length(v)});
}

// Waits for block v's receive. A failed one is forwarded as whatever is there, so that the
// ranks after this one do not hang; the error is returned.
Task SagBcast::receive(int v)
{
    size_t got = sg_.length(v);
    zip_req_t &r = recvs_[size_t(v)];
    int rc = ZIP_ALGO_OK;
    if (r != nullptr && co_await wait(t_, &r, &got) != 0) {
        rc = ZIP_ALGO_ERR_TRANSPORT;
        got = sg_.length(v);
    }
    r = nullptr;
    co_return keep_first(rc, arrived(v, got));
}

Task SagBcast::finish(int err)
{
    for (auto &r : sends_)
        if (co_await wait(t_, &r, nullptr) != 0)
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    co_return err;
}

Task SagBcast::root()
{
    const int size = t_->size;
    int err = ZIP_ALGO_OK;
    // Scatter: each block compressed once and sent as soon as it is; block 0 (the root's own)
    // last, since nobody needs it before the allgather.
    for (int i = 1; i <= size; ++i) {
        const int v = i % size;
        Wire &w = wire_[size_t(v)];
        const char *out = buf(v);
        size_t len = sg_.length(v);
        if (len > 0)
            coder_.encode({peer(v), buf(v), len}, store_ ? store_.get() + sg_.offset(v) : nullptr,
                          &out, &len);
        w = {out, len, out != buf(v)};
        if (v != 0)
            err = keep_first(err, post_send(v, v));
    }
    for (int d = 1; d < size; d *= 2) {
        const int c = std::min(d, size - d);
        for (int j = 0; j < c; ++j)
            err = keep_first(err, post_send(j, size - d));
    }
    co_return co_await finish(err);
}

Task SagBcast::non_root()
{
    const int size = t_->size, v0 = vr_;
    // Every receive posted up front, in the order their senders send: the own block from the
    // root, then each step's blocks from v + d.
    int err = post_recv(v0, 0);
    for (int d = 1; d < size && err == ZIP_ALGO_OK; d *= 2) {
        const int c = std::min(d, size - d), from = (v0 + d) % size;
        for (int j = 0; j < c && err == ZIP_ALGO_OK; ++j)
            err = post_recv((v0 + d + j) % size, from);
    }
    if (err != ZIP_ALGO_OK) {
        // Nothing is sent yet: cancel-free cleanup is to wait for what is posted, which the
        // peers still complete.
        for (auto &r : recvs_)
            if (r != nullptr)
                co_await wait(t_, &r, nullptr);
        co_return err;
    }
    err = keep_first(err, co_await receive(v0));
    // Blocks that arrived in the previous step, decoded while this step's transfers run.
    std::vector<int> pending{v0};
    for (int d = 1; d < size; d *= 2) {
        const int c = std::min(d, size - d);
        if (v0 != d) // the root needs nothing
            for (int j = 0; j < c; ++j)
                err = keep_first(err, post_send((v0 + j) % size, (v0 - d + size) % size));
        for (int v : pending)
            err = keep_first(err, decode(v));
        pending.clear();
        for (int j = 0; j < c; ++j) {
            const int v = (v0 + d + j) % size;
            err = keep_first(err, co_await receive(v));
            pending.push_back(v);
        }
    }
    for (int v : pending)
        err = keep_first(err, decode(v));
    co_return co_await finish(err);
}

} // namespace

Task scatter_allgather_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                             const zip_bcast_args_t *a, zip_algo_result_t *res)
{
    SagBcast b(t, codec, a, res);
    const int rc = b.prepare();
    if (rc != ZIP_ALGO_OK)
        co_return rc;
    if (t->rank == a->root)
        co_return co_await b.root();
    co_return co_await b.non_root();
}

} // namespace zipcoll
