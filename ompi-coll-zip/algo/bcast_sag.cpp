// Compressed scatter-allgather broadcast, for many ranks: the root cuts the message into one
// block per other rank, compresses each block once and sends rank u its block's frame (the
// scatter: a few sends in flight, so that blocks arrive one after another and the allgather
// starts on the first); the P - 1 other ranks then gather every block with a Bruck allgather
// that forwards the frames as they are, and each decodes every block once. The root's link
// carries each byte once; the chain pays a latency per hop and per window of segments
// (docs/design.md, "Bcast").
//
// Every block travels as its own message, posted at the block's raw length: a frame is the
// shorter message, as everywhere in zip (zip_algo.h), so the frame sizes, which only the root
// knows, travel as the messages' lengths and no rank needs them in advance.
//
// Bruck among Q = P - 1 ranks u = 0 .. Q-1 (u = virtual rank - 1, the root being virtual rank
// 0): at step d = 1, 2, 4, ... (< Q), c = min(d, Q - d), rank u sends the blocks at offsets
// 0 .. c-1 from its own (blocks u .. u+c-1) to u - d and receives offsets d .. d+c-1 from u + d
// (mod Q). A rank holds offset j once it has received it (offset 0: from the root) and posts
// each send as soon as its block is there, in offset order, so a step does not wait for the
// previous one to end. A pair of ranks meets in one step only (d is their distance) and sends
// and posts receives in offset order, so MPI's ordering matches every message with its receive.
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

// Sends of the scatter in flight at the root: enough to keep its link busy while it codes the
// next block, few enough that the first blocks arrive early and the allgather starts on them
// (simulated, 4 MiB at 10 Gbit/s, raw: 16 ranks 7.6 ms with one in flight, 7.1 with two, 6.6
// with 8 or 32; 128 ranks 8.3, 6.9, 6.8, 6.8).
constexpr size_t kScatterWindow = 8;

struct Blocks {
    size_t block; // every block but the last non-empty one, a multiple of 8
    size_t bytes;
    size_t offset(int b) const { return std::min(bytes, size_t(b) * block); }
    size_t length(int b) const { return offset(b + 1) - offset(b); }
};

// One block for each of the q ranks but the root.
Blocks blocks_of(size_t bytes, int q)
{
    const size_t per = (bytes + size_t(q) - 1) / size_t(q);
    return {(per + 7) & ~size_t(7), bytes};
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
        : t_(t), a_(a), res_(res), q_(t->size - 1), sg_(blocks_of(a->bytes, t->size - 1)),
          u_((t->rank - a->root + t->size) % t->size - 1),
          policy_{a->elem_type, a->try_compress != 0, 0, a->policy, nullptr, t->max_message},
          coder_(codec, policy_, res)
    {
    }

    int prepare()
    {
        // A rank keeps every frame it forwards; frames are shorter than their blocks.
        if (u_ >= 0 || (a_->try_compress && policy_.try_compress)) {
            store_ = raw_buffer(a_->bytes);
            if (!store_)
                return ZIP_ALGO_ERR_NOMEM;
        }
        try {
            wire_.resize(size_t(q_));
            sends_.reserve(size_t(q_));
            recvs_.assign(size_t(q_), nullptr);
        } catch (const std::bad_alloc &) {
            return ZIP_ALGO_ERR_NOMEM;
        }
        return ZIP_ALGO_OK;
    }

    Task root();
    Task non_root();

  private:
    char *buf(int b) const { return static_cast<char *>(a_->buf) + sg_.offset(b); }
    // The real rank of non-root u.
    int rank_of(int u) const { return (u + 1 + a_->root) % t_->size; }
    int block_at(int j) const { return (u_ + j) % q_; }
    int post_send(int b, int to_u);
    int post_recv(int b, int from_u);
    void arrived(int b, size_t got);
    int decode(int b);
    Task receive(int b);
    Task finish(int err);

    const zip_transport_t *t_;
    const zip_bcast_args_t *a_;
    zip_algo_result_t *res_;
    int q_; // ranks but the root, and blocks
    Blocks sg_;
    int u_; // this rank among them, -1 at the root
    BlockPolicy policy_;
    BlockCodec coder_;
    std::unique_ptr<char[]> store_; // block b's frame at offset(b)
    std::vector<Wire> wire_;
    std::vector<zip_req_t> sends_, recvs_; // recvs_[b]: block b's receive
};

