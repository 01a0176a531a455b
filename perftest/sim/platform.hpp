// The simulated cluster: nodes with one NIC each, joined by a star of links (one switch with
// a non-blocking backplane) or a two-level fat tree, and the cores that run the codecs.
#pragma once

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace simscale
{

enum class Topology { Star, FatTree };

struct PlatformSpec {
    int nodes = 1;
    int ranks_per_node = 1;
    Topology topology = Topology::Star;
    double link_Bps = 0;     // each NIC, each direction (bytes per second)
    double latency_s = 0;    // node to node, one way, through the network's core (fat tree:
                             // half of it under one leaf switch)
    double efficiency = 1.0; // payload rate / link rate (TCP/IP headers, ...)
    double loopback_Bps = 0; // between two ranks of one node (shared memory: memcpy speed)
    double loopback_latency_s = 0;
    int cores_per_node = 0;   // 0: one core per rank
    int machine_cores = 0;    // > 0: every rank's codec runs on one machine of this many cores
                              // (perftest/netemu: all "nodes" share this host's cores)
    double backplane_Bps = 0; // > 0 (star only): the switch forwards at most this many bytes per
                              // second in all, each direction (perftest/netemu: one host's
                              // CPU forwards every port's traffic)
    // One message at a time between two ranks, either way (Open MPI's TCP BTL on
    // perftest/netemu; see network.hpp).
    bool tcp_btl_pairs = false;
    // CPU time every message costs its sender before it leaves and its receiver after it has
    // arrived, on the rank's core (an MPI library's and a network stack's work per message;
    // 0: none, the default).
    double message_cpu_s = 0;
    int fattree_leaf = 16; // fat tree: nodes per leaf switch
    int fattree_taper = 1; // fat tree: leaf downlinks per uplink (1: full bisection)
};

struct Platform {
    std::vector<simgrid::s4u::Host *> node;  // node i's host; its rank actors run there
    simgrid::s4u::Host *machine = nullptr;   // set with machine_cores
    std::vector<simgrid::s4u::Host *> clock; // per node, for timed waits (see Network)
    // Where the codec work of a rank on node `node_index` runs.
    simgrid::s4u::Host *cpu_of(int node_index) const;
    // One-way latency from node a to node b (a == b: between two ranks of one node). The
    // links carry none: simscale's Network adds it (see network.hpp).
    double node_latency(int a, int b) const;

    PlatformSpec spec;
};

// Builds the platform into the engine (once per process). Fails with a message on stderr and
// returns false for a fat tree whose node count does not fill its leaves.
bool build_platform(const PlatformSpec &spec, Platform *out);

// "100gbit", "25Gbit", "1gbit", "500mbit" -> bytes per second; 0 on a bad string.
double parse_rate_Bps(const std::string &text);
// "2us", "50us", "1ms", "0.5us" -> seconds; negative on a bad string.
double parse_time_s(const std::string &text);

} // namespace simscale
