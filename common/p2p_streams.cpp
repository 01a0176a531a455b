// pml/zip's temporal streams: the channel tables behind p2p_streams.h.
#include "p2p_streams.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <unordered_map>
#include <vector>

#include "temporal_choice.hpp"

namespace
{

struct Ref {
    size_t bytes = 0;
    char *data = nullptr;           // malloc'd
    uint64_t kept_at = 0;           // the channel's clock when it was kept
    zipcoll::TemporalChoice choice; // sender side
};

struct Channel {
    uint32_t next = 0;      // sender: cseq of the next message; receiver: the one expected
    uint64_t clock = 0;     // counts kept messages: the rule's "kept longest ago"
    std::vector<Ref> refs;  // at most ZIP_P2P_SIZES_PER_CHANNEL, one per size
    size_t held = 0;        // bytes of refs
    size_t high = 0;        // sender: the most held at once, claimed from its pair's budget
    uint64_t pair = 0;      // sender: the peer process
    bool abandoned = false; // sender: a cseq was used by a message that never went out
    std::map<uint32_t, void *> parked; // receiver: messages waiting for their turn
};

struct KeyHash {
    size_t operator()(const zip_p2p_key_t &k) const
    {
        uint64_t h = (uint64_t(k.cid) << 32) ^ uint64_t(uint32_t(k.peer));
        h = h * 0x9e3779b97f4a7c15ull ^ uint64_t(uint32_t(k.tag));
        return size_t(h * 0xff51afd7ed558ccdull);
    }
};
struct KeyEq {
    bool operator()(const zip_p2p_key_t &a, const zip_p2p_key_t &b) const
    {
        return a.cid == b.cid && a.peer == b.peer && a.tag == b.tag;
    }
};
using Table = std::unordered_map<zip_p2p_key_t, Channel, KeyHash, KeyEq>;

Ref *find(Channel &c, size_t bytes)
{
    for (auto &r : c.refs)
        if (r.bytes == bytes)
            return &r;
    return nullptr;
}

void release(Channel &c, std::vector<Ref>::iterator it)
{
    c.held -= it->bytes;
    std::free(it->data);
    c.refs.erase(it);
}

// The stream (size) the rule drops when a new size is kept on a full channel, or end().
std::vector<Ref>::iterator victim(Channel &c, size_t bytes)
{
    if (find(c, bytes) != nullptr || c.refs.size() < ZIP_P2P_SIZES_PER_CHANNEL)
        return c.refs.end();
    auto oldest = c.refs.begin();
    for (auto it = c.refs.begin(); it != c.refs.end(); ++it)
        if (it->kept_at < oldest->kept_at)
            oldest = it;
    return oldest;
}

// The rule of p2p_streams.h, the same at both ends. data: malloc'd, taken over (NULL with
// keep: the copy failed, and the stream is dropped instead).
void apply(Channel &c, size_t bytes, bool keep, char *data)
{
    if (!keep || data == nullptr) {
        for (auto it = c.refs.begin(); it != c.refs.end(); ++it)
            if (it->bytes == bytes) {
                release(c, it);
                break;
            }
        std::free(data);
        return;
    }
    auto v = victim(c, bytes);
    if (v != c.refs.end())
        release(c, v);
    Ref *r = find(c, bytes);
    if (r == nullptr) {
        try {
            c.refs.emplace_back();
        } catch (const std::bad_alloc &) {
            std::free(data);
            return;
        }
        r = &c.refs.back();
        r->bytes = bytes;
        c.held += bytes;
    }
    std::free(r->data);
    r->data = data;
    r->kept_at = ++c.clock;
}

} // namespace

struct zip_p2p_streams {
    size_t pair_budget;
    Table send, recv;
    std::unordered_map<uint64_t, size_t> claimed; // per peer process: sum of channel highs
    zip_p2p_counts_t counts{};

    void account()
    {
        size_t s = 0, r = 0;
        for (auto &kv : send)
            s += kv.second.held;
        for (auto &kv : recv)
            r += kv.second.held;
        counts.bytes_sent_refs = s;
        counts.bytes_recv_refs = r;
        if (s > counts.peak_sent_refs)
            counts.peak_sent_refs = s;
        if (r > counts.peak_recv_refs)
            counts.peak_recv_refs = r;
    }

    // Whether the sender may keep a message of `bytes` on c: what the channel holds afterwards
    // fits its claim, or the claim can grow within the pair's budget (then it does).
    bool may_keep(Channel &c, size_t bytes)
    {
        size_t after = c.held;
        if (find(c, bytes) == nullptr) {
            auto v = victim(c, bytes);
            after = after - (v != c.refs.end() ? v->bytes : 0) + bytes;
        }
        if (after <= c.high)
            return true;
        size_t &claim = claimed[c.pair];
        const size_t extra = after - c.high;
        if (claim + extra > pair_budget)
            return false;
        claim += extra;
        c.high = after;
        return true;
    }
};

