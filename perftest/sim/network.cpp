#include "network.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace sg4 = simgrid::s4u;

namespace simscale
{
namespace
{

constexpr double kClockSpeed = 1e9; // flops per second of the clock host's cores

// pair_half_duplex: messages up to this size pass beside the pair's message (Open MPI's
// btl_tcp_eager_limit; on netemu a 2-rank exchange of 64 KiB messages took no longer than one
// way, of 128 KiB twice as long).
constexpr size_t kPairEager = 65536;

uint64_t pair_key(int a, int b)
{
    return a < b ? uint64_t(a) << 32 | uint32_t(b) : uint64_t(b) << 32 | uint32_t(a);
}

} // namespace

Network::Network(std::vector<int> rank_node, std::function<double(int, int)> node_latency,
                 std::vector<sg4::Host *> clock, bool pair_half_duplex)
    : rank_node_(std::move(rank_node)), node_latency_(std::move(node_latency)),
      state_(rank_node_.size()), clock_(std::move(clock)), pair_half_duplex_(pair_half_duplex)
{
}

sg4::Mailbox *Network::acquire(int src, int dst)
{
    // Lease first: Mailbox::by_name is a simcall, during which other actors run and may
    // acquire the same pair. The lease (its users count) pins the map entry meanwhile.
    Lease *lease = &leased_[uint64_t(src) << 32 | uint32_t(dst)];
    ++lease->users;
    if (lease->mailbox == nullptr) {
        sg4::Mailbox *mb;
        if (!pool_.empty()) {
            mb = pool_.back();
            pool_.pop_back();
        } else {
            mb = sg4::Mailbox::by_name("m" + std::to_string(created_++));
        }
        if (lease->mailbox == nullptr)
            lease->mailbox = mb;
        else
            pool_.push_back(mb); // the other end leased one while we were creating ours
    }
    return lease->mailbox;
}

void Network::release(int src, int dst)
{
    auto it = leased_.find(uint64_t(src) << 32 | uint32_t(dst));
    if (--it->second.users == 0) {
        // Every send and receive posted on it has completed, so its queue is empty.
        pool_.push_back(it->second.mailbox);
        leased_.erase(it);
    }
}

void Network::post_send(Request *r)
{
    // The pair is taken before the simcalls below, during which other actors run.
    const bool takes_pair = pair_half_duplex_ && r->bytes > kPairEager;
    if (takes_pair)
        pair_[pair_key(r->src, r->dst)] = nullptr;
    // The receiver owns the parcel once it has the message.
    r->comm = acquire(r->src, r->dst)->put_async(r->parcel.release(), r->bytes);
    r->moving = true;
    if (takes_pair)
        pair_[pair_key(r->src, r->dst)] = r->comm;
}

sg4::ActivityPtr *Network::pair_busy(int a, int b)
{
    if (!pair_half_duplex_)
        return nullptr;
    auto it = pair_.find(pair_key(a, b));
    return it == pair_.end() ? nullptr : &it->second;
}

bool Network::try_post(int rank, int peer)
{
    RankState &st = state_[size_t(rank)];
    Out &o = st.out.find(peer)->second;
    if (o.moving != nullptr || o.queued.empty() ||
        (o.queued.front()->bytes > kPairEager && pair_busy(rank, peer) != nullptr))
        return false;
    o.moving = o.queued.front();
    o.queued.pop_front();
    post_send(o.moving);
    if (o.queued.empty())
        st.backed_up.erase(std::find(st.backed_up.begin(), st.backed_up.end(), peer));
    return true;
}

Request *Network::isend(int src, int dst, size_t bytes, const void *data)
{
    if (message_cpu_s_ > 0.0)
        compute(src, cpu_[size_t(src)], message_cpu_s_);
    auto *r = new Request;
    r->src = src;
    r->dst = dst;
    r->bytes = bytes;
    r->parcel = std::make_unique<Parcel>();
    r->parcel->len = bytes;
    if (data != nullptr && bytes > 0) {
        const char *p = static_cast<const char *>(data);
        r->parcel->bytes.assign(p, p + bytes);
    }
    RankState &st = state_[size_t(src)];
    Out &o = st.out[dst];
    if (o.moving == nullptr && o.queued.empty() &&
        (bytes <= kPairEager || pair_busy(src, dst) == nullptr)) {
        post_send(r);
        o.moving = r;
    } else {
        // Even if the message ahead has already completed: this rank's next blocking call,
        // at this same simulated time, sees that and posts this one. (Asking SimGrid 3.32
        // with Comm::test() leaves state behind in the actor that slows every later call.)
        if (o.queued.empty())
            st.backed_up.push_back(dst);
        o.queued.push_back(r);
    }
    return r;
}

Request *Network::irecv(int dst, int src, size_t cap, void *into)
{
    auto *r = new Request;
    r->src = src;
    r->dst = dst;
    r->receive = true;
    r->bytes = cap;
    r->into = into;
    r->comm = acquire(src, dst)->get_async<void>(&r->payload);
    return r;
}

void Network::sent(int rank, Request *r)
{
    RankState &st = state_[size_t(rank)];
    auto it = st.out.find(r->dst);
    Out &o = it->second;
    r->moving = false;
    o.moving = nullptr;
    if (pair_half_duplex_) {
        auto p = pair_.find(pair_key(rank, r->dst));
        if (p != pair_.end() && p->second == r->comm) {
            pair_.erase(p);
        }
    }
    if (!o.queued.empty())
        try_post(rank, r->dst); // else the peer's message took the pair first: block() waits
    else
        st.out.erase(it);
}

size_t Network::block(int rank, const sg4::ActivityPtr *extra, size_t n, double deadline)
{
    RankState &st = state_[size_t(rank)];
    // A send this rank already saw complete (below, as the message ahead of a queued one) is
    // finished for SimGrid, which would not report it again.
    for (size_t i = 0; i < n; ++i)
        if (extra[i]->get_state() == sg4::Activity::State::FINISHED)
            return i;
    std::vector<sg4::ActivityPtr> &acts = st.block_acts;
    std::vector<int> &peers = st.block_peers;
    sg4::ExecPtr timer;
    while (true) {
        if (pair_half_duplex_) {
            // Sends held back by the peer's message: post those whose pair is free now.
            bool posted = false;
            peers.assign(st.backed_up.begin(), st.backed_up.end());
            for (int peer : peers)
                posted = try_post(rank, peer) || posted;
            if (posted && n == 0 && deadline < 0)
                return 0;
        }
        acts.assign(extra, extra + n);
        peers.clear();
        for (int peer : st.backed_up) {
            const Request *moving = st.out.find(peer)->second.moving;
            // Behind this rank's own message to peer, or (pair_half_duplex) the peer's to it
            // (null while the peer is posting it).
            sg4::ActivityPtr c = moving != nullptr ? moving->comm : *pair_busy(rank, peer);
            if (c && std::find(extra, extra + n, c) == extra + n) {
                acts.push_back(c);
                peers.push_back(peer);
            }
        }
        if (deadline >= 0 && !timer) {
            const double left = deadline - sg4::Engine::get_clock();
            // Below SimGrid's time precision (1e-9 s) a wait is no wait.
            if (left < 1e-9)
                return n;
            if (acts.empty()) {
                sg4::this_actor::sleep_for(left);
                return n;
            }
            // Waiting out a latency while sends may need posting. Not wait_any_for: SimGrid
            // 3.32 leaves a timed-out wait registered on the activities it watched, which
            // made every later completion of a long-lived send slower (1024 ranks: hours).
            // An execution on the node's clock host, where it shares no core, ends at the
            // deadline.
            timer = sg4::Exec::init();
            timer->set_flops_amount(left * kClockSpeed)
                ->set_host(clock_[size_t(rank_node_[size_t(rank)])])
                ->start();
        }
        if (timer)
            acts.push_back(timer);
        if (acts.empty() && !st.backed_up.empty()) {
            // Only sends behind a peer that is posting its message right now: let it.
            sg4::this_actor::yield();
            continue;
        }
        const ssize_t k = sg4::Activity::wait_any(acts);
        if (timer && size_t(k) == acts.size() - 1)
            return n; // the deadline passed
        if (size_t(k) < n)
            return size_t(k);
        const int peer = peers[size_t(k) - n];
        Request *moving = st.out.find(peer)->second.moving;
        if (moving != nullptr && moving->comm == acts[size_t(k)]) {
            sent(rank, moving);
        } else {
            // The peer's message to this rank has moved: the pair is free.
            auto p = pair_.find(pair_key(rank, peer));
            if (p != pair_.end() && p->second == acts[size_t(k)]) {
                pair_.erase(p);
            }
            try_post(rank, peer);
        }
        if (n == 0 && deadline < 0)
            return 0; // a caller waiting for a queued send to be posted looks again
    }
}

Completion Network::finish(Request *r)
{
    release(r->src, r->dst);
    Completion c;
    if (r->receive) {
        const std::unique_ptr<Parcel> p(static_cast<Parcel *>(r->payload));
        c.receive = true;
        c.cap = r->bytes;
        c.len = p->len;
        c.error = c.len > r->bytes ? 1 : 0;
        if (r->into != nullptr && !p->bytes.empty())
            std::memcpy(r->into, p->bytes.data(), std::min(p->bytes.size(), r->bytes));
    }
    delete r;
    return c;
}

void Network::arrive(int rank, const Request *r, const ArrivalWork *work)
{
    // The last byte left at the transfer's end; it arrives a latency later.
    double at = r->comm->get_finish_time() + latency_s(r->src, r->dst);
    if (work != nullptr)
        at += work->seconds(r->into, static_cast<const Parcel *>(r->payload)->len, r->bytes);
    block(rank, nullptr, 0, at);
    if (message_cpu_s_ > 0.0)
        compute(rank, cpu_[size_t(rank)], message_cpu_s_);
}

Completion Network::wait(Request *r, const ArrivalWork *work)
{
    if (r->receive) {
        block(r->dst, &r->comm, 1);
        arrive(r->dst, r, work);
        return finish(r);
    }
    while (r->comm == nullptr)
        block(r->src, nullptr, 0); // the sends ahead of it to the same peer move first
    block(r->src, &r->comm, 1);
    if (r->moving)
        sent(r->src, r);
    return finish(r);
}

Completion Network::wait_any(std::vector<Request *> &reqs, const ArrivalWork *work)
{
    int owner = -1;
    for (const Request *r : reqs)
        if (r != nullptr)
            owner = r->receive ? r->dst : r->src;
    if (owner < 0) {
        Completion none;
        none.index = reqs.size();
        return none;
    }
    std::vector<sg4::ActivityPtr> &acts = state_[size_t(owner)].any_acts;
    std::vector<size_t> &where = state_[size_t(owner)].any_where;
    while (true) {
        acts.clear();
        where.clear();
        for (size_t i = 0; i < reqs.size(); ++i) {
            Request *r = reqs[i];
            if (r == nullptr)
                continue;
            if (r->comm) {
                acts.push_back(r->comm);
                where.push_back(i);
            }
        }
        if (acts.empty()) {
            block(owner, nullptr, 0); // only queued sends: let the ones ahead of them move
            continue;
        }
        const size_t i = where[block(owner, acts.data(), acts.size())];
        Request *r = reqs[i];
        if (r->receive)
            arrive(owner, r, work);
        else if (r->moving)
            sent(owner, r);
        reqs[i] = nullptr;
        Completion c = finish(r);
        c.index = i;
        return c;
    }
}

void Network::compute(int rank, sg4::Host *host, double seconds)
{
    if (seconds <= 0.0)
        return;
    sg4::ExecPtr work = sg4::this_actor::exec_init(seconds * 1e9);
    work->set_host(host);
    work->start();
    const sg4::ActivityPtr act = work;
    block(rank, &act, 1);
}

} // namespace simscale
