#include "baselines.hpp"

#include <algorithm>
#include <cmath>

namespace simscale
{
namespace
{

// The segmented tree broadcast every tree algorithm of coll/base shares: the root sends each
// segment to all its children and waits for those sends before the next segment; an interior
// rank keeps two receives posted, and forwards segment i to its children (waiting for those
// sends) once it has arrived; a leaf keeps two receives posted.
void tree_bcast(const RankEnv &env, const TreeNode &node, size_t bytes, size_t segment)
{
    Network &net = *env.net;
    const size_t seg = (segment == 0 || segment >= bytes) ? bytes : segment;
    const size_t count = (bytes + seg - 1) / seg;
    auto len = [&](size_t i) { return std::min(seg, bytes - i * seg); };
    std::vector<Request *> sends(node.children.size());
    auto forward = [&](size_t i) {
        for (size_t c = 0; c < node.children.size(); ++c)
            sends[c] = net.isend(env.rank, node.children[c], len(i));
        for (auto *s : sends)
            net.wait(s);
    };
    if (node.parent < 0) {
        for (size_t i = 0; i < count; ++i)
            forward(i);
        return;
    }
    Request *pending = net.irecv(env.rank, node.parent, len(0));
    for (size_t i = 1; i <= count; ++i) {
        Request *next = i < count ? net.irecv(env.rank, node.parent, len(i)) : nullptr;
        net.wait(pending);
        if (!node.children.empty())
            forward(i - 1);
        pending = next;
    }
}

// Binomial scatter of ceil(bytes / P)-byte blocks, then recursive doubling (coll/base's
// scatter_allgather, for a power-of-two size).
void scatter_allgather_bcast(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    const int size = env.size(), root = env.work->root();
    const int vrank = (env.rank - root + size) % size;
    const size_t block = (bytes + size_t(size) - 1) / size_t(size);
    auto extent = [&](int first_vrank, int blocks) -> size_t {
        const size_t from = std::min(bytes, size_t(first_vrank) * block);
        const size_t to = std::min(bytes, (size_t(first_vrank) + size_t(blocks)) * block);
        return to - from;
    };
    // Scatter: receive this subtree's blocks from the parent, hand the children theirs.
    int mask = 1;
    while (mask < size) {
        if (vrank & mask) {
            const size_t mine = extent(vrank, mask);
            if (mine > 0)
                net.recv(env.rank, real_rank(vrank - mask, root, size), mine);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vrank + mask < size) {
            const size_t theirs = extent(vrank + mask, mask);
            if (theirs > 0)
                net.send(env.rank, real_rank(vrank + mask, root, size), theirs);
        }
    }
    // Allgather: at step `mask` exchange the blocks of the two subtrees of size mask.
    for (mask = 1; mask < size; mask <<= 1) {
        const int vpeer = vrank ^ mask;
        const int mine_first = vrank & ~(mask - 1), theirs_first = vpeer & ~(mask - 1);
        const size_t out = extent(mine_first, mask), in = extent(theirs_first, mask);
        const int peer = real_rank(vpeer, root, size);
        net.sendrecv(env.rank, peer, out, peer, in);
    }
}

// The segmented tree reduce of coll/base (reduce_generic), MPI_SUM of doubles: an interior rank
// keeps the receives of the next segment from every child posted while it reduces the current
// one child after child, then sends the segment's partial result to its parent without waiting
// (at most two sends in flight); a leaf sends its segments likewise; the root first copies its
// contribution into the receive buffer. Each reduction reads two segments and writes one at
// memcpy's speed (the codec table's memcpy row), as zip's path is charged.
void tree_reduce(const RankEnv &env, const TreeNode &node, size_t bytes, size_t segment)
{
    Network &net = *env.net;
    const size_t seg = (segment == 0 || segment >= bytes) ? bytes : segment;
    const size_t count = (bytes + seg - 1) / seg;
    auto len = [&](size_t i) { return std::min(seg, bytes - i * seg); };
    std::vector<Request *> sending;
    auto send_up = [&](size_t i) {
        if (sending.size() == 2) {
            net.wait(sending.front());
            sending.erase(sending.begin());
        }
        sending.push_back(net.isend(env.rank, node.parent, len(i)));
    };
    if (node.parent < 0)
        env.codec->copy(bytes);
    auto post = [&](size_t i) {
        std::vector<Request *> r;
        if (i < count)
            for (int c : node.children)
                r.push_back(net.irecv(env.rank, c, len(i)));
        return r;
    };
    std::vector<Request *> current = post(0);
    for (size_t i = 0; i < count; ++i) {
        std::vector<Request *> next = post(i + 1);
        for (auto *r : current) {
            net.wait(r);
            env.codec->copy(len(i));
        }
        if (node.parent >= 0)
            send_up(i);
        current = std::move(next);
    }
    for (auto *r : sending)
        net.wait(r);
}

// Recursive halving (a reduce-scatter: each step exchanges half of the blocks still held and
// reduces the half received), then a binomial gather of the reduced blocks to the root
// (coll/base's reduce_intra_redscat_gather, "rabenseifner"; a power-of-two size only). As
// coll/base: distance doubling (masks 1, 2, ...: the large halves between neighbouring ranks),
// then the gather in the reverse order, each rank with the step's bit set sending what it holds
// to its partner and leaving.
void rabenseifner_reduce(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    const int size = env.size(), root = env.work->root();
    const int vrank = (env.rank - root + size) % size;
    const size_t block = (bytes + size_t(size) - 1) / size_t(size);
    auto extent = [&](int first_block, int blocks) -> size_t {
        const size_t from = std::min(bytes, size_t(first_block) * block);
        const size_t to = std::min(bytes, (size_t(first_block) + size_t(blocks)) * block);
        return to - from;
    };
    int first = 0, held = size; // blocks [first, first + held)
    for (int mask = 1; mask < size; mask <<= 1) {
        const int half = held / 2;
        const bool lower = (vrank & mask) == 0;
        const int keep = lower ? first : first + half, give = lower ? first + half : first;
        const int peer = real_rank(vrank ^ mask, root, size);
        net.sendrecv(env.rank, peer, extent(give, half), peer, extent(keep, half));
        env.codec->copy(extent(keep, half));
        first = keep;
        held = half;
    }
    for (int mask = size / 2; mask > 0; mask >>= 1) {
        const int peer = real_rank(vrank ^ mask, root, size);
        if (vrank & mask) {
            const size_t mine = extent(first, held);
            if (mine > 0)
                net.send(env.rank, peer, mine);
            break;
        }
        const size_t theirs = extent(first + held, held); // the sibling above this window
        if (theirs > 0)
            net.recv(env.rank, peer, theirs);
        held *= 2;
    }
}

// Allreduce baselines (MPI_SUM of doubles; every rank first copies its contribution into the
// receive buffer, each reduction at memcpy speed as in tree_reduce). Blocks: the vector in p
// parts, the first ones a byte longer.
size_t part(size_t bytes, int parts, int i)
{
    const size_t base = bytes / size_t(parts), rem = bytes % size_t(parts);
    return base + (size_t(i) < rem ? 1 : 0);
}

// coll/base's ring (tuned 4): p - 1 steps of a reduce-scatter (send a part to rank + 1, receive
// one from rank - 1 and reduce it), then p - 1 steps of an allgather of the finished parts.
void ring_allreduce(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    const int size = env.size(), me = env.rank;
    const int next = (me + 1) % size, prev = (me - 1 + size) % size;
    env.codec->copy(bytes);
    for (int step = 0; step < size - 1; ++step) {
        const int out = ((me - step) % size + size) % size, in = ((out - 1) % size + size) % size;
        net.sendrecv(me, next, part(bytes, size, out), prev, part(bytes, size, in));
        env.codec->copy(part(bytes, size, in));
    }
    for (int step = 0; step < size - 1; ++step) {
        const int out = ((me + 1 - step) % size + size) % size;
        const int in = ((out - 1) % size + size) % size;
        net.sendrecv(me, next, part(bytes, size, out), prev, part(bytes, size, in));
    }
}

// coll/base's linear scan (coll/basic's, the default; tuned's scan 1): rank i receives the whole
// prefix of ranks 0 .. i - 1 from i - 1, reduces its own into it and sends the result on whole.
void linear_scan(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    const int me = env.rank;
    env.codec->copy(bytes);
    if (me > 0) {
        net.recv(me, me - 1, bytes);
        env.codec->copy(bytes);
    }
    if (me + 1 < env.size())
        net.send(me, me + 1, bytes);
}

// Recursive doubling (tuned's scan 2, coll/base's scan_intra_recursivedoubling): log p steps,
// each exchanging the partial result so far with rank ^ mask where it exists, both ways, and
// reducing it in (twice on the higher rank: into the result and into what goes on).
void recursive_doubling_scan(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    env.codec->copy(bytes);
    for (int mask = 1; mask < env.size(); mask <<= 1) {
        const int peer = env.rank ^ mask;
        if (peer >= env.size())
            continue;
        net.sendrecv(env.rank, peer, bytes, peer, bytes);
        env.codec->copy(bytes);
        if (env.rank > peer)
            env.codec->copy(bytes);
    }
}

// Recursive doubling (tuned 3; a power-of-two size): log p exchanges of the whole vector with
// rank ^ mask, each reduced.
void recursive_doubling_allreduce(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    env.codec->copy(bytes);
    for (int mask = 1; mask < env.size(); mask <<= 1) {
        const int peer = env.rank ^ mask;
        net.sendrecv(env.rank, peer, bytes, peer, bytes);
        env.codec->copy(bytes);
    }
}

// Rabenseifner (tuned 6, coll/base's allreduce_intra_redscat_allgather; a power-of-two size): a
// reduce-scatter of log p steps by vector halving and distance doubling (masks 1, 2, ...: the
// large halves between neighbouring ranks), then an allgather of the reduced blocks in the
// reverse order.
void rabenseifner_allreduce(const RankEnv &env, size_t bytes)
{
    Network &net = *env.net;
    const int size = env.size(), me = env.rank;
    const size_t block = (bytes + size_t(size) - 1) / size_t(size);
    auto extent = [&](int first_block, int blocks) -> size_t {
        const size_t from = std::min(bytes, size_t(first_block) * block);
        const size_t to = std::min(bytes, (size_t(first_block) + size_t(blocks)) * block);
        return to - from;
    };
    env.codec->copy(bytes);
    int first = 0, held = size;
    for (int mask = 1; mask < size; mask <<= 1) {
        const int half = held / 2;
        const bool lower = (me & mask) == 0;
        const int keep = lower ? first : first + half, give = lower ? first + half : first;
        net.sendrecv(me, me ^ mask, extent(give, half), me ^ mask, extent(keep, half));
        env.codec->copy(extent(keep, half));
        first = keep;
        held = half;
    }
    for (int mask = size / 2; mask > 0; mask >>= 1) {
        // The peer holds the sibling of this rank's blocks in the split of `mask`.
        const int theirs = (me & mask) == 0 ? first + held : first - held;
        net.sendrecv(me, me ^ mask, extent(first, held), me ^ mask, extent(theirs, held));
        first = std::min(first, theirs);
        held *= 2;
    }
}

// Allgatherv baselines: rank p's block is the workload's contribution(p); every rank first
// copies its own block into place.
size_t blocks_from(const Workload &w, int first, int count)
{
    const int size = w.ranks();
    size_t sum = 0;
    for (int k = 0; k < count; ++k)
        sum += w.contribution((first + k) % size);
    return sum;
}

// coll/base's ring (tuned 3 for allgatherv): p - 1 steps, each passing on the block received in
// the step before.
void ring_allgatherv(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), me = env.rank;
    env.codec->copy(w.contribution(me));
    for (int step = 0; step < size - 1; ++step) {
        const int out = (me - step + size) % size, in = (me - step - 1 + size) % size;
        net.sendrecv(me, (me + 1) % size, w.contribution(out), (me - 1 + size) % size,
                     w.contribution(in));
    }
}

// Bruck (tuned 2): at step k a rank sends the blocks it holds, up to 2^k of them, to rank - 2^k
// and receives as many from rank + 2^k; ceil(log2 p) steps, then a local rotation of the whole.
void bruck_allgatherv(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), me = env.rank;
    env.codec->copy(w.contribution(me));
    for (int dist = 1; dist < size; dist <<= 1) {
        const int count = std::min(dist, size - dist);
        net.sendrecv(me, (me - dist + size) % size, blocks_from(w, me, count), (me + dist) % size,
                     blocks_from(w, me + dist, count));
    }
    env.codec->copy(blocks_from(w, 0, size));
}

