#include "files_bench.hpp"

#include <cstdio>

namespace codecbench
{
namespace
{

void add(msgcorpus::Summary *sum, const msgcorpus::Summary &s)
{
    sum->calls += s.calls;
    sum->recorded += s.recorded;
    sum->recorded_bytes += s.recorded_bytes;
    sum->small += s.small;
    sum->small_bytes += s.small_bytes;
    sum->over_limit += s.over_limit;
    sum->over_limit_bytes += s.over_limit_bytes;
    sum->unsampled += s.unsampled;
}

// Whether the k-th of n messages is among `sample` evenly spread ones (all when 0): the first
// message of each of `sample` equal stretches.
bool sampled(size_t k, size_t n, size_t sample)
{
    if (sample == 0 || sample >= n)
        return true;
    return k == 0 || k * sample / n != (k - 1) * sample / n;
}

bool bench_app(const Options &o, const msgcorpus::App &app, const std::vector<NamedCodec> &codecs,
               const Timing &timing, FilesRun *run, std::string *error)
{
    AppCorpus corpus;
    corpus.name = app.name;
    corpus.ranks = app.ranks.size();
    std::vector<msgcorpus::LoadedRank> loaded(app.ranks.size());
    for (size_t r = 0; r < app.ranks.size(); ++r) {
        if (!msgcorpus::load_rank(app.ranks[r], &loaded[r], error))
            return false;
        const msgcorpus::Summary &s = loaded[r].index.summary;
        if (s.present)
            add(&corpus.totals, s);
        else
            ++corpus.ranks_without_summary;
        corpus.recorded += loaded[r].index.messages.size();
    }
    const size_t app_index = run->apps.size();
    run->apps.push_back(corpus);

    Buffers buffers;
    size_t k = 0, measured = 0;
    for (size_t r = 0; r < loaded.size(); ++r) {
        for (const msgcorpus::Message &m : loaded[r].index.messages) {
            if (!sampled(k++, corpus.recorded, o.sample))
                continue;
            MessageResult mr{app_index, app.ranks[r].rank, m, {}};
            const Element elem = element_of(m.elem);
            for (const NamedCodec &c : codecs) {
                mr.results.push_back(
                    measure_point(*c.codec, loaded[r].payload(m), m.bytes, elem, timing, buffers));
                if (!mr.results.back().ok)
                    std::fprintf(stderr, "  FAIL %s on %s rank %d call %llu (%llu bytes %s): %s\n",
                                 c.spec.c_str(), app.name.c_str(), mr.rank,
                                 static_cast<unsigned long long>(m.call),
                                 static_cast<unsigned long long>(m.bytes),
                                 msgcorpus::elem_name(m.elem), mr.results.back().error.c_str());
            }
            run->messages.push_back(std::move(mr));
            ++measured;
        }
        loaded[r] = {}; // done with this rank's payloads
    }
    std::fprintf(stderr, "  %s: %zu ranks, %zu of %zu messages measured\n", app.name.c_str(),
                 corpus.ranks, measured, corpus.recorded);
    return true;
}

} // namespace

Element element_of(msgcorpus::Elem elem)
{
    switch (elem) {
    case msgcorpus::Elem::F64:
        return kF64;
    case msgcorpus::Elem::F32:
        return {ZIP_TYPE_F32, 4};
    // Integers as the components hand them over since they map MPI's integer types
    // (common/zip_ompi_datatype.c); Blosc shuffles by the element size.
    case msgcorpus::Elem::I32:
        return {ZIP_TYPE_I32, 4};
    case msgcorpus::Elem::I64:
        return {ZIP_TYPE_I64, 8};
    default:
        return {ZIP_TYPE_BYTES, 1};
    }
}

bool for_each_app(const Options &o, const std::function<bool(const msgcorpus::App &)> &visit,
                  std::string *error)
{
    for (const std::string &dir : o.files) {
        std::vector<msgcorpus::App> apps;
        if (!msgcorpus::find_apps(dir, &apps, error))
            return false;
        for (const msgcorpus::App &app : apps) {
            std::fprintf(stderr, "[%s] %s\n", dir.c_str(), app.name.c_str());
            if (!visit(app))
                return false;
        }
    }
    return true;
}

bool bench_files(const Options &o, const std::vector<NamedCodec> &codecs, const Timing &timing,
                 FilesRun *run, std::string *error)
{
    return for_each_app(
        o, [&](const msgcorpus::App &app) { return bench_app(o, app, codecs, timing, run, error); },
        error);
}

} // namespace codecbench
