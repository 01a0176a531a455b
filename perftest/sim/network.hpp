// Point-to-point messages between simulated ranks, with MPI's matching rules: a receive names
// its sender, and messages between one pair of ranks match in the order they were posted.
//
// Timing: a message moves once both its send and its receive are posted (as with MPI's
// rendezvous protocol, without the handshake's round trip), and the messages of one pair move
// one after another, as bytes do through one TCP connection or one InfiniBand queue pair.
// Its bytes then take their share of every link on the route (SimGrid's max-min sharing with
// the messages of other pairs), and the receiver has it one route latency after the last
// byte left. The platform's links therefore carry no latency of their own: SimGrid would make
// every message in flight wait out its latency while holding its share of the bandwidth, so
// that four 48 KiB messages queued on a 100 Gbit/s link with 2 us latency moved 12 % slower
// than the link.
//
// A rank whose earlier message to the same peer is still moving has its next one queued; it
// posts it itself when the earlier one completes, which it notices in whatever it is blocked
// in (a wait, or its core's work: compute()), as a NIC keeps sending while its process works.
//
// With `pair_half_duplex` (simscale --tcp-btl-pairs; a model of Open MPI's TCP BTL, not of
// InfiniBand or UCX) the two directions of a pair of ranks share that order too: one message
// moves between two ranks at a time, whichever way, as measured on perftest/netemu (2 ranks,
// MPI_Sendrecv of 128 KiB-4 MiB each way: twice the one-way time; 4 ranks in a ring, each
// sending right and receiving left: once; docs/scale.md, "What the TCP BTL serialises").
// Messages within the TCP BTL's eager limit (64 KiB) are not held back and hold nothing back
// (64 KiB each way took no longer than one way). A send held back is posted by its own rank
// once the message ahead completes.
//
// Messages carry their length, and their bytes only where the sender gives them (isend's
// `data`): the simulated ranks' data is not simulated, but an algorithm's own small messages
// (the scatter-allgather bcast's step lengths) must be read by their receiver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <functional>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

namespace simscale
{

// What a message hands its receiver.
struct Parcel {
    size_t len = 0;
    std::vector<char> bytes; // empty: the message carries none
};

// One posted send or receive, owned by the Network until it is waited for.
struct Request {
    simgrid::s4u::ActivityPtr comm; // null while a send waits behind an earlier one to its peer
    int src = -1;
    int dst = -1;
    bool receive = false;
    size_t bytes = 0;               // send: the length; receive: the length posted
    std::unique_ptr<Parcel> parcel; // send: what the message carries, until it is posted
    void *payload = nullptr;        // receive: the sender's Parcel, once it has arrived
    void *into = nullptr;           // receive: where carried bytes go (nullptr: dropped)
    bool moving = false; // send: the one of its pair whose bytes move (see Network::sent)
};

// What a completed request was.
struct Completion {
    int error = 0; // 1: a message longer than its receive (MPI's truncation error)
    bool receive = false;
    size_t cap = 0;   // receive: the length posted
    size_t len = 0;   // receive: the length that arrived
    size_t index = 0; // wait_any: which request
};

// Work a receiver does on a message as soon as it has arrived, before anything else (zip's
// copy of a frame aside): added to the wait for the message as a delay, which spares the
// simulation an execution per message. Such work is short, so it is not made to compete with
// the node's codec work for cores.
class ArrivalWork
{
  public:
    virtual ~ArrivalWork() = default;
    // `into`: the receive's (irecv); len: what arrived, cap: what was posted.
    virtual double seconds(const void *into, size_t len, size_t cap) const = 0;
};

class Network
{
  public:
    // rank_node[r]: the node rank r runs on; node_latency(a, b): the one-way latency from
    // node a to node b (a == b: between two ranks of one node). clock[n]: a host of 1 Gflop/s
    // cores, at least as many as node n has ranks, on which its ranks wait out latencies as
    // executions (one host per node: with one for all, every event re-solved the sharing of
    // all waits, and a 1024-rank bcast at 1 Gbit/s took minutes).
    Network(std::vector<int> rank_node, std::function<double(int, int)> node_latency,
            std::vector<simgrid::s4u::Host *> clock, bool pair_half_duplex = false);

    // Every message then costs `seconds` of CPU on cpu[rank]: its sender's before it leaves,
    // its receiver's once it has arrived (PlatformSpec::message_cpu_s).
    void set_message_cpu(double seconds, std::vector<simgrid::s4u::Host *> cpu)
    {
        message_cpu_s_ = seconds;
        cpu_ = std::move(cpu);
    }