// Recursive doubling (a power-of-two size): at step k exchange the 2^k blocks of this rank's
// group with the partner group's.
void recursive_doubling_allgatherv(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int me = env.rank;
    env.codec->copy(w.contribution(me));
    for (int mask = 1; mask < env.size(); mask <<= 1) {
        const int mine = me & ~(mask - 1), theirs = (me ^ mask) & ~(mask - 1);
        net.sendrecv(me, me ^ mask, blocks_from(w, mine, mask), me ^ mask,
                     blocks_from(w, theirs, mask));
    }
}

// Neighbor exchange (tuned 4; an even size): exchange the own block with one neighbour, then
// p / 2 - 1 steps, alternating between the two neighbours, that pass on the pair of blocks
// received in the step before and receive the pair two ranks further round.
void neighbor_exchange_allgatherv(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), me = env.rank;
    const bool even = me % 2 == 0;
    const int nb[2] = {even ? (me + 1) % size : (me - 1 + size) % size,
                       even ? (me - 1 + size) % size : (me + 1) % size};
    const int offset[2] = {even ? 2 : -2, even ? -2 : 2};
    int from[2] = {even ? me : nb[0], even ? me : nb[0]}; // first block of the pair received
    env.codec->copy(w.contribution(me));
    net.sendrecv(me, nb[0], w.contribution(me), nb[0], w.contribution(nb[0]));
    int send_from = even ? me : nb[0];
    for (int i = 1; i < size / 2; ++i) {
        const int k = i % 2;
        from[k] = (from[k] + offset[k] + size) % size;
        net.sendrecv(me, nb[k], blocks_from(w, send_from, 2), nb[k], blocks_from(w, from[k], 2));
        send_from = from[k];
    }
}

