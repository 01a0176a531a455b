// simscale's command line.
#pragma once

#include <string>
#include <vector>

#include "platform.hpp"
#include "workload.hpp"
#include "zip_path.hpp"

namespace simscale
{

struct Options {
    Op op = Op::Bcast;
    int ranks = 0;
    size_t bytes = 0;
    PlatformSpec platform;
    std::string link_text, latency_text, label;
    double loopback_Bps = 0; // 0: the data set's memcpy speed
    std::string codec_csv, codec = "fast", dataset, calibrate_on = "gauss";
    ZipSettings zip;
    std::string csv, policy_csv;
    bool detail = false;
    bool zip_raw = true;     // --modes: simulate zip-raw (best-baseline and zip always are)
    bool exhaustive = false; // simulate every baseline configuration, even hopeless ones
    int linear_max_ranks = 1024;
    std::vector<std::string> simgrid_args; // --cfg=... and --log=..., passed to SimGrid
};

// Parses argv; on error or --help prints to stderr/stdout and returns false with *exit_code.
bool parse_options(int argc, char **argv, Options *o, int *exit_code);

} // namespace simscale