    int ranks() const { return int(rank_node_.size()); }
    bool same_node(int a, int b) const { return rank_node_[size_t(a)] == rank_node_[size_t(b)]; }
    double latency_s(int a, int b) const
    {
        return node_latency_(rank_node_[size_t(a)], rank_node_[size_t(b)]);
    }

    // Called by the actor of src. `data`: the message's bytes, copied now and carried to the
    // receiver (nullptr: none).
    Request *isend(int src, int dst, size_t bytes, const void *data = nullptr);
    // Called by the actor of dst. `into`: where the bytes a message carries go (nullptr: they
    // are dropped), at most cap of them.
    Request *irecv(int dst, int src, size_t cap, void *into = nullptr);

    // Blocks the calling actor (the request's owner) until r completes, and frees r.
    Completion wait(Request *r, const ArrivalWork *work = nullptr);
    // Blocks until one of the non-null requests (all owned by the calling actor) completes,
    // frees it and nulls its slot (index: reqs.size() when none is active).
    Completion wait_any(std::vector<Request *> &reqs, const ArrivalWork *work = nullptr);
    // `seconds` of single-core work by `rank` on `host` (its node, or a shared machine).
    void compute(int rank, simgrid::s4u::Host *host, double seconds);

    void send(int src, int dst, size_t bytes) { wait(isend(src, dst, bytes)); }
    // MPI_Sendrecv of `rank`: `out` bytes to `to` while `in` bytes come from `from` (a side of 0
    // bytes is skipped).
    void sendrecv(int rank, int to, size_t out, int from, size_t in)
    {
        Request *r = in > 0 ? irecv(rank, from, in) : nullptr;
        Request *s = out > 0 ? isend(rank, to, out) : nullptr;
        if (r)
            wait(r);
        if (s)
            wait(s);
    }
    size_t recv(int dst, int src, size_t cap) { return wait(irecv(dst, src, cap)).len; }

  private:
    struct Lease {
        simgrid::s4u::Mailbox *mailbox = nullptr;
        int users = 0;
    };
    // A rank's messages to one peer: the one moving, and those queued behind it (with
    // pair_half_duplex also behind the peer's message to this rank: moving is then null).
    struct Out {
        Request *moving = nullptr;
        std::deque<Request *> queued;
    };
    struct RankState {
        std::unordered_map<int, Out> out;
        std::vector<int> backed_up; // peers whose Out has a queue
        // Scratch of block() and wait_any(), kept to spare an allocation per message.
        std::vector<simgrid::s4u::ActivityPtr> block_acts, any_acts;
        std::vector<int> block_peers;
        std::vector<size_t> any_where;
    };

    // Mailboxes are per ordered pair, which gives MPI's per-pair order. SimGrid never frees a
    // mailbox, so that an alltoallv of 4096 ranks does not leave 16.7 million of them, a pair
    // holds one only while it has messages posted and returns it to a pool afterwards.
    simgrid::s4u::Mailbox *acquire(int src, int dst);
    void release(int src, int dst);

    void post_send(Request *r);
    // pair_half_duplex: the message moving between a and b either way (null: none, or it has
    // completed).
    simgrid::s4u::ActivityPtr *pair_busy(int a, int b);
    // Posts rank's next queued send to peer if nothing moves to peer and the pair is free;
    // true if it did.
    bool try_post(int rank, int peer);
    // Blocks `rank` until one of `extra` completes (returns its index) or, with a deadline,
    // until then (returns extra.size()); meanwhile posts the rank's queued sends as the
    // messages ahead of them complete. With neither, returns after posting one.
    size_t block(int rank, const simgrid::s4u::ActivityPtr *extra, size_t n,
                 double deadline = -1.0);
    // A send of `rank` completed: the next one to the same peer may move.
    void sent(int rank, Request *r);
    Completion finish(Request *r);
    // The receive r has completed: waits until it has arrived and `work` is done.
    void arrive(int rank, const Request *r, const ArrivalWork *work);

    std::vector<int> rank_node_;
    std::function<double(int, int)> node_latency_;
    std::vector<RankState> state_;
    std::vector<simgrid::s4u::Host *> clock_;
    bool pair_half_duplex_ = false;
    double message_cpu_s_ = 0;
    std::vector<simgrid::s4u::Host *> cpu_; // per rank, with message_cpu_s_
    // pair_half_duplex: per unordered pair (lower rank << 32 | higher), the message moving.
    std::unordered_map<uint64_t, simgrid::s4u::ActivityPtr> pair_;
    std::unordered_map<uint64_t, Lease> leased_;
    std::vector<simgrid::s4u::Mailbox *> pool_;
    size_t created_ = 0;
};

} // namespace simscale
