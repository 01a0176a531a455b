// Compressed scatter-allgather broadcast, for many ranks: the root cuts the message into one
// block per other rank, compresses each block once and sends rank u its block's frame (the
// scatter: a few sends in flight, so that blocks arrive one after another and the allgather
// starts on the first); the P - 1 other ranks then gather every block with a Bruck allgather
// that forwards the frames as they are, and each decodes every block once. The root's link
// carries each byte once; the chain pays a latency per hop and per window of segments
// (docs/design.md, "Bcast").
//
// A large block travels as its own message, posted at the block's raw length: a frame is the
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
//
// With many ranks the blocks are small and a message per block and step costs more than its
// bytes: Q^2 messages in all (1024 ranks, 4 KiB blocks: a million; a simulated point took over
// 7 minutes). Blocks of at most half a chunk (zip_bcast_sag_chunk) therefore travel coalesced, in
// chunks of K offsets (K the largest power of two with K blocks <= the chunk): a chunk is two
// messages, its K wire lengths (32-bit words) and its K wires back to back. A rank keeps the wires
// it holds in its frame store by offset, chunk i from the raw length of offsets 0 .. iK-1 on,
// packed inside the chunk, and the lengths in one array indexed by offset, so that a chunk, or its
// first offsets, is sent as it lies. Steps d < K fill chunk 0 as the textbook Bruck does, one step
// after the other (a step's wires land behind the previous step's, so they are received once
// its lengths are known); from d = K on a step's offsets are whole chunks (d is a multiple of
// K), each received in one piece at a place known from the start, and forwarded, as the large
// blocks are, as soon as it has arrived. The lengths travel as their own message so that a
// transport that carries lengths but not the bytes of large messages (perftest/simscale's) can
// run it. Frames are decoded from the store; raw blocks are copied out of it (transport.h's
// copy), adjacent ones in one copy.
//
// The scatter runs down a binomial tree where the plan says so (zip_bcast_args_t's sag_tree):
// with many ranks the root's Q sends cost it more than their bytes (simscale, 256 ranks one per
// node at 25 Gbit/s, 256 KiB of random data, a microsecond per message: 372 us flat, 236 down
// the tree, 231 for tuned's scatter-allgather, whose scatter is a tree). Virtual rank v = u + 1
// (the root 0) receives from v - lowbit(v) the blocks of its subtree, v .. v + s - 1 with s =
// min(lowbit(v), P - v) (blocks u .. u + s - 1: the offsets 0 .. s - 1 of its allgather), and
// sends child v + h (h = s/2, .., 1; the root: every power of two below P) the blocks of the
// child's subtree, one child after the other, the largest subtree first. A subtree of one block
// is one message, as in the flat scatter; of more, its wires' lengths and then its wires back to
// back. The root codes a child's blocks while the previous child's message moves, packed where
// the first one lies in the frame store (raw ones copied beside the frames, unless the whole
// subtree is raw and goes from the caller's buffer). A rank forwards its children's parts as
// they lie, before its allgather sends anything, so a parent that is also one of its child's
// allgather peers reaches it in the order the child posted. The tree gives up the flat
// scatter's overlap with the allgather, so the plan takes it only where the root's messages
// cost more than that (bcast_plan.cpp).
#include "bcast.hpp"

#include <algorithm>
#include <cstdint>
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

// The largest power of two <= n (n >= 1).
int floor_pow2(size_t n)
{
    int k = 1;
    while (size_t(k) * 2 <= n)
        k *= 2;
    return k;
}

// The bytes of a coalesced chunk: blocks of at most half of it travel coalesced
// (zip_bcast_sag_chunk).
size_t chunk_bytes(const zip_bcast_args_t *a)
{
    return a->sag_chunk != 0 ? a->sag_chunk : size_t(ZIP_BCAST_SAG_CHUNK);
}

