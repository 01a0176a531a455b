// codecbench --files: every codec on every recorded application message (perftest/msgrec), each
// message compressed on its own as coll/zip and pml/zip would, with the element type its index
// gives. Timing and round-trip checks are measure_point's, per message.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench_codecs.hpp"
#include "measure.hpp"
#include "msg_corpus.hpp"
#include "options.hpp"

namespace codecbench
{

struct NamedCodec {
    std::string spec;
    BenchCodec *codec;
};

// The element type a recorded payload is handed to the codecs with.
Element element_of(msgcorpus::Elem elem);

struct AppCorpus {
    std::string name;
    size_t ranks = 0;
    size_t ranks_without_summary = 0; // ranks that did not finish (no "# end" line)
    msgcorpus::Summary totals;        // the ranks' summary lines, summed
    size_t recorded = 0;              // messages in the indexes (before --sample)
};

struct MessageResult {
    size_t app = 0; // index into FilesRun::apps
    int rank = 0;
    msgcorpus::Message msg;
    std::vector<PointResult> results; // one per codec, in the order given
};

struct FilesRun {
    std::vector<AppCorpus> apps;
    std::vector<MessageResult> messages;
};

// Calls visit(app) for every application under o.files, in order (a progress line on stderr
// each); false with *error when a directory holds none or visit fails (visit sets *error).
bool for_each_app(const Options &o, const std::function<bool(const msgcorpus::App &)> &visit,
                  std::string *error);

// Measures `codecs` on the messages of every application under o.files (at most o.sample per
// application when set). False with *error when a corpus cannot be read; a codec that fails on
// a message is reported in that message's result, not here.
bool bench_files(const Options &o, const std::vector<NamedCodec> &codecs, const Timing &timing,
                 FilesRun *run, std::string *error);

} // namespace codecbench