extern "C" zip_p2p_streams_t *zip_p2p_streams_create(size_t memory, unsigned nprocs)
{
    try {
        auto *s = new zip_p2p_streams;
        s->pair_budget = memory / (2 * size_t(nprocs > 1 ? nprocs - 1 : 1));
        return s;
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

extern "C" void zip_p2p_streams_destroy(zip_p2p_streams_t *s)
{
    if (s == nullptr)
        return;
    for (auto *t : {&s->send, &s->recv})
        for (auto &kv : *t)
            for (auto &r : kv.second.refs)
                std::free(r.data);
    delete s;
}

extern "C" uint32_t zip_p2p_send_begin(zip_p2p_streams_t *s, zip_p2p_key_t k, uint64_t pair,
                                       size_t bytes, zip_p2p_sample_fn sample, void *arg,
                                       const char **ref)
{
    *ref = nullptr;
    Channel *c;
    try {
        c = &s->send[k];
    } catch (const std::bad_alloc &) {
        return ZIP_P2P_ABANDONED; // out of memory: this message goes another way
    }
    if (c->abandoned)
        return ZIP_P2P_ABANDONED;
    c->pair = pair;
    Ref *r = find(*c, bytes);
    if (r != nullptr && sample != nullptr) {
        auto code = [&](const char *against, size_t n) { return sample(arg, against, n); };
        *ref = zipcoll::choose_reference(r->choice, r->data, bytes, code, &s->counts.probes);
    }
    return c->next;
}

extern "C" int zip_p2p_send_end(zip_p2p_streams_t *s, zip_p2p_key_t k, uint64_t pair,
                                const void *data, size_t bytes, int as_delta, double ratio)
{
    auto it = s->send.find(k);
    if (it == s->send.end())
        return 0;
    Channel &c = it->second;
    c.pair = pair;
    ++c.next;
    ++s->counts.temporal_sent;
    if (as_delta)
        ++s->counts.delta_frames;
    if (Ref *r = find(c, bytes)) {
        const double plain = r->choice.plain_ratio();
        if (as_delta && plain > 0.0 && ratio > plain)
            s->counts.delta_saved += uint64_t(double(bytes) / plain - double(bytes) / ratio);
        r->choice.coded(as_delta != 0, ratio);
    }
    bool keep = bytes > 0 && s->may_keep(c, bytes);
    char *copy = nullptr;
    if (keep) {
        copy = static_cast<char *>(std::malloc(bytes));
        if (copy != nullptr)
            std::memcpy(copy, data, bytes);
        keep = copy != nullptr; // out of memory: the stream is dropped, at both ends
    }
    apply(c, bytes, keep, copy); // a stream's choice stays with it while it holds a reference
    if (keep)
        ++s->counts.kept_sent;
    s->account();
    return keep ? 1 : 0;
}

extern "C" void zip_p2p_send_abandon(zip_p2p_streams_t *s, zip_p2p_key_t k)
{
    auto it = s->send.find(k);
    if (it == s->send.end())
        return;
    it->second.abandoned = true;
    while (!it->second.refs.empty())
        release(it->second, it->second.refs.begin());
    s->account();
}

extern "C" uint32_t zip_p2p_recv_next(zip_p2p_streams_t *s, zip_p2p_key_t k)
{
    auto it = s->recv.find(k);
    return it == s->recv.end() ? 0 : it->second.next;
}

extern "C" const char *zip_p2p_recv_ref(zip_p2p_streams_t *s, zip_p2p_key_t k, size_t bytes)
{
    auto it = s->recv.find(k);
    if (it == s->recv.end())
        return nullptr;
    const Ref *r = find(it->second, bytes);
    return r != nullptr ? r->data : nullptr;
}

extern "C" void zip_p2p_recv_done(zip_p2p_streams_t *s, zip_p2p_key_t k, size_t bytes, int keep,
                                  void *data)
{
    Channel *c;
    try {
        c = &s->recv[k];
    } catch (const std::bad_alloc &) {
        std::free(data);
        return;
    }
    ++c->next;
    ++s->counts.temporal_recvd;
    apply(*c, bytes, keep != 0 && data != nullptr, static_cast<char *>(data));
    s->account();
}

extern "C" int zip_p2p_recv_park(zip_p2p_streams_t *s, zip_p2p_key_t k, uint32_t cseq, void *item)
{
    try {
        return s->recv[k].parked.emplace(cseq, item).second ? 0 : -1;
    } catch (const std::bad_alloc &) {
        return -1;
    }
}

extern "C" void *zip_p2p_recv_unpark(zip_p2p_streams_t *s, zip_p2p_key_t k)
{
    auto it = s->recv.find(k);
    if (it == s->recv.end())
        return nullptr;
    auto p = it->second.parked.find(it->second.next);
    if (p == it->second.parked.end())
        return nullptr;
    void *item = p->second;
    it->second.parked.erase(p);
    return item;
}

extern "C" void zip_p2p_streams_drop_cid(zip_p2p_streams_t *s, uint32_t cid)
{
    for (auto *t : {&s->send, &s->recv})
        for (auto it = t->begin(); it != t->end();) {
            if (it->first.cid != cid) {
                ++it;
                continue;
            }
            if (t == &s->send) {
                auto cl = s->claimed.find(it->second.pair);
                if (cl != s->claimed.end())
                    cl->second -= it->second.high;
            }
            for (auto &r : it->second.refs)
                std::free(r.data);
            it = t->erase(it);
        }
    s->account();
}

extern "C" void zip_p2p_streams_counts(const zip_p2p_streams_t *s, zip_p2p_counts_t *c)
{
    *c = s->counts;
}
