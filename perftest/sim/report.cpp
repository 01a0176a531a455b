#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace simscale
{
namespace
{

void append_csv(const std::string &path, const std::string &header, const std::string &row)
{
    bool fresh = true;
    {
        std::ifstream in(path);
        fresh = !in || in.peek() == std::ifstream::traits_type::eof();
    }
    std::ofstream out(path, std::ios::app);
    if (fresh)
        out << header << "\n";
    out << row << "\n";
}

std::string verdicts_text(const std::map<int, int> &v)
{
    std::string s;
    for (const auto &[verdict, n] : v) {
        if (!s.empty())
            s += " ";
        s += std::string(zip_verdict_name(zip_verdict_t(verdict))) + "x" + std::to_string(n);
    }
    return s.empty() ? "-" : s;
}

} // namespace

void print_summary(const Options &o, const Prediction &p)
{
    const PlatformSpec &spec = o.platform;
    std::printf("simscale: %s %s, %d ranks (%d per node, %d nodes, %s), %s %s, %zu bytes\n",
                op_name(o.op), p.dataset.c_str(), o.ranks, spec.ranks_per_node, spec.nodes,
                spec.topology == Topology::Star ? "star" : "fat tree", o.link_text.c_str(),
                o.latency_text.c_str(), o.bytes);
    if (spec.backplane_Bps > 0)
        std::printf("  backplane %.2f Gbit/s each direction, all flows together\n",
                    spec.backplane_Bps * 8 / 1e9);
    if (spec.tcp_btl_pairs)
        std::printf("  TCP BTL pairs: one message at a time between two ranks, either way\n");
    std::printf("  best-baseline %12.1f us  (%s)\n", p.best.seconds * 1e6, p.best.name.c_str());
    if (p.has_zip_raw)
        std::printf("  zip-raw       %12.1f us%s\n", p.zip_raw_s * 1e6,
                    p.zip_raw.route.takes() ? "" : "  (handed on)");
    std::printf("  zip           %12.1f us  route %s; senders %s; wire ratio %.3f\n", p.zip_s * 1e6,
                zip_verdict_name(p.zip.route.verdict), verdicts_text(p.zip.verdicts).c_str(),
                p.zip.wire_ratio());
    if (p.has_zip_first)
        std::printf("  zip first     %12.1f us  route %s (no ratio seen yet); saw ratio %.3f\n",
                    p.zip_first_s * 1e6, zip_verdict_name(p.zip_first.route.verdict),
                    p.zip_first.gathered_wire > 0
                        ? double(p.zip_first.gathered_raw) / double(p.zip_first.gathered_wire)
                        : 0.0);
    std::printf("  speedup %.3fx; agreed link MB/s local %.0f remote %.0f, codec MB/s %.0f / %.0f "
                "(%s); simulated in %.1f s\n",
                p.best.seconds / p.zip_s, p.agreed.link_Bps[0] / 1e6, p.agreed.link_Bps[1] / 1e6,
                p.agreed.compress_Bps / 1e6, p.agreed.decompress_Bps / 1e6, p.calibration.c_str(),
                p.wall_s);
    if (!o.detail)
        return;
    // A baseline's lower bound is printed too: how far below the simulated time it lies is
    // what decides how many configurations the pruned search has to simulate.
    for (const auto &s : p.steps) {
        char bound[48] = "";
        if (s.bound_s > 0)
            std::snprintf(bound, sizeof bound, "; bound %.1f us", s.bound_s * 1e6);
        if (s.skipped)
            std::printf("    %-28s      skipped  (cannot beat the best%s)\n", s.name.c_str(),
                        bound);
        else
            std::printf("    %-28s %12.1f us  (simulated in %.2f s%s)\n", s.name.c_str(),
                        s.seconds * 1e6, s.wall_s, bound);
    }
}

void append_prediction_csv(const Options &o, const Prediction &p)
{
    const std::string key = std::string(op_name(o.op)) + "," + o.dataset + "," +
                            std::to_string(o.ranks) + "," +
                            std::to_string(o.platform.ranks_per_node) + "," + o.label + "," +
                            std::to_string(o.bytes) + ",";
    auto row = [&](const std::string &mode, double s) {
        char us[64];
        std::snprintf(us, sizeof us, "%.3f", s * 1e6);
        append_csv(o.csv, "op,dataset,ranks,ranks_per_node,link,bytes,mode,predicted_us",
                   key + mode + "," + us);
    };
    row("best-baseline", p.best.seconds);
    row("zip", p.zip_s);
    if (p.has_zip_raw)
        row("zip-raw", p.zip_raw_s);
    if (o.detail)
        for (const auto &s : p.steps)
            if (!s.skipped && s.name.rfind("baseline:", 0) == 0)
                row(s.name, s.seconds);
}

void append_policy_csv(const Options &o, const Prediction &p)
{
    char row[1024];
    std::snprintf(row, sizeof row, "%s,%s,%d,%d,%s,%zu,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.4f,%s",
                  op_name(o.op), o.dataset.c_str(), o.ranks, o.platform.ranks_per_node,
                  o.label.c_str(), o.bytes, zip_policy_mode_name(o.zip.mode),
                  zip_verdict_name(p.zip.route.verdict), verdicts_text(p.zip.verdicts).c_str(),
                  p.agreed.link_Bps[0], p.agreed.link_Bps[1], p.agreed.compress_Bps,
                  p.agreed.decompress_Bps, p.zip.wire_ratio(), p.best.name.c_str());
    append_csv(o.policy_csv,
               "op,dataset,ranks,ranks_per_node,link,bytes,policy,route,sender_verdicts,"
               "agreed_local_Bps,agreed_remote_Bps,agreed_compress_Bps,agreed_decompress_Bps,"
               "wire_ratio,best_baseline",
               row);
}

} // namespace simscale
