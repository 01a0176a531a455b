#include "test_coll_algo_support.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace algotest
{

zip_transport_t World::transport(int rank)
{
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (endpoints_.empty()) {
            endpoints_.reserve(size_);
            for (int r = 0; r < size_; ++r)
                endpoints_.push_back({this, r});
        }
    }
    zip_transport_t t{};
    t.ctx = &endpoints_[rank];
    t.rank = rank;
    t.size = size_;
    t.isend = &World::isend;
    t.irecv = &World::irecv;
    t.wait = &World::wait;
    t.waitany = &World::waitany;
    if (testing_)
        t.test = &World::test;
    if (typed_) {
        t.isend_plain = &World::isend_plain;
        t.irecv_plain = &World::irecv_plain;
        t.byte_view = &World::byte_view;
    }
    t.max_message = max_message_;
    if (copy_hook)
        t.copy = &World::copy;
    if (progress_hook)
        t.progress = &World::progress;
    return t;
}

void World::run(const std::function<void(int, const zip_transport_t &)> &body)
{
    std::vector<zip_transport_t> ts;
    progress_calls.assign(size_t(size_), 0);
    most_open_recvs.assign(size_t(size_), 0);
    open_recvs_.assign(size_t(size_), 0);
    for (int r = 0; r < size_; ++r)
        ts.push_back(transport(r));
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r)
        threads.emplace_back([&, r] { body(r, ts[r]); });
    for (auto &th : threads)
        th.join();
}

size_t World::unreceived() const
{
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto &[key, count] : sent_count_) {
        auto it = delivered_.find(key);
        n += count - (it == delivered_.end() ? 0 : it->second);
    }
    for (const auto &[key, msgs] : sent_) {
        auto it = delivered_.find(key);
        n += msgs.size() - (it == delivered_.end() ? 0 : it->second);
    }
    return n;
}

int World::isend(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req)
{
    auto *ep = static_cast<Endpoint *>(ctx);
    World *w = ep->world;
    if (peer < 0 || peer >= w->size_ || (peer == ep->rank && !w->self_messages_))
        return 1;
    w->messages++;
    if (w->rendezvous) {
        std::lock_guard<std::mutex> lock(w->mu_);
        auto *s = new Request{};
        s->key = {peer, ep->rank, tag};
        s->seq = w->sent_count_[s->key]++;
        auto &recvs = w->waiting_recvs_[s->key];
        auto it = recvs.find(s->seq);
        if (it != recvs.end()) {
            w->deliver(it->second, static_cast<const char *>(buf), len);
            recvs.erase(it);
        } else {
            w->waiting_sends_[s->key][s->seq] = {static_cast<const char *>(buf), len};
        }
        *req = s;
        w->cv_.notify_all();
        return 0;
    }
    {
        std::lock_guard<std::mutex> lock(w->mu_);
        const char *p = static_cast<const char *>(buf);
        w->sent_[{peer, ep->rank, tag}].emplace_back(p, p + len); // eager: copied at once
    }
    w->cv_.notify_all();
    *req = new Request{};
    return 0;
}

int World::irecv(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req)
{
    auto *ep = static_cast<Endpoint *>(ctx);
    World *w = ep->world;
    if (peer < 0 || peer >= w->size_ || (peer == ep->rank && !w->self_messages_))
        return 1;
    std::lock_guard<std::mutex> lock(w->mu_);
    auto *r = new Request{};
    r->is_recv = true;
    r->key = {ep->rank, peer, tag};
    r->seq = w->posted_[r->key]++; // MPI matches in posting order
    size_t &open = w->open_recvs_[size_t(ep->rank)];
    w->most_open_recvs[size_t(ep->rank)] = std::max(w->most_open_recvs[size_t(ep->rank)], ++open);
    r->buf = buf;
    r->cap = cap;
    *req = r;
    if (w->rendezvous) {
        auto &sends = w->waiting_sends_[r->key];
        auto it = sends.find(r->seq);
        if (it != sends.end()) {
            w->deliver(r, it->second.buf, it->second.len);
            sends.erase(it);
            w->cv_.notify_all();
        } else {
            w->waiting_recvs_[r->key][r->seq] = r;
        }
    }
    return 0;
}

void World::deliver(Request *r, const char *buf, size_t len)
{
    r->done = true;
    r->got = len;
    ++delivered_[r->key];
    if (len > r->cap) {
        r->rc = 2; // truncation, as MPI_ERR_TRUNCATE
        return;
    }
    if (len > 0)
        std::memcpy(r->buf, buf, len);
}

int World::isend_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req)
{
    static_cast<Endpoint *>(ctx)->world->plain_sends++;
    const auto *b = static_cast<const Typed *>(typed);
    return isend(ctx, b->data, b->bytes, peer, tag, req);
}

int World::irecv_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req)
{
    static_cast<Endpoint *>(ctx)->world->plain_recvs++;
    auto *b = static_cast<Typed *>(typed);
    return irecv(ctx, b->data, b->bytes, peer, tag, req);
}

int World::byte_view(void *ctx, void *typed, int, void **bytes)
{
    static_cast<Endpoint *>(ctx)->world->byte_views++;
    *bytes = static_cast<Typed *>(typed)->data;
    return 0;
}

void World::progress(void *ctx)
{
    const Endpoint *e = static_cast<Endpoint *>(ctx);
    ++e->world->progress_calls[size_t(e->rank)]; // each rank its own element
}

void World::copy(void *ctx, void *dst, const void *src, size_t n)
{
    World *w = static_cast<Endpoint *>(ctx)->world;
    w->copies++;
    w->copied_bytes += n;
    std::memcpy(dst, src, n);
}