// Every receive posted, then every send, then all waited for (coll/base's basic linear).
void linear_alltoallv(const RankEnv &env)
{
    Network &net = *env.net;
    const int size = env.size(), me = env.rank;
    const Workload &w = *env.work;
    env.codec->copy(w.block(me, me));
    std::vector<Request *> reqs;
    reqs.reserve(2 * size_t(size));
    for (int p = 0; p < size; ++p)
        if (p != me && w.block(p, me) > 0)
            reqs.push_back(net.irecv(me, p, w.block(p, me)));
    for (int p = 0; p < size; ++p)
        if (p != me && w.block(me, p) > 0)
            reqs.push_back(net.isend(me, p, w.block(me, p)));
    for (auto *r : reqs)
        net.wait(r);
}

// coll/basic's neighbourhood alltoall, Open MPI 4.1's only blocking one (libnbc's non-blocking
// one posts the same): every receive from the neighbours, then every send, then wait for all.
void basic_neighbor_alltoall(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const size_t block = w.neighbour_block();
    const std::vector<int> peers = w.neighbours(env.rank);
    std::vector<Request *> reqs;
    for (int p : peers)
        if (block > 0)
            reqs.push_back(net.irecv(env.rank, p, block));
    for (int p : peers)
        if (block > 0)
            reqs.push_back(net.isend(env.rank, p, block));
    for (auto *r : reqs)
        net.wait(r);
}

