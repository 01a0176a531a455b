// coll/zip's statistics table (coll_stats.h).
#include "coll_stats.h"

#include <cstdio>

#include "relaxed_counter.hpp"

namespace
{

using zipcoll::relaxed_add;

// printf into a line and hand it on.
template <typename... Args>
void emit(void (*line)(void *, const char *), void *ctx, const char *format, Args... args)
{
    char text[256];
    std::snprintf(text, sizeof(text), format, args...);
    line(ctx, text);
}

} // namespace

extern "C" {

const zip_coll_stats_counter_t zip_coll_stats_counters[] = {
    {"calls", "calls that reached coll/zip", offsetof(zip_coll_stats_t, calls)},
    {"calls_fallback", "calls handed to the previous component, or whose blocks all moved plainly",
     offsetof(zip_coll_stats_t, calls_fallback)},
    {"calls_compressed", "calls in which this process sent or received a compressed frame",
     offsetof(zip_coll_stats_t, calls_compressed)},
    {"bytes_in", "payload bytes this process sent through zip's path, before compression",
     offsetof(zip_coll_stats_t, bytes_in)},
    {"bytes_out", "bytes this process actually sent through zip's path",
     offsetof(zip_coll_stats_t, bytes_out)},
    {"codec_ns", "nanoseconds this process spent compressing and decompressing",
     offsetof(zip_coll_stats_t, codec_ns)},
    {"calls_link_faster",
     "calls handed on because the link is faster than the codec could help (policy)",
     offsetof(zip_coll_stats_t, calls_link_faster)},
    {"calls_never", "calls handed on because the policy is never",
     offsetof(zip_coll_stats_t, calls_never)},
    {"calls_incompressible", "calls in which this process's sample said compression would not pay",
     offsetof(zip_coll_stats_t, calls_incompressible)},
    {"calls_unagreed",
     "non-blocking calls handed on because the communicator's ranks had not agreed on speeds yet",
     offsetof(zip_coll_stats_t, calls_unagreed)},
    {"observe_calls", "policy observe: calls in which auto would have compressed here",
     offsetof(zip_coll_stats_t, observe_compressible)},
    {"observe_saving_ns", "policy observe: nanoseconds compression is predicted to have saved",
     offsetof(zip_coll_stats_t, observe_saving_ns)},
};
const size_t zip_coll_stats_counter_count =
    sizeof(zip_coll_stats_counters) / sizeof(zip_coll_stats_counters[0]);

void zip_coll_stats_add(zip_coll_stats_t *s, int fallback, int compressed, uint64_t bytes_in,
                        uint64_t bytes_out, uint64_t codec_ns)
{
    relaxed_add(&s->calls, 1);
    relaxed_add(&s->calls_fallback, fallback ? 1 : 0);
    relaxed_add(&s->calls_compressed, compressed ? 1 : 0);
    relaxed_add(&s->bytes_in, bytes_in);
    relaxed_add(&s->bytes_out, bytes_out);
    relaxed_add(&s->codec_ns, codec_ns);
}

void zip_coll_stats_policy(zip_coll_stats_t *s, zip_verdict_t verdict, double observe_saving,
                           size_t bytes)
{
    switch (verdict) {
    case ZIP_VERDICT_LINK_FASTER:
        relaxed_add(&s->calls_link_faster, 1);
        break;
    case ZIP_VERDICT_NEVER:
        relaxed_add(&s->calls_never, 1);
        break;
    case ZIP_VERDICT_INCOMPRESSIBLE:
        relaxed_add(&s->calls_incompressible, 1);
        break;
    case ZIP_VERDICT_UNAGREED:
        relaxed_add(&s->calls_unagreed, 1);
        break;
    default:
        break;
    }
    if (observe_saving > 0.0) {
        const int c = zip_ompi_size_class(bytes);
        const auto ns = uint64_t(observe_saving * 1e9);
        relaxed_add(&s->observe_compressible, 1);
        relaxed_add(&s->observe_saving_ns, ns);
        relaxed_add(&s->observe_compressible_by_size[c], 1);
        relaxed_add(&s->observe_saving_ns_by_size[c], ns);
    }
}

void zip_coll_stats_handed_on(zip_coll_stats_t *s, zip_verdict_t verdict, double observe_saving,
                              size_t bytes)
{
    if (verdict >= 0 && verdict < ZIP_VERDICT_COUNT)
        relaxed_add(&s->handed_on[verdict], 1);
    if (observe_saving > 0.0)
        zip_coll_stats_policy(s, ZIP_VERDICT_COMPRESS, observe_saving, bytes);
}

void zip_coll_stats_snapshot(const zip_coll_stats_t *from, zip_coll_stats_t *to, size_t n)
{
    const size_t words = n * sizeof(zip_coll_stats_t) / sizeof(uint64_t);
    auto *src = const_cast<uint64_t *>(reinterpret_cast<const uint64_t *>(from));
    auto *dst = reinterpret_cast<uint64_t *>(to);
    for (size_t i = 0; i < words; ++i)
        dst[i] = zipcoll::relaxed_load(&src[i]);
    // The handed-on calls, where readers expect them.
    for (size_t k = 0; k < n; ++k) {
        zip_coll_stats_t &t = to[k];
        for (int v = 0; v < ZIP_VERDICT_COUNT; ++v) {
            t.calls += t.handed_on[v];
            t.calls_fallback += t.handed_on[v];
        }
        t.calls_link_faster += t.handed_on[ZIP_VERDICT_LINK_FASTER];
        t.calls_never += t.handed_on[ZIP_VERDICT_NEVER];
        t.calls_incompressible += t.handed_on[ZIP_VERDICT_INCOMPRESSIBLE];
        t.calls_unagreed += t.handed_on[ZIP_VERDICT_UNAGREED];
        for (uint64_t &h : t.handed_on)
            h = 0;
    }
}

uint64_t zip_coll_stats_read(const zip_coll_stats_t *s, size_t offset)
{
    if (offset % sizeof(uint64_t) != 0 || offset >= sizeof(zip_coll_stats_t))
        return 0;
    zip_coll_stats_t t;
    zip_coll_stats_snapshot(s, &t, 1);
    return reinterpret_cast<const uint64_t *>(&t)[offset / sizeof(uint64_t)];
}

void zip_coll_stats_print(const zip_coll_stats_t *t, const char *const *names, size_t n,
                          const zip_coll_stats_header_t *h, void (*line)(void *, const char *),
                          void *ctx)
{
    emit(line, ctx, "coll:zip stats (%s, codec %s, threshold %zu bytes):", h->whose, h->codec,
         h->threshold);
    emit(line, ctx, "coll:zip   %-20s %10s %10s %10s %14s %14s %7s %10s", "op", "calls", "fallback",
         "compressed", "bytes_in", "bytes_out", "ratio", "codec_s");
    for (size_t op = 0; op < n; ++op) {
        const zip_coll_stats_t &s = t[op];
        const double ratio = s.bytes_out > 0 ? double(s.bytes_in) / double(s.bytes_out) : 1.0;
        emit(line, ctx, "coll:zip   %-20s %10llu %10llu %10llu %14llu %14llu %7.3f %10.6f",
             names[op], (unsigned long long)s.calls, (unsigned long long)s.calls_fallback,
             (unsigned long long)s.calls_compressed, (unsigned long long)s.bytes_in,
             (unsigned long long)s.bytes_out, ratio, double(s.codec_ns) * 1e-9);
    }
    emit(line, ctx,
         "coll:zip policy %s (link %.0f MB/s, codec %.0f / %.0f MB/s as last agreed):", h->policy,
         h->speeds.link_Bps / 1e6, h->speeds.compress_Bps / 1e6, h->speeds.decompress_Bps / 1e6);
    // unagreed last, so that scripts reading the columns before it by number read them still.
    emit(line, ctx, "coll:zip:policy %-20s %12s %10s %15s %14s %16s %9s", "op", "link_faster",
         "never", "incompressible", "observe_calls", "observe_saved_s", "unagreed");
    for (size_t op = 0; op < n; ++op) {
        const zip_coll_stats_t &s = t[op];
        emit(line, ctx, "coll:zip:policy %-20s %12llu %10llu %15llu %14llu %16.6f %9llu", names[op],
             (unsigned long long)s.calls_link_faster, (unsigned long long)s.calls_never,
             (unsigned long long)s.calls_incompressible, (unsigned long long)s.observe_compressible,
             double(s.observe_saving_ns) * 1e-9, (unsigned long long)s.calls_unagreed);
    }
    // What observe found, by operation and size: where compression would pay.
    for (size_t op = 0; op < n; ++op)
        for (int c = 0; c < ZIP_OMPI_SIZE_CLASSES; ++c)
            if (t[op].observe_compressible_by_size[c] != 0)
                emit(line, ctx, "coll:zip:observe %-11s %-10s calls %llu would save %.6f s",
                     names[op], zip_ompi_size_class_name(c),
                     (unsigned long long)t[op].observe_compressible_by_size[c],
                     double(t[op].observe_saving_ns_by_size[c]) * 1e-9);
}

void zip_coll_stats_each_counter(zip_coll_stats_t *s, const char *row, const char *call,
                                 void (*fn)(void *ctx, const char *name, const char *desc,
                                            uint64_t *counter),
                                 void *ctx)
{
    // observe's two counters by size class (zip_ompi_size_class): _small, _medium, _large.
    static const char *const classes[ZIP_OMPI_SIZE_CLASSES] = {"small", "medium", "large"};
    char name[64], desc[160];
    for (size_t k = 0; k < zip_coll_stats_counter_count; ++k) {
        const zip_coll_stats_counter_t &c = zip_coll_stats_counters[k];
        std::snprintf(name, sizeof(name), "%s_%s", row, c.name);
        std::snprintf(desc, sizeof(desc), "%s: %s", call, c.what);
        fn(ctx, name, desc, reinterpret_cast<uint64_t *>(reinterpret_cast<char *>(s) + c.offset));
    }
    for (int k = 0; k < ZIP_OMPI_SIZE_CLASSES; ++k) {
        std::snprintf(name, sizeof(name), "%s_observe_calls_%s", row, classes[k]);
        std::snprintf(desc, sizeof(desc), "%s: observe_calls judged on a payload of %s", call,
                      zip_ompi_size_class_name(k));
        fn(ctx, name, desc, &s->observe_compressible_by_size[k]);
        std::snprintf(name, sizeof(name), "%s_observe_saving_ns_%s", row, classes[k]);
        std::snprintf(desc, sizeof(desc), "%s: observe_saving_ns of those", call);
        fn(ctx, name, desc, &s->observe_saving_ns_by_size[k]);
    }
}

} // extern "C"