int World::try_complete(Request *r, bool *done, size_t *len)
{
    *done = false;
    if (rendezvous) {
        if (r->is_recv) {
            *done = r->done;
            if (r->done && len)
                *len = r->got;
            return r->done ? r->rc : 0;
        }
        auto it = delivered_.find(r->key);
        *done = it != delivered_.end() && it->second > r->seq;
        return 0;
    }
    if (!r->is_recv) {
        *done = true;
        return 0;
    }
    auto &msgs = sent_[r->key];
    if (msgs.size() <= r->seq)
        return 0;
    std::vector<char> &m = msgs[r->seq];
    *done = true;
    ++delivered_[r->key];
    if (m.size() > r->cap)
        return 2; // truncation, as MPI_ERR_TRUNCATE
    if (!m.empty())
        std::memcpy(r->buf, m.data(), m.size());
    if (len)
        *len = m.size();
    std::vector<char>().swap(m);
    return 0;
}

void World::retire(Request *r)
{
    if (r->is_recv)
        --open_recvs_[size_t(std::get<0>(r->key))];
    delete r;
}

int World::wait(void *ctx, zip_req_t *req, size_t *len)
{
    World *w = static_cast<Endpoint *>(ctx)->world;
    auto *r = static_cast<Request *>(*req);
    if (!r)
        return 3;
    std::unique_lock<std::mutex> lock(w->mu_);
    bool done = false;
    int rc = 0;
    w->cv_.wait(lock, [&] {
        rc = w->try_complete(r, &done, len);
        return done;
    });
    w->retire(r);
    *req = nullptr;
    return rc;
}

int World::test(void *ctx, zip_req_t *req, int *done, size_t *len)
{
    World *w = static_cast<Endpoint *>(ctx)->world;
    auto *r = static_cast<Request *>(*req);
    if (!r)
        return 3;
    std::lock_guard<std::mutex> lock(w->mu_);
    bool complete = false;
    // Sends are eager here; a testing transport still reports them in flight for a few polls,
    // as a real network does, so that the algorithms suspend on sends too.
    if (!w->rendezvous && !r->is_recv && r->polls++ < 3) {
        *done = 0;
        return 0;
    }
    const int rc = w->try_complete(r, &complete, len);
    *done = complete ? 1 : 0;
    if (complete) {
        w->retire(r);
        *req = nullptr;
    }
    return rc;
}

int World::waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len)
{
    World *w = static_cast<Endpoint *>(ctx)->world;
    std::unique_lock<std::mutex> lock(w->mu_);
    int rc = 0;
    *index = n;
    w->cv_.wait(lock, [&] {
        bool any_active = false;
        for (size_t i = 0; i < n; ++i) {
            auto *r = static_cast<Request *>(reqs[i]);
            if (!r)
                continue;
            any_active = true;
            bool done = false;
            rc = w->try_complete(r, &done, len);
            if (done) {
                w->retire(r);
                reqs[i] = nullptr;
                *index = i;
                return true;
            }
        }
        return !any_active;
    });
    return rc;
}

namespace
{

constexpr uint32_t kMagic = 0x50495a54; // "TZIP"

int rle_compress(void *ctx, int, const void *src, size_t bytes, void *dst, size_t cap, size_t *out)
{
    static_cast<ToyCodec *>(ctx)->bytes_offered += bytes;
    static_cast<ToyCodec *>(ctx)->compressions++;
    const auto *s = static_cast<const unsigned char *>(src);
    auto *d = static_cast<unsigned char *>(dst);
    size_t o = 12;
    if (cap < o)
        return 1;
    std::memcpy(d, &kMagic, 4);
    const uint64_t raw = bytes;
    std::memcpy(d + 4, &raw, 8);
    for (size_t i = 0; i < bytes;) {
        size_t run = 1;
        while (i + run < bytes && run < 255 && s[i + run] == s[i])
            ++run;
        if (o + 2 > cap)
            return 1; // would not fit: the caller sends raw
        d[o++] = static_cast<unsigned char>(run);
        d[o++] = s[i];
        i += run;
    }
    *out = o;
    return 0;
}

int rle_decompress(void *ctx, const void *frame, size_t len, void *dst, size_t cap, size_t *raw_len)
{
    static_cast<ToyCodec *>(ctx)->decodes++;
    if (static_cast<ToyCodec *>(ctx)->fail_decode)
        return 5;
    const auto *f = static_cast<const unsigned char *>(frame);
    auto *d = static_cast<unsigned char *>(dst);
    uint32_t magic = 0;
    uint64_t raw = 0;
    if (len < 12)
        return 4;
    std::memcpy(&magic, f, 4);
    std::memcpy(&raw, f + 4, 8);
    if (magic != kMagic || raw > cap || (len - 12) % 2)
        return 5;
    size_t o = 0;
    for (size_t i = 12; i < len; i += 2) {
        if (o + f[i] > raw)
            return 5;
        std::memset(d + o, f[i + 1], f[i]);
        o += f[i];
    }
    if (o != raw)
        return 5;
    *raw_len = o;
    return 0;
}

} // namespace

zip_codec_ops_t ToyCodec::ops()
{
    zip_codec_ops_t o{};
    o.ctx = this;
    o.compress = rle_compress;
    o.decompress = rle_decompress;
    return o;
}

std::vector<char> make_data(size_t n, bool compressible, uint64_t seed)
{
    std::vector<char> v(n);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] =
            compressible ? static_cast<char>((i / 37 + seed) & 0xff) : static_cast<char>(x >> 24);
    }
    return v;
}

} // namespace algotest