// Step k: send to rank + k and receive from rank - k, one sendrecv at a time.
void pairwise_alltoallv(const RankEnv &env)
{
    Network &net = *env.net;
    const int size = env.size(), me = env.rank;
    const Workload &w = *env.work;
    env.codec->copy(w.block(me, me));
    for (int k = 1; k < size; ++k) {
        const int to = (me + k) % size, from = (me - k + size) % size;
        net.sendrecv(me, to, w.block(me, to), from, w.block(from, me));
    }
}

// The root receives each rank's block in rank order, one blocking receive at a time.
void linear_gatherv(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int root = w.root(), me = env.rank;
    if (me != root) {
        if (w.contribution(me) > 0)
            net.send(me, root, w.contribution(me));
        return;
    }
    for (int p = 0; p < env.size(); ++p) {
        if (p == root)
            env.codec->copy(w.contribution(p));
        else if (w.contribution(p) > 0)
            net.recv(me, p, w.contribution(p));
    }
}

// Scatter(v) baselines: rank p receives the workload's contribution(p) from the root.

// The root sends each rank's block in rank order: one blocking send at a time (coll/base's
// basic linear: tuned's scatter 1, and scatterv's only algorithm), or with post_all every
// send posted at once and then waited for (tuned's scatter 3, linear_nb, with no bound on the
// requests in flight, its default).
void linear_scatterv(const RankEnv &env, bool post_all)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int root = w.root(), me = env.rank;
    if (me != root) {
        if (w.contribution(me) > 0)
            net.recv(me, root, w.contribution(me));
        return;
    }
    std::vector<Request *> posted;
    for (int p = 0; p < env.size(); ++p) {
        if (p == root) {
            env.codec->copy(w.contribution(p));
        } else if (w.contribution(p) > 0) {
            Request *r = net.isend(me, p, w.contribution(p));
            if (post_all)
                posted.push_back(r);
            else
                net.wait(r);
        }
    }
    for (auto *r : posted)
        net.wait(r);
}

