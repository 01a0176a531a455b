// simscale: zip's collective algorithms at 64-4096 ranks on simulated clusters (SimGrid).
// One S4U actor per rank runs coll/zip's own algorithms (libzipcollalgo, through
// algo/transport.h) and coll/tuned's algorithms on the same platform. See docs/scale.md.
#include <cstdio>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "codec_table.hpp"
#include "options.hpp"
#include "report.hpp"
#include "session.hpp"

namespace
{

// The network model: max-min sharing of link bandwidth with no TCP-specific corrections
// (LV08's factors and window bound are calibrated for wide-area TCP), so that a message
// costs its share of the bandwidth plus its route's latency (added by simscale's Network).
const char *const kSimgridDefaults[] = {
    "--log=root.thres:warning",     "--cfg=network/model:CM02",      "--cfg=network/TCP-gamma:0",
    "--cfg=network/crosstraffic:0", "--cfg=contexts/stack-size:256",
};

// The codec table must describe the codec on the data set (and memcpy, for copies), and on the
// data set standing for zip_calibrate's field.
bool check_table(const simscale::Options &o, const simscale::CodecTable &table)
{
    struct Need {
        std::string codec, asked;
    };
    const Need needed[] = {{o.codec, o.dataset}, {"memcpy", o.dataset}, {o.codec, o.calibrate_on}};
    for (const auto &n : needed) {
        const std::string set = table.resolve_dataset(n.asked);
        if (set.empty() || !table.has(n.codec, set)) {
            std::fprintf(stderr, "simscale: %s has no rows for codec '%s' on data set '%s'\n",
                         o.codec_csv.c_str(), n.codec.c_str(),
                         set.empty() ? n.asked.c_str() : set.c_str());
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    simscale::Options o;
    int exit_code = 0;
    if (!simscale::parse_options(argc, argv, &o, &exit_code))
        return exit_code;
    simscale::CodecTable table;
    std::string error;
    if (!table.load(o.codec_csv, &error)) {
        std::fprintf(stderr, "simscale: %s\n", error.c_str());
        return 2;
    }
    if (!check_table(o, table))
        return 2;

    std::vector<std::string> sg_args = {"simscale"};
    sg_args.insert(sg_args.end(), std::begin(kSimgridDefaults), std::end(kSimgridDefaults));
    sg_args.insert(sg_args.end(), o.simgrid_args.begin(), o.simgrid_args.end());
    std::vector<char *> sg_argv;
    for (auto &s : sg_args)
        sg_argv.push_back(s.data());
    int sg_argc = int(sg_argv.size());
    simgrid::s4u::Engine engine(&sg_argc, sg_argv.data());

    simscale::Prediction p;
    if (!simscale::predict(o, table, &p))
        return 1;
    simscale::print_summary(o, p);
    if (!o.csv.empty())
        simscale::append_prediction_csv(o, p);
    if (!o.policy_csv.empty())
        simscale::append_policy_csv(o, p);
    return 0;
}