int SagBcast::post_send(int b, int to_u)
{
    const Wire &w = wire_[size_t(b)];
    if (sg_.length(b) == 0)
        return ZIP_ALGO_OK;
    zip_req_t req = nullptr;
    if (t_->isend(t_->ctx, w.ptr, w.len, rank_of(to_u), a_->tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    sends_.push_back(req);
    res_->bytes_in += sg_.length(b);
    res_->bytes_out += w.len;
    return ZIP_ALGO_OK;
}

// from_u -1: the root.
int SagBcast::post_recv(int b, int from_u)
{
    if (sg_.length(b) == 0)
        return ZIP_ALGO_OK;
    const int from = from_u < 0 ? a_->root : rank_of(from_u);
    const int rc = t_->irecv(t_->ctx, buf(b), sg_.length(b), from, a_->tag, &recvs_[size_t(b)]);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

// Block b arrived with `got` bytes in the user buffer: a frame is moved to the frame store,
// where it stays to be forwarded, and is decoded later (decode) into the user buffer.
void SagBcast::arrived(int b, size_t got)
{
    Wire &w = wire_[size_t(b)];
    const size_t len = sg_.length(b);
    if (got >= len) {
        w = {buf(b), len, false};
        return;
    }
    char *frame = store_.get() + sg_.offset(b);
    std::memcpy(frame, buf(b), got);
    w = {frame, got, true};
    res_->compressed = 1;
}

int SagBcast::decode(int b)
{
    const Wire &w = wire_[size_t(b)];
    if (!w.frame)
        return ZIP_ALGO_OK;
    return coder_.decode_into(w.ptr, w.len, {rank_of(b), buf(b), sg_.length(b)});
}

// Waits for block b's receive. A failed one is forwarded as whatever is there, so that the
// ranks after this one do not hang; the error is returned.
Task SagBcast::receive(int b)
{
    size_t got = sg_.length(b);
    zip_req_t &r = recvs_[size_t(b)];
    int rc = ZIP_ALGO_OK;
    if (r != nullptr && co_await wait(t_, &r, &got) != 0) {
        rc = ZIP_ALGO_ERR_TRANSPORT;
        got = sg_.length(b);
    }
    r = nullptr;
    arrived(b, got);
    co_return rc;
}

Task SagBcast::finish(int err)
{
    for (auto &r : sends_)
        if (r != nullptr && co_await wait(t_, &r, nullptr) != 0)
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    co_return err;
}

Task SagBcast::root()
{
    int err = ZIP_ALGO_OK;
    // Block b compressed once (block 0 is the sample) and sent to non-root b.
    for (int b = 0; b < q_; ++b) {
        const char *out = buf(b);
        size_t len = sg_.length(b);
        if (len > 0)
            coder_.encode({rank_of(b), buf(b), len},
                          store_ ? store_.get() + sg_.offset(b) : nullptr, &out, &len);
        wire_[size_t(b)] = {out, len, out != buf(b)};
        if (sends_.size() >= kScatterWindow) {
            zip_req_t &oldest = sends_[sends_.size() - kScatterWindow];
            if (oldest != nullptr && co_await wait(t_, &oldest, nullptr) != 0)
                err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
        }
        err = keep_first(err, post_send(b, b));
    }
    co_return co_await finish(err);
}

Task SagBcast::non_root()
{
    // Every receive posted up front, in offset order (which is each sender's order): the own
    // block from the root, then offset j from u + d, d the highest power of two <= j.
    int err = post_recv(u_, -1);
    for (int d = 1; d < q_ && err == ZIP_ALGO_OK; d *= 2)
        for (int j = d; j < std::min(2 * d, q_) && err == ZIP_ALGO_OK; ++j)
            err = post_recv(block_at(j), (u_ + d) % q_);
    if (err != ZIP_ALGO_OK) {
        // Nothing is sent yet; what is posted still completes, as the peers send it.
        for (auto &r : recvs_)
            if (r != nullptr)
                co_await wait(t_, &r, nullptr);
        co_return err;
    }
    for (int j = 0; j < q_; ++j) {
        const int b = block_at(j);
        err = keep_first(err, co_await receive(b));
        // Offset j goes to u - d at every step d that sends it (j < min(d, Q - d)).
        for (int d = 1; d < q_; d *= 2)
            if (j < std::min(d, q_ - d))
                err = keep_first(err, post_send(b, (u_ - d + q_) % q_));
        // The previous block decodes while this one's sends and the next receives move.
        if (j > 0)
            err = keep_first(err, decode(block_at(j - 1)));
    }
    err = keep_first(err, decode(block_at(q_ - 1)));
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