// Binomial tree on virtual ranks (tuned's scatter 2): a rank receives its subtree's blocks
// from its parent in one message, keeps its own and sends each child its subtree's, the
// largest subtree first, one blocking send at a time.
void binomial_scatter(const RankEnv &env)
{
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), root = w.root(), me = env.rank;
    const int v = (me - root + size) % size;
    auto blocks = [&](int first, int count) { // bytes of virtual ranks first .. first+count-1
        size_t sum = 0;
        for (int k = 0; k < count && first + k < size; ++k)
            sum += w.contribution((first + k + root) % size);
        return sum;
    };
    int mask = 1; // v's lowest set bit: the size of its subtree (the root's: all)
    while (mask < size && !(v & mask))
        mask <<= 1;
    if (v != 0)
        net.recv(me, (v - mask + root) % size, blocks(v, mask));
    env.codec->copy(w.contribution(me));
    for (int m = mask >> 1; m >= 1; m >>= 1)
        if (v + m < size)
            net.send(me, (v + m + root) % size, blocks(v + m, m));
}

std::string kib(size_t bytes)
{
    return std::to_string(bytes / 1024) + "k";
}

// No run of a segmented tree broadcast can beat: the NIC that carries the most copies of the
// message (a node sends it once per child on another node, and receives it once per rank whose
// parent is elsewhere), nor the deepest rank's path, where every hop forwards a segment only
// once it has all of it and carries every segment in turn, nor any hop's window: a non-root
// rank of tree_bcast has at most two receives posted, and posts the one for segment i only
// once segment i - 2 has arrived (its transfer, then the hop's latency) and been forwarded to
// all its children (at least one segment's time on each local copy, and all the off-node
// children's segments through its one NIC). So the hop starts at most two segments per
// transfer + latency + forward, which with small segments and a latency of microseconds is
// what a pipeline's time is made of (256 ranks in nodes of 32 at 100 Gbit/s, 8 KiB segments:
// the path alone bounds 561 us of a simulated 989 us; with the window, 962 us).
//
// A reduce over the same tree moves the same bytes over the same links the other way, so the
// port and path bounds hold for it too; its posting discipline differs, so `windows` false
// leaves the window bound out.
double tree_bound(const std::vector<TreeNode> &tree, int root, size_t bytes, size_t seg,
                  const HopModel &hop, bool windows = true)
{
    const int size = int(tree.size());
    const double s = double(seg ? seg : bytes);
    const double nseg = std::ceil(double(bytes) / s);
    std::vector<double> up(size_t(size), 0.0), down(size_t(size), 0.0); // by a node's first rank
    // first[r]: a representative rank of r's node (its lowest rank, found as we go)
    std::vector<int> first(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
        first[size_t(r)] = r;
        for (int q = r - 1; q >= 0 && hop.same_node(q, r); --q)
            first[size_t(r)] = q;
    }
    double port = 0.0, path = 0.0, window = 0.0;
    // What forwarding one full segment to all of r's children takes at the least.
    auto forward_s = [&](int r) {
        double off = 0.0, local = 0.0;
        for (int c : tree[size_t(r)].children) {
            if (hop.same_node(r, c))
                local = std::max(local, s / hop.node_Bps);
            else
                off += s / hop.net_Bps;
        }
        return std::max(off, local);
    };
    const double last = double(bytes) - (nseg - 1) * s; // the last segment's length
    const double pairs = std::floor((nseg - 1) / 2);    // segment windows before the last
    // Per rank, root first: when the first segment arrives, the slowest rate on the way, and
    // when a segment of the last one's length would arrive. The path bound is the latter plus
    // the rest of the message through the slowest hop: every byte crosses that hop after the
    // first one started, and the last segment still has the hops after it to go (with the
    // first segment's length there instead, a short last segment made the bound exceed the
    // simulated time by up to 1 %: 60 ranks, 300000 bytes).
    struct Reach {
        double first = 0.0, slowest = 0.0, short_first = 0.0;
    };
    std::vector<Reach> reach(static_cast<size_t>(size));
    std::vector<int> order = {root};
    reach[size_t(root)] = {0.0, std::max(hop.net_Bps, hop.node_Bps), 0.0};
    for (size_t i = 0; i < order.size(); ++i) {
        const int r = order[i];
        for (int c : tree[size_t(r)].children) {
            const bool local = hop.same_node(r, c);
            const double rate = local ? hop.node_Bps : hop.net_Bps;
            if (!local) {
                port = std::max(port, up[size_t(first[size_t(r)])] += double(bytes) / rate);
                port = std::max(port, down[size_t(first[size_t(c)])] += double(bytes) / rate);
            }
            const double t = reach[size_t(r)].first, lat = hop.latency_s(r, c);
            Reach &rc = reach[size_t(c)];
            rc.first = t + s / rate + lat;
            rc.slowest = std::min(reach[size_t(r)].slowest, rate);
            rc.short_first = reach[size_t(r)].short_first + last / rate + lat;
            path = std::max(path, rc.short_first + (double(bytes) - last) / rc.slowest);
            // The segment last posted for at c started no earlier than segment 0 or 1 was at
            // r plus `pairs` windows, and arrives one transfer and one latency later.
            window =
                std::max(window, t + pairs * (s / rate + lat + forward_s(c)) + last / rate + lat);
            order.push_back(c);
        }
    }
    return std::max({port, path, windows ? window : 0.0});
}

} // namespace

