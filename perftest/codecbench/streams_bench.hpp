// codecbench --files DIR --streams SPEC: the recorded messages replayed as streams, as coll/zip's
// Alltoallv codes a peer's blocks with coll_zip_alltoallv_temporal: per rank, operation, peer
// and tag, in call order, each message coded on its own or against the previous message of its
// stream (when that has the same size), as the sender's rule (choose_reference in
// common/temporal_choice.hpp, shared by coll/zip and pml/zip) picks. Every chosen frame is decoded
// and checked.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"

namespace codecbench
{

// One application's totals. Wire bytes count a frame only where it is shorter than the
// message (else the message itself), as coll/zip sends them.
struct StreamTotals {
    std::string app;
    size_t messages = 0;
    size_t with_reference = 0; // messages whose stream's previous message had their size
    size_t as_delta = 0;       // messages the rule coded against that reference
    uint64_t raw = 0;
    uint64_t plain = 0;                         // every message on its own
    uint64_t always = 0;                        // against the reference wherever there is one
    uint64_t best = 0;                          // the smaller of the two per message (hindsight)
    uint64_t rule = 0;                          // as the sender's rule chose
    double plain_seconds = 0, rule_seconds = 0; // compressing, one pass each (not medians)
};

// Replays every application under o.files with the lossless codec `spec`. False with *error
// when a corpus cannot be read, the codec cannot be made, or a frame does not round-trip.
bool bench_streams(const Options &o, const std::string &spec, std::vector<StreamTotals> *out,
                   std::string *error);

void print_streams_report(FILE *f, const std::string &spec, const std::vector<StreamTotals> &apps);

} // namespace codecbench
