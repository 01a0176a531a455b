// One simscale run: the simulated ranks of one call on one platform, and the steps they run
// one after another in a single simulation (SimGrid allows one per process): every coll/tuned
// baseline configuration worth trying, zip-raw, coll/zip's speed probe, and zip.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codec_table.hpp"
#include "options.hpp"
#include "platform.hpp"
#include "zip_path.hpp"

namespace simscale
{

struct StepTime {
    std::string name;
    double seconds = 0; // simulated
    double wall_s = 0;  // what simulating it took
    bool skipped = false;
    double bound_s = 0; // a baseline's lower bound (0: none), which decided whether it ran
};

// What zip did in one mode, summed over the ranks.
struct ZipSummary {
    Route route;                 // where coll/zip sent the call
    size_t bytes_in = 0;         // raw bytes the ranks put on the wire or would have
    size_t bytes_out = 0;        // bytes they put on the wire
    std::map<int, int> verdicts; // a sampling sender's verdict (zip_verdict_t) -> senders
    int errors = 0;              // ranks whose algorithm failed
    // allgather(v): the blocks a rank held at the end, raw and as they travelled
    size_t gathered_raw = 0, gathered_wire = 0;

    double wire_ratio() const { return bytes_out ? double(bytes_in) / double(bytes_out) : 1.0; }
};

struct Prediction {
    std::string dataset, calibration; // as found in the codec table
    StepTime best;                    // the fastest baseline configuration
    std::vector<StepTime> steps;      // every step, in the order simulated
    double zip_raw_s = 0, zip_s = 0;  // a call zip hands on takes the best baseline's time
    bool has_zip_raw = true;          // zip-raw was simulated
    ZipSummary zip_raw, zip;
    // allgather(v) under policy auto: the communicator's first call, which chose without a
    // ratio; `zip` is then a later call on the same data, which weighs the ratio it saw.
    bool has_zip_first = false;
    ZipSummary zip_first;
    double zip_first_s = 0;
    Agreed agreed{};
    double wall_s = 0;
};

// Builds the platform into the engine and simulates. False, with a message on stderr, when
// the platform cannot be built or the simulation did not finish.
bool predict(const Options &o, const CodecTable &table, Prediction *out);

} // namespace simscale
