#include "zip_path.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <vector>

#include "zip_transport.hpp"

namespace sg4 = simgrid::s4u;

namespace simscale
{
namespace
{

// coll_zip_policy.c's probe sizes and rounds.
constexpr size_t kProbeSmall = 256 * 1024;
constexpr size_t kProbeLarge = 1024 * 1024;
constexpr int kProbeRounds = 3;
constexpr double kProbeFastBps = 2e8;
// The small message the lower rank sends to say whether the large probe follows.
constexpr size_t kProbeVerdictBytes = sizeof(int);

double ping_pong(const RankEnv &env, int partner, size_t bytes)
{
    Network &net = *env.net;
    double best = 0.0;
    for (int round = 0; round < kProbeRounds; ++round) {
        const double t0 = sg4::Engine::get_clock();
        if (env.rank < partner) {
            net.send(env.rank, partner, bytes);
            net.recv(env.rank, partner, bytes);
        } else {
            net.recv(env.rank, partner, bytes);
            net.send(env.rank, partner, bytes);
        }
        const double dt = sg4::Engine::get_clock() - t0;
        if (env.rank < partner && dt > 0.0)
            best = std::max(best, 2.0 * double(bytes) / dt);
    }
    return best;
}

double measure_pair(const RankEnv &env, int partner)
{
    double rate = ping_pong(env, partner, kProbeSmall);
    // The lower rank decides and tells the higher one. The simulated message carries no
    // bytes, so its content travels beside it; both ends take the same branch as in
    // coll_zip_policy.c.
    static std::vector<char> again_of;
    if (again_of.size() < size_t(env.size()))
        again_of.assign(size_t(env.size()), 0);
    bool again;
    if (env.rank < partner) {
        again = rate > kProbeFastBps;
        again_of[size_t(env.rank)] = again;
        env.net->send(env.rank, partner, kProbeVerdictBytes);
    } else {
        env.net->recv(env.rank, partner, kProbeVerdictBytes);
        again = again_of[size_t(partner)] != 0;
    }
    if (again)
        rate = std::max(rate, ping_pong(env, partner, kProbeLarge));
    return rate;
}

bool is_plain(const RankEnv &env, size_t bytes, size_t threshold, int peer)
{
    return !zip_algo_block_may_compress(bytes, threshold) || bytes > size_t(INT_MAX) ||
           env.net->same_node(env.rank, peer);
}

// Posts one direction's plain blocks with this rank's peers (bytes(p) to or from p; the own
// block is the caller's) and puts the others into `large` for zip's algorithm. Returns whether
// any block is large.
bool post_plain(const RankEnv &env, const ZipSettings &s, bool sending,
                const std::function<size_t(int)> &bytes, char *dummy, std::vector<Request *> *plain,
                std::vector<zip_block_t> *large)
{
    bool any_large = false;
    for (int p = 0; p < env.size(); ++p) {
        const size_t b = bytes(p);
        if (p == env.rank || b == 0)
            continue;
        if (!is_plain(env, b, s.threshold, p)) {
            (*large)[size_t(p)] = {dummy, b};
            any_large = true;
        } else {
            plain->push_back(sending ? env.net->isend(env.rank, p, b)
                                     : env.net->irecv(env.rank, p, b));
        }
    }
    return any_large;
}

// Completes the plain blocks after the algorithm, keeping its error if it had one.
void wait_plain(Network &net, const std::vector<Request *> &plain, ZipRankResult *out)
{
    for (auto *r : plain)
        if (net.wait(r).error && out->error == 0)
            out->error = ZIP_ALGO_ERR_TRANSPORT;
}

// coll_zip_alltoallv.c's exchange_window: about 512 KiB of this rank's blocks in flight,
// 2 to 4 steps.
size_t exchange_window(const RankEnv &env, const ZipSettings &s)
{
    const int size = env.size(), me = env.rank;
    if (s.window != 0 || size < 3)
        return s.window != 0 ? s.window : 1;
    size_t bytes = 0;
    for (int p = 0; p < size; ++p)
        if (p != me)
            bytes += std::max(env.work->block(me, p), env.work->block(p, me));
    const size_t mean = bytes / size_t(size - 1);
    const size_t in_flight = 512 * 1024;
    const size_t most = std::min<size_t>(size_t(size - 1), 4);
    size_t w = mean == 0 ? most : (in_flight + mean - 1) / mean;
    return std::min(std::max<size_t>(w, 2), most);
}

ZipRankResult bcast(const RankEnv &env, const ZipSettings &s, const zip_algo_policy_t *policy,
                    bool try_compress, char *dummy)
{
    ZipRankResult out;
    ZipTransport t(env.net, env.rank, env.codec);
    const bool root = env.rank == env.work->root();
    zip_bcast_args_t args{};
    args.buf = dummy;
    args.bytes = env.work->bytes();
    args.root = env.work->root();
    args.tag = 0;
    args.elem_type = ZIP_ALGO_F64;
    args.try_compress = root && try_compress ? 1 : 0;
    args.segment_bytes = s.segment;
    args.topology = ZIP_BCAST_AUTO;
    args.policy = policy;
    out.error = zip_algo_bcast(t.get(), env.codec->ops(), &args, &out.algo);
    out.ran_algorithm = true;
    return out;
}

ZipRankResult alltoallv(const RankEnv &env, const ZipSettings &s, const zip_algo_policy_t *policy,
                        bool try_compress, char *dummy)
{
    ZipRankResult out;
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), me = env.rank;
    // Plain blocks first, receives before sends, all posted at once (coll_zip_plain.c).
    std::vector<Request *> plain;
    std::vector<zip_block_t> send(static_cast<size_t>(size)), recv(static_cast<size_t>(size));
    bool any_large = post_plain(
        env, s, false, [&](int p) { return w.block(p, me); }, dummy, &plain, &recv);
    any_large |= post_plain(
        env, s, true, [&](int p) { return w.block(me, p); }, dummy, &plain, &send);
    env.codec->copy(w.block(me, me));
    if (any_large) {
        ZipTransport t(env.net, me, env.codec);
        zip_exchange_args_t args{};
        args.send = send.data();
        args.recv = recv.data();
        args.tag = 0;
        args.elem_type = ZIP_ALGO_F64;
        args.try_compress = try_compress ? 1 : 0;
        args.threshold = s.threshold;
        args.window = exchange_window(env, s);
        args.policy = policy;
        out.error = zip_algo_alltoallv(t.get(), env.codec->ops(), &args, &out.algo);
        out.ran_algorithm = true;
    }
    wait_plain(net, plain, &out);
    return out;
}

ZipRankResult gatherv(const RankEnv &env, const ZipSettings &s, const zip_algo_policy_t *policy,
                      bool try_compress, char *dummy)
{
    ZipRankResult out;
    Network &net = *env.net;
    const Workload &w = *env.work;
    const int size = env.size(), me = env.rank, root = w.root();
    ZipTransport t(env.net, me, env.codec);
    zip_exchange_args_t args{};
    args.tag = 0;
    args.elem_type = ZIP_ALGO_F64;
    args.threshold = s.threshold;
    if (me != root) {
        const size_t mine = w.contribution(me);
        if (mine == 0)
            return out;
        if (is_plain(env, mine, s.threshold, root)) {
            net.send(me, root, mine);
            return out;
        }
        const zip_block_t block{dummy, mine};
        args.send = &block;
        args.try_compress = try_compress ? 1 : 0;
        args.policy = policy;
        out.error = zip_algo_gatherv(t.get(), env.codec->ops(), root, &args, &out.algo);
        out.ran_algorithm = true;
        return out;
    }
    std::vector<Request *> plain;
    std::vector<zip_block_t> recv(static_cast<size_t>(size));
    const bool any_large = post_plain(
        env, s, false, [&](int p) { return w.contribution(p); }, dummy, &plain, &recv);
    env.codec->copy(w.contribution(root));
    if (any_large) {
        args.recv = recv.data();
        args.try_compress = 0;
        out.error = zip_algo_gatherv(t.get(), env.codec->ops(), root, &args, &out.algo);
        out.ran_algorithm = true;
    }
    wait_plain(net, plain, &out);
    return out;
}

} // namespace