// tuned's segmented tree algorithms (coll_tuned_<op>_algorithm_segmentsize 0, then 256 KiB down
// to 8 KiB as perftest/zipbench-sweep tries them; a segment as large as the message is "none")
// as binomial, chain of fanout 4 and pipeline, each run by `run` on its rank's tree node and
// bounded by tree_bound; then the power-of-two algorithm first (if any), the rest most promising
// first: a good time early lets the search skip more.
template <class Run>
void add_tree_baselines(std::vector<Baseline> &out, int size, int root, size_t bytes,
                        const HopModel &hop, bool windows, Run run)
{
    const size_t first = out.size();
    std::vector<size_t> segments = {0};
    for (size_t s = 262144; s >= 8192; s /= 2)
        if (s < bytes)
            segments.push_back(s);
    struct Shape {
        const char *name;
        int fanout; // chains to or from the root; 0: binomial
    };
    for (const Shape shape : {Shape{"binomial", 0}, Shape{"chain", 4}, Shape{"pipeline", 1}}) {
        const int fanout = shape.fanout;
        auto node_of = [=](int r) {
            return fanout == 0 ? binomial_tree(r, size, root) : chain_tree(r, size, root, fanout);
        };
        std::vector<TreeNode> tree;
        for (int r = 0; r < size; ++r)
            tree.push_back(node_of(r));
        for (size_t seg : segments)
            out.push_back({std::string(shape.name) + (seg ? "-" + kib(seg) : ""),
                           [=](const RankEnv &env) { run(env, node_of(env.rank), bytes, seg); },
                           tree_bound(tree, root, bytes, seg, hop, windows)});
    }
    std::stable_sort(
        out.begin() + long(first), out.end(),
        [](const Baseline &a, const Baseline &b) { return a.lower_bound_s < b.lower_bound_s; });
}

