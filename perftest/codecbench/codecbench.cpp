// codecbench: single-core compress/decompress throughput and ratio of every ompi-zip codec on
// every zipdata data set and message size, or on recorded application messages (--files), with
// memcpy and Blosc as references measured in the same run. Every round trip is verified; a codec
// that fails anywhere gets no figures at all.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_codecs.hpp"
#include "files_bench.hpp"
#include "files_report.hpp"
#include "streams_bench.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "report.hpp"
#include "zipdata.h"

using namespace codecbench;

namespace
{

struct Candidate {
    std::string spec;
    std::unique_ptr<BenchCodec> codec;
};

std::vector<Candidate> create_codecs(const Options &o, std::vector<std::string> *skipped)
{
    std::vector<Candidate> list;
    for (const std::string &spec : o.codecs) {
        std::string why;
        auto codec = make_bench_codec(spec, o.block_size, &why);
        if (codec)
            list.push_back({spec, std::move(codec)});
        else
            skipped->push_back(spec + ": " + why);
    }
    return list;
}

// The sizes measured on a data set: those within its natural size, unless --tile.
std::vector<size_t> sizes_for(const Options &o, const std::string &dataset, std::string *note)
{
    size_t natural = zipdata_natural_count(dataset.c_str());
    std::vector<size_t> sizes;
    for (size_t s : o.sizes) {
        if (o.tile || natural == ZIPDATA_UNBOUNDED || s / sizeof(double) <= natural)
            sizes.push_back(s);
        else
            *note += " " + format_size(s);
    }
    if (!note->empty())
        *note = "skipped" + *note + ": larger than the data set (" +
                format_size(natural * sizeof(double)) + "; --tile measures it repeated)";
    return sizes;
}

void print_notes(const std::vector<std::string> &skipped, const std::vector<std::string> &notes,
                 const std::vector<std::string> &failed)
{
    for (const std::string &s : skipped)
        std::printf("\nskipped codec %s", s.c_str());
    for (const std::string &n : notes)
        std::printf("\nnote: %s", n.c_str());
    for (const std::string &f : failed)
        std::printf(
            "\nFAILED: %s failed a round trip (see stderr); none of its figures are reported",
            f.c_str());
    std::printf("\n");
}

// --files: the codecs on recorded application messages.
int run_files(const Options &o, std::vector<Candidate> &candidates, const Timing &timing,
              std::vector<std::string> skipped)
{
    std::vector<NamedCodec> codecs;
    std::vector<std::string> names;
    for (Candidate &c : candidates) {
        if (c.codec->lossy()) { // recorded payloads are not all doubles, and lossless is the goal
            skipped.push_back(c.spec + ": lossy specs are not measured on recorded messages");
            continue;
        }
        codecs.push_back({c.spec, c.codec.get()});
        names.push_back(c.spec);
    }
    FilesRun run;
    std::string error;
    if (codecs.empty() || !bench_files(o, codecs, timing, &run, &error)) {
        std::fprintf(stderr, "codecbench: %s\n",
                     codecs.empty() ? "no codec to measure" : error.c_str());
        return 1;
    }
    std::vector<std::string> failed;
    for (const MessageResult &m : run.messages)
        for (size_t c = 0; c < codecs.size(); ++c)
            if (!m.results[c].ok &&
                std::find(failed.begin(), failed.end(), names[c]) == failed.end())
                failed.push_back(names[c]);

    std::printf("codecbench --files: one thread, each recorded message compressed on its own; "
                "ratio = raw / compressed bytes over the messages; GB/s = 1e9 raw bytes per second "
                "of summed per-message medians (%d samples of >= %.3g s per message and "
                "direction); comp/shuf, dec/shuf = speed / blosc-shuffle-lz4's on the same "
                "messages; integers reach the zip codecs as I32/I64, Blosc with their size as "
                "typesize\n",
                o.repeats, o.min_time);
    std::printf("%s\n", describe_libraries().c_str());
    print_files_report(stdout, run, names, failed);
    print_notes(skipped, {}, failed);
    if (!o.csv_path.empty() && !write_files_csv(o.csv_path, run, names, failed)) {
        std::fprintf(stderr, "codecbench: cannot write %s\n", o.csv_path.c_str());
        return 1;
    }
    return failed.empty() ? 0 : 1;
}

// Integer sets go to zip as integers and to Blosc with their own element size.
Element element_of(const std::string &dataset)
{
    switch (zipdata_type(dataset.c_str())) {
    case ZIPDATA_I32:
        return {ZIP_TYPE_I32, 4};
    case ZIPDATA_I64:
        return {ZIP_TYPE_I64, 8};
    default:
        return {ZIP_TYPE_F64, 8};
    }
}

void pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        std::fprintf(stderr, "codecbench: cannot pin to CPU %d; running unpinned\n", cpu);
}

} // namespace