// The children of a subtree of s ranks (virtual ranks v .. v + s - 1; the root's: P), as their
// distances h (powers of two below s) from v, in falling order of their subtrees' sizes
// min(h, s - h): the farthest child's subtree may be clipped at P. Returns how many (at most 31).
int children_by_size(int s, int out[32])
{
    if (s < 2)
        return 0;
    const int top = floor_pow2(size_t(s - 1));
    const int clipped = std::min(top, s - top);
    int n = 0;
    bool placed = false;
    for (int h = top / 2; h >= 1; h /= 2) {
        if (!placed && h <= clipped) {
            out[n++] = top;
            placed = true;
        }
        out[n++] = h;
    }
    if (!placed)
        out[n++] = top;
    return n;
}

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
          judged_(judged(a->policy)), policy_{a->elem_type,
                                              a->try_compress != 0,
                                              0,
                                              a->policy ? &judged_ : nullptr,
                                              nullptr,
                                              t->max_message},
          coder_(codec, policy_, res), chunk_(sag_chunk_offsets(sg_.block, chunk_bytes(a)))
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
            if (u_ >= 0 && tree() && subtree() > 1) {
                sub_lens_.resize(size_t(subtree()));
                const size_t raw = sg_.offset(u_ + subtree()) - sg_.offset(u_);
                if (raw > 0) {
                    sub_wires_ = raw_buffer(raw);
                    if (!sub_wires_)
                        return ZIP_ALGO_ERR_NOMEM;
                }
            }
            if (u_ < 0 && tree())
                lens_.resize(size_t(q_));
            if (u_ >= 0 && coalesced()) {
                lens_.resize(size_t(q_));
                for (int j = 0; j < q_; ++j)
                    lens_[size_t(j)] = WireLen(sg_.length(block_at(j)));
                plan_pieces();
            } else {
                wire_.resize(size_t(q_));
                sends_.reserve(size_t(q_));
                recvs_.assign(size_t(q_), nullptr);
            }
        } catch (const std::bad_alloc &) {
            return ZIP_ALGO_ERR_NOMEM;
        }
        return ZIP_ALGO_OK;
    }

    // Whether the allgather travels coalesced (a chunk of one block gains nothing from it, nor
    // do two ranks' single step).
    bool coalesced() const { return chunk_ >= 2 && q_ > 2; }

    // Every block's raw and wire bytes into res (gathered_*), once the call has run: all ranks
    // hold every wire's length by then (the root its own, the others as they arrived).
    void tally() const;

    Task root();
    Task root_tree();
    Task non_root();
    Task non_root_coalesced();

  private:
    char *buf(int b) const { return static_cast<char *>(a_->buf) + sg_.offset(b); }
    // The real rank of non-root u.
    int rank_of(int u) const { return (u + 1 + a_->root) % t_->size; }
    int block_at(int j) const { return (u_ + j) % q_; }
    int post_send(int b, int to_u);
    int post_recv(int b, int from);
    void arrived(int b, size_t got, const char *at);
    int decode(int b);
    Task receive(int b);
    Task finish(int err);

    // Coalesced: offsets first .. first+count-1 as one message of lengths and one of wires,
    // the wires at byte `at` of the store. At step d offsets d .. d+c-1 come from u + d and
    // offsets 0 .. c-1 go to u - d, c = min(d, Q - d).
    struct Piece {
        int first = 0, count = 0, peer = -1;
        size_t at = 0;
        zip_req_t lens = nullptr, wires = nullptr;
    };
    void plan_pieces();
    size_t raw_of(int first, int count) const;
    size_t wires_of(int first, int count) const;
    int send_piece(int first, int count, size_t at, int to_u);
    int post_lengths(Piece &p);
    int post_wires(Piece &p);
    int check_lengths(const Piece &p, size_t got);
    Task take_lengths(Piece &p);
    Task take_wires(Piece &p);
    int settle(int first, int count, size_t at);
    void copy_out(char *dst, const char *src, size_t n) const;
    Task abandon(zip_req_t *own);

    // The binomial scatter (the file's comment).
    bool tree() const { return a_->sag_tree != 0; }
    // Blocks in this rank's subtree, its own first (non-root).
    int subtree() const;
    // The real rank this rank's own block comes from.
    int parent() const;
    int send_range(int first, int count, const WireLen *lens, const char *wires, int to);
    Task settle_send();
    int post_subtree();
    Task take_subtree();
    Task forward_subtree();
    // The own block's receive: its subtree's where it has more than one block, else the block
    // alone at `into` (own_req).
    int post_own(char *into, zip_req_t *own_req);

    // What the root's sample is judged by: the root codes the whole message and every other rank
    // decodes all of it, so coding and decoding add up on the call's path where the chain's
    // pipeline overlaps them (an exchange's shape). Judged as the chain is, it compressed at
    // 25 Gbit/s, where the codec (4.6 / 7.8 GB/s) barely outruns the link: 256 ranks one per
    // node, gauss, a microsecond per message, 256 KiB and 1 MiB 0.86x and 0.83x of tuned's
    // best down the tree, raw 0.98x and 1.05x; at 10 Gbit/s it still compresses (1.30x and
    // 1.55x).
    static zip_algo_policy_t judged(const zip_algo_policy_t *call)
    {
        zip_algo_policy_t p = call != nullptr ? *call : zip_algo_policy_t{};
        p.shape = ZIP_TRANSFER_EXCHANGE;
        return p;
    }

    const zip_transport_t *t_;
    const zip_bcast_args_t *a_;
    zip_algo_result_t *res_;
    int q_; // ranks but the root, and blocks
    Blocks sg_;
    int u_;                    // this rank among them, -1 at the root
    zip_algo_policy_t judged_; // before policy_, which points to it
    BlockPolicy policy_;
    BlockCodec coder_;
    // Block b's frame at offset(b); coalesced: every wire, by offset (see the file's comment).
    RawBuffer store_;
    std::vector<Wire> wire_;
    std::vector<zip_req_t> sends_, recvs_; // recvs_[b]: block b's receive
    int chunk_;                            // coalesced: offsets per chunk, K
    // Coalesced only: offset j's wire length; the receives of the steps d < K, and of every
    // chunk i >= 1 (chunks_[i - 1]).
    std::vector<WireLen> lens_;
    std::vector<Piece> steps_, chunks_;
    // Binomial scatter, a subtree of more than one block: their wires' lengths and the wires.
    std::vector<WireLen> sub_lens_;
    RawBuffer sub_wires_;
    zip_req_t sub_lens_req_ = nullptr, sub_wires_req_ = nullptr;
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

