#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace simscale
{
namespace
{

void usage(FILE *to)
{
    std::fprintf(
        to,
        "usage: simscale --op OP --ranks N --bytes B --link RATE --latency T --codec-csv FILE\n"
        "                --dataset NAME [options]\n"
        "Predicts the time of one collective call (--op) on a simulated\n"
        "cluster (SimGrid): zip's own algorithms (coll/zip's algo/, the speed-aware policy as in\n"
        "production) against coll/tuned's algorithms on the same platform.\n"
        "  --op bcast|alltoallv|gatherv|reduce|allreduce|allgatherv|alltoall|allgather|\n"
        "       scatterv|scatter|neighbor_alltoall|neighbor_alltoall3d|scan\n"
        "  --ranks N             ranks in the communicator\n"
        "  --ranks-per-node K    ranks per node, sharing its NIC (default 1)\n"
        "  --bytes B             zipbench's size: bcast buffer, alltoallv send buffer, mean\n"
        "                        gatherv contribution\n"
        "  --link RATE           NIC rate per direction: 1gbit, 10gbit, 100gbit, 400gbit, ...\n"
        "  --latency T           node-to-node latency: 2us (InfiniBand), 50us (Ethernet), ...\n"
        "  --topology star|fattree   one switch, or a two-level fat tree (default star)\n"
        "  --fattree-leaf N      nodes per leaf switch (default 16)\n"
        "  --fattree-taper T     leaf downlinks per uplink (default 1: full bisection)\n"
        "  --efficiency E        payload share of the link rate (default 1; TCP/IP ~0.9-0.95)\n"
        "  --loopback-rate RATE  between ranks of one node (default: memcpy on the data set)\n"
        "  --cores-per-node C    cores for the codecs of a node's ranks (default: one per rank)\n"
        "  --machine-cores C     every rank's codec on one machine of C cores (netemu)\n"
        "  --backplane RATE      the switch forwards at most RATE in all, each direction\n"
        "                        (netemu: `netemu check --all` measures it; default: no limit)\n"
        "  --tcp-btl-pairs       one message over 64 KiB at a time between two ranks, either\n"
        "                        way: Open MPI's TCP BTL as measured on netemu (docs/scale.md);\n"
        "                        default: both directions at once (InfiniBand, UCX)\n"
        "  --message-cpu T       CPU time each message costs its sender and its receiver, on\n"
        "                        their cores (default 0; docs/scale.md, \"Cost per message\")\n"
        "  --codec-csv FILE      codecbench --csv output (ratio and speed per data set and size)\n"
        "  --codec NAME          codec row of the CSV (default fast, coll/zip's default)\n"
        "  --dataset NAME        data set of the CSV (\"gauss\" finds gauss-1024)\n"
        "  --calibrate-on NAME   data set whose speeds stand for zip_calibrate's smooth field\n"
        "                        (default gauss)\n"
        "  --policy auto|always|never   coll_zip_policy (default auto)\n"
        "  --threshold B --segment B --window N   coll_zip_threshold (16384),\n"
        "                        coll_zip_segment_size (49152), coll_zip_alltoallv_window (0)\n"
        "  --bcast-algorithm auto|chain|scatter_allgather[_flat|_tree]\n"
        "                        coll_zip_bcast_algorithm (auto)\n"
        "  --bcast-latency T     coll_zip_bcast_latency_us (default: --latency, as if set right)\n"
        "  --allreduce-algorithm auto|ring|halving   coll_zip_allreduce_algorithm (auto)\n"
        "  --allgatherv-algorithm auto|ring|bruck|bruck_blocks|bruck_steps\n"
        "                               coll_zip_allgatherv_algorithm (auto)\n"
        "  --bcast-segment model|rule   the chain's segment: the cost model's (default, as in\n"
        "                        coll/zip) or zip_bcast_segment_bytes's rule alone (as before\n"
        "                        the model chose it; for comparisons in one build)\n"
        "  --csv FILE            append op,dataset,ranks,ranks_per_node,link,bytes,mode,\n"
        "                        predicted_us (modes best-baseline, zip, zip-raw)\n"
        "  --modes all|best-baseline,zip   leave zip-raw out (a 4096-rank bcast's zip-raw is\n"
        "                        8 million messages to simulate)\n"
        "  --label TEXT          the link column (default: the --link text)\n"
        "  --detail              also a row per baseline configuration (mode baseline:NAME)\n"
        "  --exhaustive          simulate every baseline configuration (default: skip those\n"
        "                        whose lower bound cannot beat the best so far)\n"
        "  --policy-csv FILE     append what the policy decided (route, senders' verdicts,\n"
        "                        agreed speeds, bytes on the wire)\n"
        "  --linear-max-ranks N  skip alltoallv's linear baseline above N ranks (default 1024)\n"
        "  --cfg=NAME:VALUE      a SimGrid setting (e.g. --cfg=network/model:LV08)\n");
}

bool number(const char *text, double *out)
{
    char *end = nullptr;
    *out = std::strtod(text, &end);
    return end != text && *end == '\0';
}

} // namespace

bool parse_options(int argc, char **argv, Options *o, int *exit_code)
{
    *exit_code = 2;
    auto fail = [&](const std::string &msg) {
        std::fprintf(stderr, "simscale: %s\n", msg.c_str());
        return false;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage(stdout);
            *exit_code = 0;
            return false;
        }
        if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0) {
            o->simgrid_args.push_back(a);
            continue;
        }
        if (a == "--detail") {
            o->detail = true;
            continue;
        }
        if (a == "--exhaustive") {
            o->exhaustive = true;
            continue;
        }
        if (a == "--tcp-btl-pairs") {
            o->platform.tcp_btl_pairs = true;
            continue;
        }
        if (i + 1 >= argc)
            return fail("missing value after " + a + " (--help lists the options)");
        const std::string v = argv[++i];
        double x = 0;
        auto positive = [&](double *out) {
            if (!number(v.c_str(), out) || *out <= 0)
                return fail(a + " needs a positive number, not '" + v + "'");
            return true;
        };
        if (a == "--op") {
            if (!parse_op(v, &o->op))
                return fail(
                    "--op is bcast, alltoallv, gatherv, reduce, allreduce, allgatherv, alltoall, "
                    "allgather, scatterv, scatter, neighbor_alltoall, neighbor_alltoall3d or scan, "
                    "not "
                    "'" +
                    v + "'");
        } else if (a == "--ranks") {
            if (!positive(&x))
                return false;
            o->ranks = int(x);
        } else if (a == "--ranks-per-node") {
            if (!positive(&x))
                return false;
            o->platform.ranks_per_node = int(x);
        } else if (a == "--bytes") {
            if (!positive(&x))
                return false;
            o->bytes = size_t(x);
        } else if (a == "--link") {
            o->link_text = v;
            o->platform.link_Bps = parse_rate_Bps(v);
            if (o->platform.link_Bps <= 0)
                return fail("--link takes a rate such as 1gbit, 25gbit or 500mbit, not '" + v +
                            "'");
        } else if (a == "--latency") {
            o->latency_text = v;
            o->platform.latency_s = parse_time_s(v);
            if (o->platform.latency_s < 0)
                return fail("--latency takes a time such as 2us or 50us, not '" + v + "'");
        } else if (a == "--topology") {
            if (v == "star")
                o->platform.topology = Topology::Star;
            else if (v == "fattree")
                o->platform.topology = Topology::FatTree;
            else
                return fail("--topology is star or fattree, not '" + v + "'");
        } else if (a == "--fattree-leaf") {
            if (!positive(&x))
                return false;
            o->platform.fattree_leaf = int(x);
        } else if (a == "--fattree-taper") {
            if (!positive(&x))
                return false;
            o->platform.fattree_taper = int(x);
        } else if (a == "--efficiency") {
            if (!positive(&x) || x > 1)
                return fail("--efficiency is in (0, 1]");
            o->platform.efficiency = x;
        } else if (a == "--loopback-rate") {
            o->loopback_Bps = parse_rate_Bps(v);
            if (o->loopback_Bps <= 0)
                return fail("--loopback-rate takes a rate such as 80gbit, not '" + v + "'");
        } else if (a == "--cores-per-node") {
            if (!positive(&x))
                return false;
            o->platform.cores_per_node = int(x);
        } else if (a == "--machine-cores") {
            if (!positive(&x))
                return false;
            o->platform.machine_cores = int(x);
        } else if (a == "--message-cpu") {
            o->platform.message_cpu_s = parse_time_s(v);
            if (o->platform.message_cpu_s < 0)
                return fail("--message-cpu takes a time such as 1us or 20us, not '" + v + "'");
        } else if (a == "--backplane") {
            o->platform.backplane_Bps = parse_rate_Bps(v);
            if (o->platform.backplane_Bps <= 0)
                return fail("--backplane takes a rate such as 5gbit, not '" + v + "'");
        } else if (a == "--codec-csv") {
            o->codec_csv = v;
        } else if (a == "--codec") {
            o->codec = v;
        } else if (a == "--dataset") {
            o->dataset = v;
        } else if (a == "--calibrate-on") {
            o->calibrate_on = v;
        } else if (a == "--policy") {
            const int m = zip_policy_mode_parse(v.c_str());
            if (m < 0 || m == ZIP_POLICY_OBSERVE)
                return fail("--policy is auto, always or never, not '" + v + "'");
            o->zip.mode = zip_policy_mode_t(m);
        } else if (a == "--threshold") {
            if (!positive(&x))
                return false;
            o->zip.threshold = size_t(x);
        } else if (a == "--segment") {
            if (!positive(&x))
                return false;
            o->zip.segment = size_t(x);
        } else if (a == "--bcast-algorithm") {
            o->zip.bcast_algorithm = zip_bcast_algorithm_parse(v.c_str());
            if (o->zip.bcast_algorithm < 0)
                return fail("--bcast-algorithm is auto, chain, scatter_allgather, "
                            "scatter_allgather_flat or scatter_allgather_tree, not '" +
                            v + "'");
        } else if (a == "--allreduce-algorithm") {
            o->zip.allreduce_algorithm = zip_allreduce_algorithm_parse(v.c_str());
            if (o->zip.allreduce_algorithm < 0)
                return fail("--allreduce-algorithm is auto, ring or halving, not '" + v + "'");
        } else if (a == "--allgatherv-algorithm") {
            o->zip.allgatherv_algorithm = zip_allgatherv_algorithm_parse(v.c_str());
            if (o->zip.allgatherv_algorithm < 0)
                return fail("--allgatherv-algorithm is auto, ring, bruck, bruck_blocks or "
                            "bruck_steps, not '" +
                            v + "'");
        } else if (a == "--bcast-latency") {
            o->zip.bcast_latency_s = parse_time_s(v);
            if (o->zip.bcast_latency_s < 0)
                return fail("--bcast-latency takes a time such as 2us or 50us, not '" + v + "'");
        } else if (a == "--bcast-segment") {
            if (v != "model" && v != "rule")
                return fail("--bcast-segment is model or rule, not '" + v + "'");
            o->zip.segment_by_model = v == "model";
        } else if (a == "--window") {
            if (!positive(&x))
                return false;
            o->zip.window = size_t(x);
        } else if (a == "--modes") {
            if (v == "best-baseline,zip,zip-raw" || v == "all")
                o->zip_raw = true;
            else if (v == "best-baseline,zip")
                o->zip_raw = false;
            else
                return fail("--modes is all (best-baseline,zip,zip-raw) or best-baseline,zip");
        } else if (a == "--csv") {
            o->csv = v;
        } else if (a == "--policy-csv") {
            o->policy_csv = v;
        } else if (a == "--label") {
            o->label = v;
        } else if (a == "--linear-max-ranks") {
            if (!positive(&x))
                return false;
            o->linear_max_ranks = int(x);
        } else {
            return fail("unknown option " + a + " (--help lists the options)");
        }
    }
    if (o->ranks < 2)
        return fail("--ranks must be at least 2");
    if (o->bytes == 0)
        return fail("--bytes is needed");
    if (o->platform.link_Bps <= 0 || o->latency_text.empty())
        return fail("--link and --latency are needed");
    if (o->codec_csv.empty() || o->dataset.empty())
        return fail("--codec-csv and --dataset are needed");
    if (o->ranks % o->platform.ranks_per_node != 0)
        return fail("--ranks must be a multiple of --ranks-per-node");
    o->platform.nodes = o->ranks / o->platform.ranks_per_node;
    o->zip.pairs_serialise = o->platform.tcp_btl_pairs;
    o->zip.ranks_per_node = o->platform.ranks_per_node;
    if (o->zip.bcast_latency_s < 0)
        o->zip.bcast_latency_s = o->platform.latency_s;
    if (o->label.empty())
        o->label = o->link_text;
    *exit_code = 0;
    return true;
}

} // namespace simscale