// --files DIR --streams SPEC: the messages as streams, coded as coll/zip's temporal mode would.
int run_streams(const Options &o)
{
    if (o.files.empty()) {
        std::fprintf(stderr, "codecbench: --streams needs --files DIR\n");
        return 2;
    }
    std::vector<StreamTotals> apps;
    std::string error;
    if (!bench_streams(o, o.streams, &apps, &error)) {
        std::fprintf(stderr, "codecbench: %s\n", error.c_str());
        return 1;
    }
    print_streams_report(stdout, o.streams, apps);
    return 0;
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (o.pin_cpu >= 0)
        pin_to_cpu(o.pin_cpu);
    if (!o.streams.empty())
        return run_streams(o);

    std::vector<std::string> skipped, notes;
    std::vector<Candidate> codecs = create_codecs(o, &skipped);
    if (codecs.empty()) {
        std::fprintf(stderr, "codecbench: no codec could be created\n");
        for (const std::string &s : skipped)
            std::fprintf(stderr, "  %s\n", s.c_str());
        return 1;
    }

    Timing timing;
    timing.min_time = o.min_time;
    timing.repeats = o.repeats;
    timing.gap_us = o.gap_us;
    if (!o.files.empty())
        return run_files(o, codecs, timing, skipped);
    Buffers buffers;
    std::vector<Row> rows;
    size_t done = 0;
    for (const std::string &dataset : o.datasets) {
        ++done;
        std::string note;
        std::vector<size_t> sizes = sizes_for(o, dataset, &note);
        if (!note.empty())
            notes.push_back(dataset + ": " + note);
        if (sizes.empty())
            continue;
        // One buffer per data set; each size is its prefix (value k does not depend on n).
        std::vector<double> data(*std::max_element(sizes.begin(), sizes.end()) / sizeof(double));
        int fill_rc = zipdata_fill(dataset.c_str(), data.data(), data.size(), o.seed);
        if (fill_rc != ZIPDATA_OK) {
            notes.push_back(dataset + ": zipdata_fill failed (" + std::to_string(fill_rc) +
                            "), not measured");
            continue;
        }
        std::fprintf(stderr, "[%zu/%zu] %s\n", done, o.datasets.size(), dataset.c_str());
        const Element element = element_of(dataset);
        for (size_t size : sizes)
            for (Candidate &c : codecs) {
                Row row{c.spec, dataset, size, c.codec->lossy(), {}};
                row.result = measure_point(*c.codec, data.data(), size, element, timing, buffers);
                if (!row.result.ok)
                    std::fprintf(stderr, "  FAIL %s on %s at %s: %s\n", c.spec.c_str(),
                                 dataset.c_str(), format_size(size).c_str(),
                                 row.result.error.c_str());
                rows.push_back(std::move(row));
            }
    }

    std::vector<std::string> failed;
    for (const Row &r : rows)
        if (!r.result.ok && std::find(failed.begin(), failed.end(), r.codec) == failed.end())
            failed.push_back(r.codec);

    std::printf(
        "codecbench: one thread, GB/s = 1e9 raw bytes/s (both directions), median of %d samples of "
        ">= %.3g s total per point; ratio = raw/compressed; a size below a data set's size takes "
        "its "
        "first bytes; zipdata seed/step %llu\n",
        o.repeats, o.min_time, static_cast<unsigned long long>(o.seed));
    if (o.gap_us > 0)
        std::printf("every timed call after a busy pause of %.0f us (not timed)\n", o.gap_us);
    std::printf("%s\n\n", describe_libraries().c_str());
    print_table(stdout, rows, failed);
    print_notes(skipped, notes, failed);

    if (!o.csv_path.empty() && !write_csv(o.csv_path, rows, failed)) {
        std::fprintf(stderr, "codecbench: cannot write %s\n", o.csv_path.c_str());
        return 1;
    }
    return failed.empty() ? 0 : 1;
}
