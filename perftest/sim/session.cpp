#include "session.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "baselines.hpp"
#include "network.hpp"
#include "runner.hpp"
#include "sim_codec.hpp"

namespace sg4 = simgrid::s4u;

namespace simscale
{
namespace
{

// Between two ranks of one node (shared memory).
constexpr double kSameNodeLatency = 0.5e-6;
// zip_calibrate runs the codec on 64 Ki doubles.
constexpr double kCalibrationBytes = 65536.0 * 8;

void tally(ZipSummary *z, const ZipRankResult &res)
{
    z->errors += res.error != 0;
    z->bytes_in += res.algo.bytes_in;
    z->bytes_out += res.algo.bytes_out;
    if (res.algo.verdict >= 0) // a sender that sampled
        ++z->verdicts[res.algo.verdict];
    // The same on every rank (zip_algo_seen_t).
    z->gathered_raw = res.algo.gathered_raw;
    z->gathered_wire = res.algo.gathered_wire;
}

} // namespace

bool predict(const Options &o, const CodecTable &table, Prediction *out)
{
    out->dataset = table.resolve_dataset(o.dataset);
    out->calibration = table.resolve_dataset(o.calibrate_on);
    PlatformSpec spec = o.platform;
    spec.loopback_Bps = o.loopback_Bps > 0 ? o.loopback_Bps
                                           : table.at("memcpy", out->dataset, 1 << 20).compress_Bps;
    spec.loopback_latency_s = kSameNodeLatency;
    Platform platform;
    if (!build_platform(spec, &platform))
        return false;

    const int ranks = o.ranks, rpn = spec.ranks_per_node;
    const Workload work(o.op, ranks, o.bytes);
    std::vector<int> rank_node(static_cast<size_t>(ranks));
    std::vector<sg4::Host *> rank_host(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        rank_node[size_t(r)] = r / rpn; // block placement, as mpirun's default by slot
        rank_host[size_t(r)] = platform.node[size_t(r / rpn)];
    }
    Network net(
        rank_node, [&platform](int a, int b) { return platform.node_latency(a, b); },
        platform.clock, platform.spec.tcp_btl_pairs);
    if (spec.message_cpu_s > 0.0) {
        std::vector<sg4::Host *> cpu(static_cast<size_t>(ranks));
        for (int r = 0; r < ranks; ++r)
            cpu[size_t(r)] = platform.cpu_of(r / rpn);
        net.set_message_cpu(spec.message_cpu_s, std::move(cpu));
    }
    std::vector<std::unique_ptr<SimCodec>> codecs;
    std::vector<RankEnv> env;
    std::vector<zip_algo_sender_memo_t> memos(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        codecs.push_back(std::make_unique<SimCodec>(&table, o.codec, out->dataset,
                                                    Cpu(&net, r, platform.cpu_of(r / rpn))));
        env.push_back({&net, r, &work, codecs.back().get(), &memos[size_t(r)]});
    }
    // Read-only stand-in for every buffer: calloc'd pages that are never written stay unbacked.
    std::unique_ptr<char, decltype(&std::free)> dummy(
        static_cast<char *>(std::calloc(work.largest() + 1, 1)), &std::free);

    Runner runner;
    // The baselines, each skipped when it provably cannot beat the best so far.
    std::vector<size_t> baseline_steps;
    std::vector<double> bound_of_step;
    double best_so_far = -1;
    const HopModel hop{[&net](int a, int b) { return net.same_node(a, b); },
                       [&net](int a, int b) { return net.latency_s(a, b); },
                       spec.link_Bps * spec.efficiency, spec.loopback_Bps};
    for (const auto &b : baselines_for(work, hop, o.linear_max_ranks)) {
        const size_t step = runner.size();
        const double bound = b.lower_bound_s;
        bound_of_step.resize(step + 1, 0.0);
        bound_of_step[step] = bound;
        baseline_steps.push_back(runner.add(
            "baseline:" + b.name, [&, run = b.run](int r) { run(env[size_t(r)]); },
            [&, step]() {
                if (!runner.skipped(step) &&
                    (best_so_far < 0 || runner.seconds(step) < best_so_far))
                    best_so_far = runner.seconds(step);
            },
            [&, bound]() { return o.exhaustive || best_so_far < 0 || bound < best_so_far; }));
    }

    ZipSettings raw_settings = o.zip;
    raw_settings.mode = ZIP_POLICY_ALWAYS;
    // Policy always agrees no speeds; bcast's topology then takes the configured link rate,
    // set here to the simulated one so that zip-raw runs zip's topology for this link.
    raw_settings.link_Bps = spec.link_Bps;
    out->zip_raw.route = route_call(work, spec.nodes, Agreed{}, raw_settings);
    out->has_zip_raw = o.zip_raw;

    // zip: the probe and the agreement on speeds (untimed, as at a communicator's first call),
    // then the call as the policy routes it.
    std::vector<std::array<double, 2>> measured(size_t(ranks), {0.0, 0.0});
    const bool needs_speeds = o.zip.mode == ZIP_POLICY_AUTO && spec.nodes > 1;
    runner.add(
        "probe",
        [&](int r) {
            if (needs_speeds)
                probe_links(env[size_t(r)], measured[size_t(r)].data());
        },
        [&]() {
            Agreed &a = out->agreed;
            for (const auto &m : measured)
                for (int c = 0; c < 2; ++c)
                    a.link_Bps[c] = std::max(a.link_Bps[c], m[size_t(c)]);
            // Every rank calibrates the same codec on the same field: the slowest is theirs.
            const CodecPoint cal = table.at(o.codec, out->calibration, kCalibrationBytes);
            a.compress_Bps = cal.compress_Bps;
            a.decompress_Bps = cal.decompress_Bps;
            // Calibrated on the data set itself (--calibrate-on it): the speeds a run agrees on
            // from its meters after its first calls, decoding included.
            a.decompress_seen = out->calibration == out->dataset ? 1 : 0;
            a.ranks_per_node = std::min(rpn, ranks);
            a.chain_local_share = least_chain_local_share(rank_node);
            // As coll/zip counts them: the ranks of one machine over its cores (netemu: every
            // rank on one machine; --cores-per-node: a node's ranks on its cores).
            if (spec.machine_cores > 0)
                a.ranks_per_core = double(ranks) / double(spec.machine_cores);
            else if (spec.cores_per_node > 0)
                a.ranks_per_core = double(std::min(rpn, ranks)) / double(spec.cores_per_node);
            out->zip.route = route_call(work, spec.nodes, a, o.zip);
            out->zip_first.route = out->zip.route;
            // A reduce chain's segment is the one the agreed speeds chose for zip's call, so that
            // zip-raw differs from zip only in what it compresses.
            if (out->zip.route.takes() && (work.op() == Op::Reduce || work.op() == Op::Scan))
                out->zip_raw.route.reduce_segment = out->zip.route.reduce_segment;
        });
    // zip-raw: zip's path forced, nothing compressed (a control for the algorithms alone). Its
    // step runs after the probe's, which gives it the reduce chain's segment zip's call runs.
    const size_t raw_step = runner.add("zip-raw", [&](int r) {
        if (!o.zip_raw)
            return;
        RankEnv raw_env = env[size_t(r)];
        raw_env.memo = nullptr; // zip-raw leaves the memo to zip's calls
        if (out->zip_raw.route.takes())
            tally(&out->zip_raw,
                  run_zip_call(raw_env, raw_settings, out->zip_raw.route, false, dummy.get()));
    });

    // An allgather(v) and a bcast weigh what the communicator's last one achieved, a
    // neighbourhood call's sender what its last sample said: the first call runs without, and
    // the call timed as zip's is the next one on the same data (coll/zip records only blocking
    // calls; an application's time steps make many).
    out->has_zip_first =
        (work.op() == Op::Allgatherv || work.op() == Op::Allgather || work.op() == Op::Bcast ||
         work.op() == Op::NeighborAlltoall || work.op() == Op::NeighborAlltoall3d) &&
        o.zip.mode == ZIP_POLICY_AUTO;
    const size_t first_step = runner.add(
        "zip-first",
        [&](int r) {
            if (out->has_zip_first && out->zip_first.route.takes())
                tally(&out->zip_first,
                      run_zip_call(env[size_t(r)], o.zip, out->zip_first.route, true, dummy.get()));
        },
        [&]() {
            const ZipSummary &z = out->zip_first;
            if (out->has_zip_first && z.route.takes() && z.gathered_wire > 0 && z.errors == 0) {
                zip_algo_seen_t seen{};
                zip_algo_result_t moved{};
                moved.gathered_raw = z.gathered_raw;
                moved.gathered_wire = z.gathered_wire;
                zip_algo_seen_record(&seen, &moved);
                out->zip.route =
                    route_call(work, spec.nodes, out->agreed, o.zip, zip_algo_seen_ratio(&seen));
            }
        });
    const size_t zip_step = runner.add("zip", [&](int r) {
        if (out->zip.route.takes())
            tally(&out->zip,
                  run_zip_call(env[size_t(r)], o.zip, out->zip.route, true, dummy.get()));
    });

    const auto wall0 = std::chrono::steady_clock::now();
    const bool finished = runner.run(rank_host);
    out->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (!finished) {
        std::fprintf(stderr, "simscale: the simulation stopped before every step finished\n");
        return false;
    }
    for (size_t s = 0; s < runner.size(); ++s)
        out->steps.push_back({runner.name(s), runner.seconds(s), runner.wall_seconds(s),
                              runner.skipped(s), s < bound_of_step.size() ? bound_of_step[s] : 0});
    size_t best = baseline_steps.front();
    for (size_t s : baseline_steps)
        if (!runner.skipped(s) && runner.seconds(s) < runner.seconds(best))
            best = s;
    out->best = out->steps[best];
    // A call zip hands on runs the previous component: here the best baseline, coll/tuned as
    // well as it can be configured.
    out->zip_raw_s = out->zip_raw.route.takes() ? runner.seconds(raw_step) : out->best.seconds;
    out->zip_s = out->zip.route.takes() ? runner.seconds(zip_step) : out->best.seconds;
    out->zip_first_s =
        out->zip_first.route.takes() ? runner.seconds(first_step) : out->best.seconds;
    if (out->zip.errors || out->zip_raw.errors || out->zip_first.errors) {
        std::fprintf(stderr, "simscale: zip's algorithms failed on %d (zip) / %d (zip-raw) ranks\n",
                     out->zip.errors + out->zip_first.errors, out->zip_raw.errors);
        return false;
    }
    return true;
}

} // namespace simscale
