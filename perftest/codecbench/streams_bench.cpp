#include "streams_bench.hpp"

#include <chrono>
#include <cstring>
#include <map>
#include <tuple>

#include "files_bench.hpp"
#include "msg_corpus.hpp"
#include "temporal_streams.hpp"
#include "zip/zip.h"

namespace codecbench
{
namespace
{

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// A context that codes and checks one message at a time, plainly or against a reference.
class Coder
{
  public:
    explicit Coder(const std::string &spec)
        : enc_(zip_ctx_create(spec.c_str(), nullptr)), dec_(zip_ctx_create(spec.c_str(), nullptr))
    {
    }
    ~Coder()
    {
        zip_ctx_destroy(enc_);
        zip_ctx_destroy(dec_);
    }
    bool ok() const { return enc_ && dec_; }

    // Wire bytes of the first n bytes of p coded against ref (nullptr: on their own): the
    // frame's length if shorter than n, else n. Adds the compressing time to *seconds.
    size_t code(const unsigned char *p, size_t n, const Element &e, const unsigned char *ref,
                double *seconds)
    {
        frame_.resize(zip_compress_bound(n));
        const zip_elem_type_t type = n % e.width == 0 ? e.zip_type : ZIP_TYPE_BYTES;
        const size_t count = n / zip_elem_size(type);
        size_t len = 0;
        const double t0 = now_s();
        const zip_status_t st =
            ref ? zip_compress_delta(enc_, type, p, count, ref, frame_.data(), frame_.size(), &len)
                : zip_compress(enc_, 0, type, p, count, frame_.data(), frame_.size(), &len);
        if (seconds)
            *seconds += now_s() - t0;
        if (st != ZIP_OK)
            return SIZE_MAX;
        frame_.resize(len);
        return len < n ? len : n;
    }

    // Whether the last frame decodes to the n bytes at p (with ref, as a receiver holds it).
    bool check(const unsigned char *p, size_t n, const unsigned char *ref)
    {
        out_.resize(n);
        size_t got = 0;
        return zip_decompress_ref(dec_, frame_.data(), frame_.size(), ref, ref ? n : 0, out_.data(),
                                  n, &got) == ZIP_OK &&
               got == n && std::memcmp(out_.data(), p, n) == 0;
    }

  private:
    zip_ctx_t *enc_, *dec_;
    std::vector<unsigned char> frame_, out_;
};

struct Stream {
    std::vector<unsigned char> ref;
    bool held = false;
    zipcoll::TemporalChoice choice;
};

bool replay_app(const msgcorpus::App &app, const std::string &spec, StreamTotals *t,
                std::string *error)
{
    Coder c(spec);
    if (!c.ok()) {
        *error = "cannot create codec " + spec;
        return false;
    }
    uint64_t probes = 0;
    for (const msgcorpus::RankFiles &files : app.ranks) {
        msgcorpus::LoadedRank rank;
        if (!msgcorpus::load_rank(files, &rank, error))
            return false;
        std::map<std::tuple<std::string, int, int>, Stream> streams;
        for (const msgcorpus::Message &m : rank.index.messages) {
            const unsigned char *p = rank.payload(m);
            const size_t n = size_t(m.bytes);
            const Element e = element_of(m.elem);
            Stream &s = streams[{m.op, m.peer, m.tag}];
            const unsigned char *ref = s.held && s.ref.size() == n ? s.ref.data() : nullptr;
            const size_t plain = c.code(p, n, e, nullptr, &t->plain_seconds);
            size_t always = plain;
            if (ref)
                always = c.code(p, n, e, ref, nullptr);
            // The rule, timed with its samples, and its frame checked at a receiver.
            const double t0 = now_s();
            auto sample = [&](const char *r, size_t k) {
                const size_t len =
                    c.code(p, k, e, reinterpret_cast<const unsigned char *>(r), nullptr);
                return len < k ? len : 0;
            };
            const auto *chosen = reinterpret_cast<const unsigned char *>(zipcoll::choose_reference(
                s.choice, reinterpret_cast<const char *>(ref), n, sample, &probes));
            t->rule_seconds += now_s() - t0;
            const size_t rule = c.code(p, n, e, chosen, &t->rule_seconds);
            if (plain == SIZE_MAX || always == SIZE_MAX || rule == SIZE_MAX ||
                !c.check(p, n, chosen)) {
                *error = app.name + " rank " + std::to_string(files.rank) + " call " +
                         std::to_string(m.call) + ": a frame does not round-trip";
                return false;
            }
            if (ref)
                s.choice.coded(chosen != nullptr, double(n) / double(rule));
            t->messages += 1;
            t->with_reference += ref != nullptr;
            t->as_delta += chosen != nullptr;
            t->raw += n;
            t->plain += plain;
            t->always += always;
            t->best += always < plain ? always : plain;
            t->rule += rule;
            // Both ends keep every message of the stream; a new reference (another size)
            // starts a new choice, as in coll/zip's streams.
            if (!s.held || s.ref.size() != n)
                s.choice = zipcoll::TemporalChoice{};
            s.ref.assign(p, p + n);
            s.held = true;
        }
    }
    return true;
}

} // namespace

bool bench_streams(const Options &o, const std::string &spec, std::vector<StreamTotals> *out,
                   std::string *error)
{
    return for_each_app(
        o,
        [&](const msgcorpus::App &app) {
            StreamTotals t;
            t.app = app.name;
            if (!replay_app(app, spec, &t, error))
                return false;
            out->push_back(t);
            return true;
        },
        error);
}

void print_streams_report(FILE *f, const std::string &spec, const std::vector<StreamTotals> &apps)
{
    std::fprintf(f,
                 "codecbench --streams: messages replayed per (rank, op, peer, tag) in call order "
                 "with %s; ratio = raw / wire bytes (a frame only where shorter); plain: each "
                 "message on its own; always: against the stream's previous message wherever it "
                 "has the same size; best: the smaller of the two per message; rule: coll/zip's "
                 "temporal choice (samples of %zu bytes); time rule/plain: compressing seconds, "
                 "one pass, samples included\n\n",
                 spec.c_str(), zipcoll::kProbeBytes);
    std::fprintf(f, "%-12s %8s %7s %7s %8s %8s %8s %8s %8s %10s\n", "app", "messages", "w/ref",
                 "delta", "plain", "always", "best", "rule", "rule/pl", "time r/pl");
    StreamTotals all;
    all.app = "all";
    auto row = [&](const StreamTotals &t) {
        auto ratio = [&](uint64_t wire) { return wire ? double(t.raw) / double(wire) : 0.0; };
        std::fprintf(f, "%-12s %8zu %7zu %7zu %8.3f %8.3f %8.3f %8.3f %8.3f %10.2f\n",
                     t.app.c_str(), t.messages, t.with_reference, t.as_delta, ratio(t.plain),
                     ratio(t.always), ratio(t.best), ratio(t.rule),
                     t.rule ? double(t.plain) / double(t.rule) : 0.0,
                     t.plain_seconds > 0 ? t.rule_seconds / t.plain_seconds : 0.0);
    };
    for (const StreamTotals &t : apps) {
        row(t);
        all.messages += t.messages;
        all.with_reference += t.with_reference;
        all.as_delta += t.as_delta;
        all.raw += t.raw;
        all.plain += t.plain;
        all.always += t.always;
        all.best += t.best;
        all.rule += t.rule;
        all.plain_seconds += t.plain_seconds;
        all.rule_seconds += t.rule_seconds;
    }
    row(all);
}

} // namespace codecbench