std::vector<Baseline> baselines_for(const Workload &w, const HopModel &hop, int linear_max_ranks)
{
    std::vector<Baseline> out;
    const int size = w.ranks(), root = w.root();
    switch (w.op()) {
    case Op::Bcast: {
        const size_t bytes = w.bytes();
        if ((size & (size - 1)) == 0)
            out.push_back({"scatter-allgather",
                           [bytes](const RankEnv &env) { scatter_allgather_bcast(env, bytes); }});
        add_tree_baselines(out, size, root, bytes, hop, true, tree_bcast);
        break;
    }
    case Op::Alltoallv:
    case Op::Alltoall:
        // tuned's alltoallv algorithms pairwise (2) and linear (1); for alltoall the same two
        // (pairwise 2, linear 1, whose linear-sync 4 bounds the requests in flight). Not
        // simulated for alltoall: modified bruck (3), a small-message algorithm that moves
        // about log2(p) / 2 times the data, and two-proc (5).
        out.push_back({"pairwise", pairwise_alltoallv});
        if (size <= linear_max_ranks)
            out.push_back({"linear", linear_alltoallv});
        break;
    case Op::Gatherv:
        out.push_back({"linear", linear_gatherv});
        break;
    case Op::NeighborAlltoall:
    case Op::NeighborAlltoall3d:
        out.push_back({"basic", basic_neighbor_alltoall});
        break;
    case Op::Scatterv:
        // coll/basic's linear, scatterv's only algorithm in Open MPI 4.1.
        out.push_back({"linear", [](const RankEnv &env) { linear_scatterv(env, false); }});
        break;
    case Op::Scatter:
        // tuned's scatter algorithms: basic linear (1), binomial (2), linear_nb (3).
        out.push_back({"linear", [](const RankEnv &env) { linear_scatterv(env, false); }});
        out.push_back({"binomial", binomial_scatter});
        out.push_back({"linear-nb", [](const RankEnv &env) { linear_scatterv(env, true); }});
        break;
    case Op::Reduce: {
        // tuned's reduce algorithms chain (2, fanout 4), pipeline (3) and binomial (5), segmented;
        // and rabenseifner (7).
        const size_t bytes = w.bytes();
        if ((size & (size - 1)) == 0)
            out.push_back(
                {"rabenseifner", [bytes](const RankEnv &env) { rabenseifner_reduce(env, bytes); }});
        add_tree_baselines(out, size, root, bytes, hop, false, tree_reduce);
        break;
    }
    case Op::Scan: {
        const size_t bytes = w.bytes();
        out.push_back({"linear", [bytes](const RankEnv &env) { linear_scan(env, bytes); }});
        out.push_back({"recursive-doubling",
                       [bytes](const RankEnv &env) { recursive_doubling_scan(env, bytes); }});
        break;
    }
    case Op::Allgatherv:
    case Op::Allgather:
        // tuned's allgatherv algorithms: ring (3), bruck (2), neighbor exchange (4; even sizes);
        // and recursive doubling (allgather's 3; power-of-two sizes); allgather's are the same
        // four (ring 4, bruck 2, neighbor exchange 5, recursive doubling 3). Not simulated: the
        // gather + bcast ones (allgatherv 1, allgather 1) and two-proc (allgatherv 5,
        // allgather 6).
        out.push_back({"ring", ring_allgatherv});
        out.push_back({"bruck", bruck_allgatherv});
        if (size % 2 == 0)
            out.push_back({"neighbor-exchange", neighbor_exchange_allgatherv});
        if ((size & (size - 1)) == 0)
            out.push_back({"recursive-doubling", recursive_doubling_allgatherv});
        break;
    case Op::Allreduce: {
        // tuned's allreduce algorithms: ring (4), recursive doubling (3) and rabenseifner (6)
        // (the last two for power-of-two sizes), and nonoverlapping (2: a reduce, then a bcast)
        // as the pipeline with 0 and 8-256 KiB segments both ways. Not simulated: the linear
        // algorithm (1) and the segmented ring (5), which moves what the ring moves.
        const size_t bytes = w.bytes();
        out.push_back({"ring", [bytes](const RankEnv &env) { ring_allreduce(env, bytes); }});
        if ((size & (size - 1)) == 0) {
            out.push_back({"rabenseifner",
                           [bytes](const RankEnv &env) { rabenseifner_allreduce(env, bytes); }});
            out.push_back({"recursive-doubling", [bytes](const RankEnv &env) {
                               recursive_doubling_allreduce(env, bytes);
                           }});
        }
        const size_t fixed = out.size();
        std::vector<TreeNode> tree;
        for (int r = 0; r < size; ++r)
            tree.push_back(chain_tree(r, size, root, 1));
        std::vector<size_t> segments = {0};
        for (size_t s = 262144; s >= 8192; s /= 2)
            if (s < bytes)
                segments.push_back(s);
        for (size_t seg : segments)
            out.push_back({std::string("reduce-bcast-pipeline") + (seg ? "-" + kib(seg) : ""),
                           [=](const RankEnv &env) {
                               const TreeNode node = chain_tree(env.rank, size, root, 1);
                               tree_reduce(env, node, bytes, seg);
                               tree_bcast(env, node, bytes, seg);
                           },
                           tree_bound(tree, root, bytes, seg, hop, false) +
                               tree_bound(tree, root, bytes, seg, hop)});
        std::stable_sort(
            out.begin() + long(fixed), out.end(),
            [](const Baseline &a, const Baseline &b) { return a.lower_bound_s < b.lower_bound_s; });
        break;
    }
    }
    return out;
}

} // namespace simscale
