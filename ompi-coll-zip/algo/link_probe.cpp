// The link rates the policy starts from (zip_algo_probe_links in zip_algo.h): short ping-pongs
// over the transport, so that the same probe runs over the PML, in unit tests and in a
// simulator.
#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "steady_ns.hpp"
#include "zip_algo.h"

namespace
{

constexpr size_t kProbeSmall = 256 * 1024;
// A slow link's second size, for slow_link_rate: half the small probe, not twice it, so that
// it adds half the small probe's time to the first call instead of twice it (4 ranks at 1 Gbit/s,
// two partners each: the first MPI_Allreduce took 221-226 ms with a 512 KiB second size).
constexpr size_t kProbeHalf = kProbeSmall / 2;
constexpr size_t kProbeLarge = 1024 * 1024;
// The best of several rounds, a pause apart: a round whose partner was descheduled (ranks
// sharing cores, OS noise) reads the link 10-50x slow, and rounds run back to back tend to hit
// the same scheduling period. Three rounds read shared memory at 147-8796 MB/s across runs with
// 3 ranks on 2 cores, and zip then compressed on a link faster than its codec.
constexpr int kRounds = 8;
constexpr auto kPause = std::chrono::microseconds(500);
// A link that moves the small probe faster than this is measured again with the large one: on
// a fast link a 256 KiB round trip is mostly latency and handshakes.
constexpr double kFastBps = 2e8;

int send_bytes(const zip_transport_t *t, const void *buf, size_t n, int peer, int tag)
{
    zip_req_t req = nullptr;
    if (t->isend(t->ctx, buf, n, peer, tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    return t->wait(t->ctx, &req, nullptr) != 0 ? ZIP_ALGO_ERR_TRANSPORT : ZIP_ALGO_OK;
}

int recv_bytes(const zip_transport_t *t, void *buf, size_t n, int peer, int tag)
{
    zip_req_t req = nullptr;
    size_t got = 0;
    if (t->irecv(t->ctx, buf, n, peer, tag, &req) != 0)
        return ZIP_ALGO_ERR_TRANSPORT;
    return t->wait(t->ctx, &req, &got) != 0 || got != n ? ZIP_ALGO_ERR_TRANSPORT : ZIP_ALGO_OK;
}

// Best round-trip time of `bytes` with `partner` (the first round pays for connection setup), in
// seconds. Both ends call it; the lower rank times, and 0 is the higher rank's answer.
double ping_pong(const zip_transport_t *t, int partner, char *buf, size_t bytes, int tag)
{
    const bool leads = t->rank < partner;
    double best = 0.0;
    for (int round = 0; round < kRounds; ++round) {
        if (round > 0 && leads)
            std::this_thread::sleep_for(kPause); // the partner waits in its receive
        const uint64_t t0 = zipcoll::steady_ns();
        const int rc = leads ? send_bytes(t, buf, bytes, partner, tag) ||
                                   recv_bytes(t, buf, bytes, partner, tag)
                             : recv_bytes(t, buf, bytes, partner, tag) ||
                                   send_bytes(t, buf, bytes, partner, tag);
        const double dt = 1e-9 * double(zipcoll::steady_ns() - t0);
        if (rc != 0)
            return 0.0;
        if (leads && dt > 0.0 && (best == 0.0 || dt < best))
            best = dt;
    }
    return best;
}

double rate_of(size_t bytes, double round_trip_s)
{
    return round_trip_s > 0.0 ? 2.0 * double(bytes) / round_trip_s : 0.0;
}

// A slow link's rate from the small probe and one of half its size: the rate of the bytes the
// small one adds. What a link lets pass at once, before its rate holds (a token bucket's burst:
// netemu's 70 KB at 1 Gbit/s made 256 KiB ping-pongs read 154-176 MB/s), and its latency cancel
// out, as long as the burst is under the half probe's 128 KiB. Where latency dominates (the
// slope above the small probe's rate) the small probe's rate stays, as before; a slope below
// half the small probe's own rate is noise (a round trip of one of them that never ran
// undisturbed), and that rate stands instead.
double slow_link_rate(double small_s, double half_s)
{
    const double small = rate_of(kProbeSmall, small_s);
    if (!(small_s > half_s) || half_s <= 0.0 || small == 0.0)
        return small;
    const double slope = rate_of(kProbeSmall - kProbeHalf, small_s - half_s);
    if (slope > small)
        return small;
    return slope < 0.5 * small ? small : slope;
}

// The pair's rate: the small probe, then the large one where the link looks fast, else the half
// one for slow_link_rate (the lower rank tells the higher one which).
double measure_pair(const zip_transport_t *t, int partner, char *buf, int tag)
{
    const double small_s = ping_pong(t, partner, buf, kProbeSmall, tag);
    char fast = rate_of(kProbeSmall, small_s) > kFastBps;
    const int rc = t->rank < partner ? send_bytes(t, &fast, 1, partner, tag)
                                     : recv_bytes(t, &fast, 1, partner, tag);
    if (rc != ZIP_ALGO_OK)
        return rate_of(kProbeSmall, small_s);
    if (fast) {
        const double large = rate_of(kProbeLarge, ping_pong(t, partner, buf, kProbeLarge, tag));
        return std::max(large, rate_of(kProbeSmall, small_s));
    }
    return slow_link_rate(small_s, ping_pong(t, partner, buf, kProbeHalf, tag));
}

// Whether a pair times its round. Each end says whether it leads the round (its own view of the
// nodes, zip_algo_probe_leads_node) and whether it still needs the round's class (its pair of an
// earlier round has not timed it); the pair times the round where both lead and either needs it.
// Both ends decide from the same two answers, so an uneven placement cannot leave one end
// ping-ponging alone.
bool pair_times(const zip_transport_t *t, int partner, int tag, bool leads, bool needs)
{
    char out = char((leads ? 1 : 0) | (needs ? 2 : 0)), in = 0;
    zip_req_t rreq = nullptr, sreq = nullptr;
    size_t got = 0;
    if (t->irecv(t->ctx, &in, 1, partner, tag, &rreq) != 0)
        return false;
    const bool sent = t->isend(t->ctx, &out, 1, partner, tag, &sreq) == 0;
    const bool received = t->wait(t->ctx, &rreq, &got) == 0 && got == 1;
    const bool done = sent && t->wait(t->ctx, &sreq, nullptr) == 0;
    return done && received && leads && (in & 1) != 0 && (needs || (in & 2) != 0);
}

// The rounds of the probe: partner rank ^ bit for each bit that is not 0.
struct ProbeRounds {
    int bits[2];
};

ProbeRounds probe_rounds(int size)
{
    int h = 1;
    while (2 * h <= size / 2)
        h *= 2;
    return {{1, h > 1 ? h : 0}};
}

int peer_class(const bool *peer_on_node, int p)
{
    return peer_on_node != nullptr && peer_on_node[p] ? ZIP_PEER_LOCAL : ZIP_PEER_REMOTE;
}

// Whether rank's pair in the round of `bit` is one that times the link, as far as this end can
// tell: every on-node pair (shared memory is not one link that they share), and of the pairs
// that cross the node's NIC only the lowest rank's (zip_algo_probe_leads_node).
bool times_round(int rank, int size, int bit, const bool *peer_on_node)
{
    const int p = rank ^ bit;
    return peer_class(peer_on_node, p) == ZIP_PEER_LOCAL ||
           zip_algo_probe_leads_node(rank, size, bit, peer_on_node);
}

} // namespace

extern "C" int zip_algo_probe_links(const zip_transport_t *t, int tag, const bool *peer_on_node,
                                    const bool wanted[2], double link[2])
{
    // Mapped pages of its own (zip_mem_alloc): a freed 1 MiB heap chunk would raise glibc's mmap
    // threshold for the application's later allocations.
    struct Unmap {
        void operator()(char *p) const noexcept { zip_mem_free(p, kProbeLarge); }
    };
    std::unique_ptr<char, Unmap> buf(static_cast<char *>(zip_mem_alloc(kProbeLarge)));
    if (!buf)
        return ZIP_ALGO_ERR_NOMEM;
    // The classes a pair of this rank has timed: with one rank per node both rounds cross NICs,
    // and the second would time what the first did (4 ranks at 1 Gbit/s: half the probe's time).
    bool timed[2] = {false, false};
    for (const int bit : probe_rounds(t->size).bits) {
        const int p = t->rank ^ bit;
        if (bit == 0 || p >= t->size)
            continue;
        const int cls = peer_class(peer_on_node, p);
        const bool needs = !timed[cls] && (wanted == nullptr || wanted[cls]);
        if (!pair_times(t, p, tag, times_round(t->rank, t->size, bit, peer_on_node), needs))
            continue;
        timed[cls] = true;
        const double rate = measure_pair(t, p, buf.get(), tag);
        if (rate > link[cls])
            link[cls] = rate;
    }
    return ZIP_ALGO_OK;
}

extern "C" void zip_algo_probe_times(int rank, int size, const bool *peer_on_node, bool times[2])
{
    times[ZIP_PEER_LOCAL] = times[ZIP_PEER_REMOTE] = false;
    for (const int bit : probe_rounds(size).bits) {
        const int p = rank ^ bit;
        // The lower rank of a pair that leads its round times it, unless both ends' pairs of
        // the first round timed the class already, which only the partner knows: a claim too
        // many only offers a kept rate that the agreement did not need.
        if (bit != 0 && p < size && rank < p && times_round(rank, size, bit, peer_on_node))
            times[peer_class(peer_on_node, p)] = true;
    }
}

extern "C" bool zip_algo_probe_leads_node(int rank, int size, int bit, const bool *peer_on_node)
{
    if (peer_on_node == nullptr)
        return true;
    for (int q = 0; q < rank; ++q) {
        if (!peer_on_node[q])
            continue;
        const int partner = q ^ bit;
        if (partner < size && partner != rank && !peer_on_node[partner])
            return false; // a lower rank of this node crosses the NIC in this round
    }
    return true;
}