int SagBcast::post_recv(int b, int from)
{
    if (sg_.length(b) == 0)
        return ZIP_ALGO_OK;
    const int rc = t_->irecv(t_->ctx, buf(b), sg_.length(b), from, a_->tag, &recvs_[size_t(b)]);
    return rc == 0 ? ZIP_ALGO_OK : ZIP_ALGO_ERR_TRANSPORT;
}

// Block b arrived with `got` bytes at `at` (the user buffer, or its subtree's wires): a frame is
// moved to the frame store, where it stays to be forwarded, and is decoded later (decode) into
// the user buffer.
void SagBcast::arrived(int b, size_t got, const char *at)
{
    Wire &w = wire_[size_t(b)];
    const size_t len = sg_.length(b);
    if (got >= len) {
        if (at != buf(b) && len > 0)
            copy_out(buf(b), at, len);
        w = {buf(b), len, false};
        return;
    }
    char *frame = store_.get() + sg_.offset(b);
    if (at == buf(b))
        std::memcpy(frame, at, got);
    else
        copy_out(frame, at, got);
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
    arrived(b, got, buf(b));
    co_return rc;
}

void SagBcast::tally() const
{
    size_t wires = 0;
    // lens_ where the wires travelled by length (the root's tree, the coalesced allgather),
    // else wire_; by offset or by block, the sum is the same.
    if (!lens_.empty())
        for (WireLen len : lens_)
            wires += len;
    else
        for (const Wire &w : wire_)
            wires += w.len;
    res_->gathered_raw = a_->bytes;
    res_->gathered_wire = wires;
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

Task SagBcast::root_tree()
{
    // Block b coded into the store at `at`: its wire's length in lens_, whether it is a frame.
    auto code = [&](int b, size_t at) {
        const char *out = buf(b);
        size_t len = sg_.length(b);
        if (len > 0)
            coder_.encode({rank_of(b), buf(b), len}, store_ ? store_.get() + at : nullptr, &out,
                          &len);
        lens_[size_t(b)] = WireLen(len);
        return out != buf(b);
    };
    // Block 0, the last child's, is the sample, as in the flat scatter.
    const bool first_framed = code(0, 0);
    int err = ZIP_ALGO_OK;
    int children[32];
    const int n = children_by_size(q_ + 1, children);
    for (int i = 0; i < n; ++i) {
        const int h = children[i];
        // Child v = h: blocks h - 1 .. , coded into the store from the first one's place (a
        // wire is at most its block, so each lands at or before its own block's place).
        const int first = h - 1, count = std::min(h, q_ + 1 - h);
        size_t at = sg_.offset(first);
        bool framed = false;
        for (int b = first; b < first + count; ++b) {
            framed = (b == 0 ? first_framed : code(b, at)) || framed;
            at += lens_[size_t(b)];
        }
        const char *wires = buf(first);
        if (framed) {
            // The raw blocks join the frames, so that the subtree is one message.
            wires = store_.get() + sg_.offset(first);
            at = sg_.offset(first);
            for (int b = first; b < first + count; ++b) {
                if (lens_[size_t(b)] == sg_.length(b) && lens_[size_t(b)] > 0)
                    copy_out(store_.get() + at, buf(b), sg_.length(b));
                at += lens_[size_t(b)];
            }
        }
        err = keep_first(err, co_await settle_send());
        err =
            keep_first(err, send_range(first, count, lens_.data() + first, wires, rank_of(first)));
    }
    co_return co_await finish(err);
}

int SagBcast::subtree() const
{
    const int v = u_ + 1;
    return std::min(v & -v, q_ + 1 - v);
}

int SagBcast::parent() const
{
    if (!tree())
        return a_->root;
    const int v = u_ + 1, p = v - (v & -v);
    return p == 0 ? a_->root : rank_of(p - 1);
}

// Blocks first .. first+count-1 (no wrap), their wires' lengths at `lens` and the wires back to
// back at `wires`, to rank `to`: one block is its wire alone, more are the lengths and then the
// wires. Nothing when every block is empty (the receiver knows).
int SagBcast::send_range(int first, int count, const WireLen *lens, const char *wires, int to)
{
    const size_t raw = sg_.offset(first + count) - sg_.offset(first);
    if (raw == 0)
        return ZIP_ALGO_OK;
    size_t n = 0;
    for (int i = 0; i < count; ++i)
        n += lens[i];
    zip_req_t req = nullptr;
    if (count > 1) {
        if (t_->isend(t_->ctx, lens, sizeof(WireLen) * size_t(count), to, a_->tag, &req) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        sends_.push_back(req);
        req = nullptr;
    }
    if (t_->isend(t_->ctx, wires, n, to, a_->tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    sends_.push_back(req);
    res_->bytes_in += raw;
    res_->bytes_out += n;
    return ZIP_ALGO_OK;
}

// Waits for the last send posted: a subtree's message leaves before the next one's, the largest
// first, rather than all of them sharing the link and the largest, which goes farthest, arriving
// last (simscale, 8 ranks at 25 Gbit/s, 1 MiB of random data: 1174 us with all in flight, 782
// with one).
Task SagBcast::settle_send()
{
    if (sends_.empty() || sends_.back() == nullptr)
        co_return ZIP_ALGO_OK;
    co_return co_await wait(t_, &sends_.back(), nullptr) != 0 ? ZIP_ALGO_ERR_TRANSPORT
                                                              : ZIP_ALGO_OK;
}

int SagBcast::post_subtree()
{
    const int s = subtree();
    if (!sub_wires_)
        return ZIP_ALGO_OK;
    const size_t raw = sg_.offset(u_ + s) - sg_.offset(u_);
    if (t_->irecv(t_->ctx, sub_lens_.data(), sizeof(WireLen) * size_t(s), parent(), a_->tag,
                  &sub_lens_req_) != 0 ||
        t_->irecv(t_->ctx, sub_wires_.get(), raw, parent(), a_->tag, &sub_wires_req_) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    return ZIP_ALGO_OK;
}

int SagBcast::post_own(char *into, zip_req_t *own_req)
{
    if (tree() && subtree() > 1)
        return post_subtree();
    const size_t own = sg_.length(u_);
    if (own > 0 && t_->irecv(t_->ctx, into, own, parent(), a_->tag, own_req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    return ZIP_ALGO_OK;
}

// Waits for this rank's subtree. Lengths that cannot be are replaced by the raw ones and a
// short message is forwarded as what is there, so that the ranks below do not hang; the
// error is returned.
Task SagBcast::take_subtree()
{
    const int s = subtree();
    if (!sub_wires_) {
        // Every block of the subtree is empty: nothing was sent.
        std::fill(sub_lens_.begin(), sub_lens_.end(), WireLen(0));
        co_return ZIP_ALGO_OK;
    }
    int err = ZIP_ALGO_OK;
    size_t got = sizeof(WireLen) * size_t(s);
    if (co_await wait(t_, &sub_lens_req_, &got) != 0) {
        err = ZIP_ALGO_ERR_TRANSPORT;
        got = 0;
    }
    sub_lens_req_ = nullptr;
    size_t wires = 0;
    if (!wire_lengths_valid(
            sub_lens_.data(), s, got, [&](int j, size_t len) { return len <= sg_.length(u_ + j); },
            &wires)) {
        err = keep_first(err, ZIP_ALGO_ERR_LENGTH);
        for (int j = 0; j < s; ++j)
            sub_lens_[size_t(j)] = WireLen(sg_.length(u_ + j));
        wires = sg_.offset(u_ + s) - sg_.offset(u_);
    }
    size_t arrived_bytes = wires;
    if (co_await wait(t_, &sub_wires_req_, &arrived_bytes) != 0)
        err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    else if (arrived_bytes != wires)
        err = keep_first(err, ZIP_ALGO_ERR_LENGTH);
    sub_wires_req_ = nullptr;
    co_return err;
}

// Takes this rank's subtree and sends each child its part, the largest first.
Task SagBcast::forward_subtree()
{
    int err = co_await take_subtree();
    const int s = subtree();
    int children[32];
    const int n = children_by_size(s, children);
    for (int i = 0; i < n; ++i) {
        const int h = children[i];
        size_t at = 0;
        for (int j = 0; j < h; ++j)
            at += sub_lens_[size_t(j)];
        err = keep_first(err, co_await settle_send());
        err = keep_first(err, send_range(u_ + h, std::min(h, s - h), sub_lens_.data() + h,
                                         sub_wires_.get() + at, rank_of(u_ + h)));
    }
    co_return err;
}

Task SagBcast::non_root()
{
    // Every receive posted up front, in offset order (which is each sender's order): the own
    // block from the root, then offset j from u + d, d the highest power of two <= j.
    int err = post_own(buf(u_), &recvs_[size_t(u_)]);
    for (int d = 1; d < q_ && err == ZIP_ALGO_OK; d *= 2)
        for (int j = d; j < std::min(2 * d, q_) && err == ZIP_ALGO_OK; ++j)
            err = post_recv(block_at(j), rank_of((u_ + d) % q_));
    if (err != ZIP_ALGO_OK) {
        // Nothing is sent yet; what is posted still completes, as the peers send it.
        co_await abandon(nullptr);
        for (auto &r : recvs_)
            if (r != nullptr)
                co_await wait(t_, &r, nullptr);
        co_return err;
    }
    for (int j = 0; j < q_; ++j) {
        const int b = block_at(j);
        if (j == 0 && tree() && subtree() > 1) {
            err = keep_first(err, co_await forward_subtree());
            arrived(b, sub_lens_[0], sub_wires_.get());
        } else {
            err = keep_first(err, co_await receive(b));
        }
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

// The receives of the coalesced allgather. Chunk i >= 1 (offsets iK .. iK+K-1) comes whole
// from step d, the highest power of two <= iK: d is a multiple of K and c = min(d, Q - d)
// ends on a chunk's end or on Q.
void SagBcast::plan_pieces()
{
    for (int d = 1; d < std::min(chunk_, q_); d *= 2)
        steps_.push_back({d, std::min(d, q_ - d), rank_of((u_ + d) % q_)});
    for (int first = chunk_; first < q_; first += chunk_) {
        const int d = floor_pow2(size_t(first));
        chunks_.push_back(
            {first, std::min(chunk_, q_ - first), rank_of((u_ + d) % q_), raw_of(0, first)});
    }
    sends_.reserve(2 * (steps_.size() + chunks_.size() + 1));
}

// The raw bytes of offsets first .. first+count-1: blocks b .. b+count-1 from b =
// block_at(first), wrapping after block Q-1 (offset(Q) is the message's end).
size_t SagBcast::raw_of(int first, int count) const
{
    if (count <= 0)
        return 0;
    const int b = block_at(first);
    if (b + count <= q_)
        return sg_.offset(b + count) - sg_.offset(b);
    return (a_->bytes - sg_.offset(b)) + sg_.offset(b + count - q_);
}

size_t SagBcast::wires_of(int first, int count) const
{
    size_t n = 0;
    for (int j = first; j < first + count; ++j)
        n += lens_[size_t(j)];
    return n;
}

// Offsets first .. first+count-1, every one present, their wires at byte `at` of the store, to
// non-root to_u: the lengths, then the wires as they lie. Nothing when every block is empty
// (the receiver knows).
int SagBcast::send_piece(int first, int count, size_t at, int to_u)
{
    const size_t raw = raw_of(first, count);
    if (raw == 0)
        return ZIP_ALGO_OK;
    const size_t wires = wires_of(first, count);
    const int to = rank_of(to_u);
    zip_req_t req = nullptr;
    if (t_->isend(t_->ctx, lens_.data() + first, sizeof(WireLen) * size_t(count), to, a_->tag,
                  &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    sends_.push_back(req);
    req = nullptr;
    if (t_->isend(t_->ctx, store_.get() + at, wires, to, a_->tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    sends_.push_back(req);
    // The lengths frame the chunk, as MPI's envelope frames a message: not counted.
    res_->bytes_in += raw;
    res_->bytes_out += wires;
    return ZIP_ALGO_OK;
}

int SagBcast::post_lengths(Piece &p)
{
    if (raw_of(p.first, p.count) == 0)
        return ZIP_ALGO_OK;
    return t_->irecv(t_->ctx, lens_.data() + p.first, sizeof(WireLen) * size_t(p.count), p.peer,
                     a_->tag, &p.lens) == 0
               ? ZIP_ALGO_OK
               : ZIP_ALGO_ERR_TRANSPORT;
}

int SagBcast::post_wires(Piece &p)
{
    const size_t raw = raw_of(p.first, p.count);
    if (raw == 0)
        return ZIP_ALGO_OK;
    return t_->irecv(t_->ctx, store_.get() + p.at, raw, p.peer, a_->tag, &p.wires) == 0
               ? ZIP_ALGO_OK
               : ZIP_ALGO_ERR_TRANSPORT;
}

// p's lengths arrived (`got` bytes). Lengths that cannot be (a wire longer than its block, a
// short or failed message) are replaced by the raw lengths, so that where wires land and what
// this rank forwards stay consistent and nobody waits; the piece is then an error.
int SagBcast::check_lengths(const Piece &p, size_t got)
{
    if (wire_lengths_valid(lens_.data() + p.first, p.count, got, [&](int i, size_t len) {
            return len <= sg_.length(block_at(p.first + i));
        }))
        return ZIP_ALGO_OK;
    for (int j = p.first; j < p.first + p.count; ++j)
        lens_[size_t(j)] = WireLen(sg_.length(block_at(j)));
    return ZIP_ALGO_ERR_LENGTH;
}

Task SagBcast::take_lengths(Piece &p)
{
    size_t got = sizeof(WireLen) * size_t(p.count);
    int err = ZIP_ALGO_OK;
    if (p.lens != nullptr && co_await wait(t_, &p.lens, &got) != 0) {
        err = ZIP_ALGO_ERR_TRANSPORT;
        got = 0;
    }
    p.lens = nullptr;
    co_return keep_first(err, check_lengths(p, got));
}

Task SagBcast::take_wires(Piece &p)
{
    const size_t wires = wires_of(p.first, p.count);
    size_t got = wires;
    if (p.wires != nullptr && co_await wait(t_, &p.wires, &got) != 0) {
        p.wires = nullptr;
        co_return ZIP_ALGO_ERR_TRANSPORT;
    }
    p.wires = nullptr;
    co_return got == wires ? ZIP_ALGO_OK : ZIP_ALGO_ERR_LENGTH;
}

void SagBcast::copy_out(char *dst, const char *src, size_t n) const
{
    transport_copy(t_, dst, src, n);
}

// Offsets first .. first+count-1, whose wires lie from byte `at` of the store, into the user
// buffer: frames decoded, raw blocks copied, adjacent ones (in the store and in the buffer) in
// one copy.
int SagBcast::settle(int first, int count, size_t at)
{
    int err = ZIP_ALGO_OK;
    char *run_to = nullptr;
    const char *run_from = nullptr;
    size_t run = 0;
    for (int j = first; j < first + count; ++j) {
        const int b = block_at(j);
        const size_t raw = sg_.length(b), len = lens_[size_t(j)];
        const char *wire = store_.get() + at;
        at += len;
        if (raw == 0)
            continue;
        if (len == raw && run > 0 && run_to + run == buf(b)) {
            run += raw;
            continue;
        }
        if (run > 0)
            copy_out(run_to, run_from, run);
        run = 0;
        if (len == raw) {
            run_to = buf(b);
            run_from = wire;
            run = raw;
        } else {
            res_->compressed = 1;
            err = keep_first(err, coder_.decode_into(wire, len, {rank_of(b), buf(b), raw}));
        }
    }
    if (run > 0)
        copy_out(run_to, run_from, run);
    return err;
}

// A receive could not be posted: nothing is sent yet; what is posted still completes, as the
// peers send it.
Task SagBcast::abandon(zip_req_t *own)
{
    if (own != nullptr && *own != nullptr)
        co_await wait(t_, own, nullptr);
    if (sub_lens_req_ != nullptr)
        co_await wait(t_, &sub_lens_req_, nullptr);
    if (sub_wires_req_ != nullptr)
        co_await wait(t_, &sub_wires_req_, nullptr);
    for (size_t i = 0; i < steps_.size() + chunks_.size(); ++i) {
        Piece &p = i < steps_.size() ? steps_[i] : chunks_[i - steps_.size()];
        if (p.lens != nullptr)
            co_await wait(t_, &p.lens, nullptr);
        if (p.wires != nullptr)
            co_await wait(t_, &p.wires, nullptr);
    }
    co_return ZIP_ALGO_OK;
}

Task SagBcast::non_root_coalesced()
{
    // Posted up front: the own block (the store's start), the lengths of the steps d < K, and
    // every chunk from d = K on, in the order each peer sends them.
    const size_t own = sg_.length(u_);
    zip_req_t own_req = nullptr;
    int err = post_own(store_.get(), &own_req);
    for (Piece &p : steps_)
        if (err == ZIP_ALGO_OK)
            err = post_lengths(p);
    for (Piece &p : chunks_) {
        if (err == ZIP_ALGO_OK)
            err = post_lengths(p);
        if (err == ZIP_ALGO_OK)
            err = post_wires(p);
    }
    if (err != ZIP_ALGO_OK) {
        co_await abandon(&own_req);
        co_return err;
    }

    // Chunk 0, textbook: step d sends offsets 0 .. c-1 once the steps before it have arrived;
    // its wires land behind theirs.
    size_t got = own;
    bool ok = true; // the previous step's wires are all there
    if (tree() && subtree() > 1) {
        err = co_await forward_subtree();
        ok = err == ZIP_ALGO_OK;
        got = sub_lens_[0];
        if (got > 0)
            copy_out(store_.get(), sub_wires_.get(), got);
    } else if (own_req != nullptr && co_await wait(t_, &own_req, &got) != 0) {
        err = ZIP_ALGO_ERR_TRANSPORT;
        got = own;
        ok = false;
    }
    lens_[0] = WireLen(got);
    size_t held = got; // the store's bytes that hold offsets 0 .. d-1
    if (!steps_.empty()) {
        steps_[0].at = held;
        err = keep_first(err, post_wires(steps_[0]));
    }
    int prev = 0, prev_count = 1; // the previous step's offsets (first: the own block)
    size_t prev_at = 0;           // and where their wires lie
    for (size_t k = 0; k < steps_.size(); ++k) {
        Piece &p = steps_[k];
        err = keep_first(err, send_piece(0, p.count, 0, (u_ - p.first + q_) % q_));
        int step_err = co_await take_lengths(p);
        const size_t wires = wires_of(p.first, p.count);
        // The next step's wires land behind this step's: posted before these arrive.
        if (k + 1 < steps_.size()) {
            steps_[k + 1].at = held + wires;
            err = keep_first(err, post_wires(steps_[k + 1]));
        }
        // The previous step's blocks (the own block first) settle while this step moves.
        if (ok)
            err = keep_first(err, settle(prev, prev_count, prev_at));
        step_err = keep_first(step_err, co_await take_wires(p));
        err = keep_first(err, step_err);
        ok = step_err == ZIP_ALGO_OK;
        prev = p.first;
        prev_count = p.count;
        prev_at = held;
        held += wires;
    }
    if (ok)
        err = keep_first(err, settle(prev, prev_count, prev_at));

    // Steps d >= K, chunk by chunk in offset order (each peer's order): chunk i goes to every
    // u - d whose c it starts below as soon as it is here, then settles while later ones move.
    for (int i = 0; i * chunk_ < q_; ++i) {
        const int first = i * chunk_;
        const int count = std::min(chunk_, q_ - first);
        size_t at = 0;
        bool here = true;
        if (i > 0) {
            Piece &p = chunks_[size_t(i) - 1];
            int chunk_err = co_await take_lengths(p);
            chunk_err = keep_first(chunk_err, co_await take_wires(p));
            err = keep_first(err, chunk_err);
            here = chunk_err == ZIP_ALGO_OK;
            at = p.at;
        }
        for (int d = chunk_; d < q_; d *= 2) {
            const int c = std::min(d, q_ - d);
            if (first < c)
                err = keep_first(
                    err, send_piece(first, std::min(count, c - first), at, (u_ - d + q_) % q_));
        }
        if (i > 0 && here)
            err = keep_first(err, settle(first, count, at));
    }
    co_return co_await finish(err);
}

} // namespace

Task scatter_allgather_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                             const zip_bcast_args_t *a, zip_algo_result_t *res)
{
    SagBcast b(t, codec, a, res);
    int rc = b.prepare();
    if (rc != ZIP_ALGO_OK)
        co_return rc;
    // (No co_await inside ?: here: GCC 12 miscompiles it, bcast_algo.cpp.)
    if (t->rank == a->root && a->sag_tree != 0)
        rc = co_await b.root_tree();
    else if (t->rank == a->root)
        rc = co_await b.root();
    else if (b.coalesced())
        rc = co_await b.non_root_coalesced();
    else
        rc = co_await b.non_root();
    if (rc == ZIP_ALGO_OK)
        b.tally();
    co_return rc;
}

} // namespace zipcoll