void probe_links(const RankEnv &env, double link[2])
{
    const int size = env.size();
    int h = 1;
    while (2 * h <= size / 2)
        h *= 2;
    const int partners[2] = {env.rank ^ 1, h > 1 ? env.rank ^ h : -1};
    for (int p : partners) {
        if (p < 0 || p >= size)
            continue;
        const double rate = measure_pair(env, p);
        const int cls = env.net->same_node(env.rank, p) ? ZIP_PEER_LOCAL : ZIP_PEER_REMOTE;
        link[cls] = std::max(link[cls], rate);
    }
}

Route route_call(const Workload &w, int nodes, const Agreed &agreed, const ZipSettings &s)
{
    Route r;
    // comm_query: a communicator on one node is not zip's (shared memory beats any codec).
    if (nodes <= 1) {
        r.verdict = ZIP_VERDICT_LINK_FASTER;
        return r;
    }
    // The bcast below the threshold goes to the previous component before any policy.
    if (w.op() == Op::Bcast && (w.bytes() == 0 || w.bytes() < s.threshold)) {
        r.verdict = ZIP_VERDICT_TOO_SMALL;
        return r;
    }
    r.policy.mode = s.mode;
    r.policy.shape =
        (w.op() == Op::Bcast || w.ranks() > 2) ? ZIP_TRANSFER_PIPELINED : ZIP_TRANSFER_ONE_SHOT;
    if (s.mode == ZIP_POLICY_NEVER) {
        r.verdict = ZIP_VERDICT_NEVER;
        return r;
    }
    if (s.mode == ZIP_POLICY_ALWAYS) {
        r.verdict = ZIP_VERDICT_COMPRESS;
        return r;
    }
    const int cls = agreed.link_Bps[ZIP_PEER_REMOTE] > 0.0 ? ZIP_PEER_REMOTE : ZIP_PEER_LOCAL;
    const int sharing = w.op() == Op::Alltoallv ? agreed.ranks_per_node : 1;
    r.policy.speeds.compress_Bps = agreed.compress_Bps;
    r.policy.speeds.decompress_Bps = agreed.decompress_Bps;
    r.policy.speeds.link_Bps = agreed.link_Bps[cls] / double(std::max(sharing, 1));
    // Bcast judges the call's size; alltoallv and gatherv, whose block sizes no rank knows
    // for the others, judge at the threshold.
    const size_t bytes = w.op() == Op::Bcast ? w.bytes() : s.threshold;
    r.verdict =
        zip_policy_decide(s.mode, &r.policy.speeds, bytes > 0 ? bytes : 1, 0, 0.0, r.policy.shape);
    // observe sends raw through the previous component and only counts.
    if (s.mode == ZIP_POLICY_OBSERVE && r.verdict == ZIP_VERDICT_COMPRESS)
        r.verdict = ZIP_VERDICT_NEVER;
    return r;
}

ZipRankResult run_zip_call(const RankEnv &env, const ZipSettings &s,
                           const zip_algo_policy_t *policy, bool try_compress, char *dummy)
{
    switch (env.work->op()) {
    case Op::Bcast:
        return bcast(env, s, policy, try_compress, dummy);
    case Op::Alltoallv:
        return alltoallv(env, s, policy, try_compress, dummy);
    case Op::Gatherv:
        return gatherv(env, s, policy, try_compress, dummy);
    }
    return {};
}

} // namespace simscale
