#include "platform.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace sg4 = simgrid::s4u;

namespace simscale
{
namespace
{

// One flop is one nanosecond of codec work on one core: the codec model charges time, and
// SimGrid shares a host's cores between the executions on it.
constexpr double kCoreSpeed = 1e9;

double parse_number(const std::string &text, size_t *end)
{
    const char *s = text.c_str();
    char *e = nullptr;
    const double v = std::strtod(s, &e);
    *end = size_t(e - s);
    return e == s ? -1.0 : v;
}

std::string lower(std::string s)
{
    for (auto &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

sg4::Host *make_node(sg4::NetZone *zone, const PlatformSpec &spec, unsigned long id)
{
    const int cores = spec.cores_per_node > 0 ? spec.cores_per_node : spec.ranks_per_node;
    return zone->create_host("node-" + std::to_string(id), kCoreSpeed)->set_core_count(cores);
}

sg4::Link *make_loopback(sg4::NetZone *zone, const PlatformSpec &spec, unsigned long id)
{
    // Each copy between two ranks of a node is done by its own core: FATPIPE, not shared.
    return zone->create_link("loop-" + std::to_string(id), spec.loopback_Bps)
        ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
        ->seal();
}

bool build_star(sg4::NetZone *zone, const PlatformSpec &spec, Platform *out)
{
    // Every message between two nodes crosses the backplane's UP direction on the way in and its
    // DOWN direction on the way out, so each direction caps the sum of all flows.
    const sg4::Link *backplane =
        spec.backplane_Bps > 0
            ? zone->create_split_duplex_link("backplane", spec.backplane_Bps)->seal()
            : nullptr;
    for (int i = 0; i < spec.nodes; ++i) {
        sg4::Host *host = make_node(zone, spec, unsigned(i));
        // Full duplex: the UP direction carries what the node sends, DOWN what it receives.
        const sg4::Link *nic = zone->create_split_duplex_link("nic-" + std::to_string(i),
                                                              spec.link_Bps * spec.efficiency)
                                   ->seal();
        std::vector<sg4::LinkInRoute> to_switch{
            sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)};
        if (backplane != nullptr)
            to_switch.emplace_back(backplane, sg4::LinkInRoute::Direction::UP);
        zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, to_switch, true);
        const sg4::Link *loop = make_loopback(zone, spec, unsigned(i));
        zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(loop)}, false);
        out->node.push_back(host);
    }
    return true;
}

bool build_fattree(const sg4::NetZone *parent, const PlatformSpec &spec, Platform *out)
{
    if (spec.backplane_Bps > 0) {
        std::fprintf(stderr, "simscale: --backplane models one switch (--topology star)\n");
        return false;
    }
    const int leaf = std::min(spec.fattree_leaf, spec.nodes);
    if (leaf <= 0 || spec.nodes % leaf != 0 || leaf % spec.fattree_taper != 0) {
        std::fprintf(stderr,
                     "simscale: a fat tree of %d nodes needs leaves of %d that divide it, and a "
                     "taper that divides the leaf (%d)\n",
                     spec.nodes, leaf, spec.fattree_taper);
        return false;
    }
    // Two levels: leaf switches with `leaf` nodes each, and leaf / taper spine switches that
    // every leaf switch reaches with one link: full bisection with taper 1.
    const unsigned spines = unsigned(leaf / spec.fattree_taper);
    const sg4::FatTreeParams params(2, {unsigned(leaf), unsigned(spec.nodes / leaf)}, {1, spines},
                                    {1, 1});
    out->node.assign(size_t(spec.nodes), nullptr);
    auto set_netpoint = [&spec, out](sg4::NetZone *zone, const std::vector<unsigned long> &,
                                     unsigned long id) {
        sg4::Host *host = make_node(zone, spec, id);
        out->node[id] = host;
        return std::make_pair(host->get_netpoint(), nullptr);
    };
    auto set_loopback = [&spec](sg4::NetZone *zone, const std::vector<unsigned long> &,
                                unsigned long id) { return make_loopback(zone, spec, id); };
    sg4::create_fatTree_zone(
        "cluster", parent, params, sg4::ClusterCallbacks(set_netpoint, set_loopback, {}),
        spec.link_Bps * spec.efficiency, 0.0, sg4::Link::SharingPolicy::SPLITDUPLEX)
        ->seal();
    return true;
}

} // namespace

sg4::Host *Platform::cpu_of(int node_index) const
{
    return machine != nullptr ? machine : node[size_t(node_index)];
}

double Platform::node_latency(int a, int b) const
{
    if (a == b)
        return spec.loopback_latency_s;
    // Under one leaf switch a message crosses two links instead of four.
    if (spec.topology == Topology::FatTree) {
        const int leaf = std::min(spec.fattree_leaf, spec.nodes);
        if (a / leaf == b / leaf)
            return spec.latency_s / 2;
    }
    return spec.latency_s;
}

bool build_platform(const PlatformSpec &spec, Platform *out)
{
    out->spec = spec;
    sg4::NetZone *root = sg4::create_star_zone("world");
    bool ok = spec.topology == Topology::Star ? build_star(root, spec, out)
                                              : build_fattree(root, spec, out);
    // Every rank may wait out a latency at the same time: a core each on its node's clock.
    for (int i = 0; i < spec.nodes; ++i)
        out->clock.push_back(root->create_host("clock-" + std::to_string(i), kCoreSpeed)
                                 ->set_core_count(spec.ranks_per_node));
    if (ok && spec.machine_cores > 0)
        out->machine = root->create_host("machine", kCoreSpeed)->set_core_count(spec.machine_cores);
    root->seal();
    return ok;
}

double parse_rate_Bps(const std::string &text)
{
    size_t end = 0;
    const double v = parse_number(text, &end);
    const std::string unit = lower(text.substr(end));
    double bits = 0;
    if (unit == "gbit" || unit == "gbps" || unit == "gbit/s")
        bits = v * 1e9;
    else if (unit == "mbit" || unit == "mbps" || unit == "mbit/s")
        bits = v * 1e6;
    else if (unit == "tbit" || unit == "tbps")
        bits = v * 1e12;
    return v > 0 ? bits / 8.0 : 0.0;
}

double parse_time_s(const std::string &text)
{
    size_t end = 0;
    const double v = parse_number(text, &end);
    const std::string unit = lower(text.substr(end));
    if (v < 0)
        return -1.0;
    if (unit == "us")
        return v * 1e-6;
    if (unit == "ns")
        return v * 1e-9;
    if (unit == "ms")
        return v * 1e-3;
    if (unit == "s")
        return v;
    return -1.0;
}

} // namespace simscale
