// The speed-aware policy of zip.h: one cost model that every decision site asks, and the
// running estimates of codec and link speed it is fed with.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "simd_state.hpp"
#include "zip/zip.h"

namespace
{

double seconds_for(size_t bytes, double Bps)
{
    return Bps > 0.0 ? double(bytes) / Bps : 0.0;
}

// Weight of a new codec observation in the running average.
constexpr double kCodecWeight = 0.2;
// A link estimate loses this fraction per observation slower than itself: a link that got
// slower (congestion, a new job on the node) is followed within ~100 transfers.
constexpr double kLinkDecay = 0.01;

struct MappedFree {
    size_t bytes;
    void operator()(unsigned char *p) const noexcept { zip_mem_free(p, bytes); }
};

} // namespace

// Writers update under the lock (each update reads the estimate it replaces); readers, one per
// message pml/zip sends, load the estimates without it (each is one atomic word, and each is
// an estimate on its own: a reader that sees one updated and another not yet decides as it
// would have a moment earlier or later).
struct zip_estimator {
    std::mutex lock;
    std::atomic<double> compress_Bps{0.0};
    std::atomic<double> decompress_Bps{0.0};
    std::atomic<double> link_Bps[2] = {0.0, 0.0};
    bool link_fixed[2] = {false, false};
};

extern "C" {

int zip_policy_mode_parse(const char *name)
{
    if (name == nullptr)
        return -1;
    static const char *const names[] = {"auto", "always", "never", "observe"};
    for (int i = 0; i < 4; ++i)
        if (std::strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

const char *zip_policy_mode_name(zip_policy_mode_t mode)
{
    switch (mode) {
    case ZIP_POLICY_AUTO:
        return "auto";
    case ZIP_POLICY_ALWAYS:
        return "always";
    case ZIP_POLICY_NEVER:
        return "never";
    case ZIP_POLICY_OBSERVE:
        return "observe";
    }
    return "?";
}

const char *zip_verdict_name(zip_verdict_t verdict)
{
    switch (verdict) {
    case ZIP_VERDICT_COMPRESS:
        return "compressed";
    case ZIP_VERDICT_TOO_SMALL:
        return "too_small";
    case ZIP_VERDICT_INCOMPRESSIBLE:
        return "incompressible";
    case ZIP_VERDICT_LINK_FASTER:
        return "link_faster";
    case ZIP_VERDICT_NEVER:
        return "never";
    case ZIP_VERDICT_UNAGREED:
        return "unagreed";
    }
    return "?";
}

double zip_policy_time_raw(const zip_speeds_t *s, size_t bytes)
{
    return seconds_for(bytes, s->link_Bps);
}

double zip_policy_time_compressed(const zip_speeds_t *s, size_t bytes, double ratio,
                                  zip_transfer_shape_t shape)
{
    const double c = seconds_for(bytes, s->compress_Bps);
    const double d = seconds_for(bytes, s->decompress_Bps);
    const double w = ratio > 0.0 ? seconds_for(bytes, s->link_Bps) / ratio : 0.0;
    // A fan's far ends code one block each: the first block's coding fills it, the last one's
    // drains it, and the root's own stage overlaps the wire in between.
    const double k = double(std::max(s->ends, 1));
    switch (shape) {
    case ZIP_TRANSFER_PIPELINED:
        return std::max({c, w, d});
    case ZIP_TRANSFER_EXCHANGE:
        // Many blocks: the codec stages of one block overlap the others' wire. k blocks (a halo
        // exchange's one to three remote neighbours): the first block's coding fills the pipe,
        // the others' overlaps the wire, and the k blocks that arrive decode after it, for
        // flows that share a NIC fairly end together (simscale, 8x8x8 grid in nodes of 32 at
        // 400 Gbit/s, three remote blocks: draining one block's decoding it compressed at 0.94x
        // of coll/basic). k = 1: one-shot.
        if (s->ends > 0)
            return c / k + std::max(c - c / k, w) + d;
        return std::max(c + d, w);
    case ZIP_TRANSFER_FAN_IN:
        return c / k + std::max(w, d - d / k) + d / k;
    case ZIP_TRANSFER_FAN_OUT:
        return c / k + std::max(c - c / k, w) + d / k;
    case ZIP_TRANSFER_ONE_SHOT:
        break;
    }
    return c + w + d;
}

zip_verdict_t zip_policy_decide(zip_policy_mode_t mode, const zip_speeds_t *s, size_t bytes,
                                size_t threshold, double ratio, zip_transfer_shape_t shape)
{
    if (mode == ZIP_POLICY_NEVER)
        return ZIP_VERDICT_NEVER;
    if (bytes == 0 || bytes < threshold)
        return ZIP_VERDICT_TOO_SMALL;
    // ALWAYS: whatever shrinks by a tenth or more (a frame that barely shrinks costs the
    // receiver a decode for nothing).
    if (mode == ZIP_POLICY_ALWAYS)
        return (ratio == 0.0 || ratio * ZIP_POLICY_MARGIN >= 1.0) ? ZIP_VERDICT_COMPRESS
                                                                  : ZIP_VERDICT_INCOMPRESSIBLE;
    // An unknown link never pays for compression: zip observes it raw first.
    if (s->link_Bps <= 0.0)
        return ZIP_VERDICT_LINK_FASTER;
    const double raw = zip_policy_time_raw(s, bytes);
    const double best = zip_policy_time_compressed(s, bytes, ZIP_POLICY_RATIO_CAP, shape);
    if (best >= ZIP_POLICY_MARGIN * raw)
        return ZIP_VERDICT_LINK_FASTER;
    if (ratio == 0.0)
        return ZIP_VERDICT_COMPRESS; // worth a sample
    const double with = zip_policy_time_compressed(s, bytes, std::min(ratio, 1e9), shape);
    return with < ZIP_POLICY_MARGIN * raw ? ZIP_VERDICT_COMPRESS : ZIP_VERDICT_INCOMPRESSIBLE;
}

zip_estimator_t *zip_estimator_create(void)
{
    return new (std::nothrow) zip_estimator();
}

void zip_estimator_destroy(zip_estimator_t *e)
{
    delete e;
}

void zip_estimator_observe_codec(zip_estimator_t *e, int decompress, size_t raw_bytes,
                                 double seconds)
{
    if (e == nullptr || raw_bytes == 0 || !(seconds > 0.0))
        return;
    const double rate = double(raw_bytes) / seconds;
    std::lock_guard<std::mutex> g(e->lock);
    std::atomic<double> &est = decompress ? e->decompress_Bps : e->compress_Bps;
    const double was = est.load(std::memory_order_relaxed);
    est.store(was > 0.0 ? (1.0 - kCodecWeight) * was + kCodecWeight * rate : rate,
              std::memory_order_relaxed);
}

void zip_estimator_observe_link(zip_estimator_t *e, int peer_class, size_t bytes, double seconds,
                                int sharing)
{
    if (e == nullptr || peer_class < 0 || peer_class > 1 || bytes == 0 || !(seconds > 0.0))
        return;
    // The NIC's rate: this transfer had 1/sharing of it.
    const double rate = double(bytes) / seconds * double(std::max(sharing, 1));
    std::lock_guard<std::mutex> g(e->lock);
    if (e->link_fixed[peer_class])
        return;
    std::atomic<double> &est = e->link_Bps[peer_class];
    const double was = est.load(std::memory_order_relaxed);
    est.store(rate >= was ? rate : std::max(rate, (1.0 - kLinkDecay) * was),
              std::memory_order_relaxed);
}

void zip_estimator_reset_link(zip_estimator_t *e, int peer_class)
{
    if (e == nullptr || peer_class < 0 || peer_class > 1)
        return;
    std::lock_guard<std::mutex> g(e->lock);
    if (!e->link_fixed[peer_class])
        e->link_Bps[peer_class].store(0.0, std::memory_order_relaxed);
}

void zip_estimator_fix_link(zip_estimator_t *e, int peer_class, double Bps)
{
    if (e == nullptr || peer_class < 0 || peer_class > 1)
        return;
    std::lock_guard<std::mutex> g(e->lock);
    e->link_Bps[peer_class].store(Bps, std::memory_order_relaxed);
    e->link_fixed[peer_class] = Bps > 0.0;
}

zip_speeds_t zip_estimator_speeds(const zip_estimator_t *e, int peer_class, int sharing)
{
    zip_speeds_t s{};
    if (e == nullptr || peer_class < 0 || peer_class > 1)
        return s;
    s.compress_Bps = e->compress_Bps.load(std::memory_order_relaxed);
    s.decompress_Bps = e->decompress_Bps.load(std::memory_order_relaxed);
    s.link_Bps =
        e->link_Bps[peer_class].load(std::memory_order_relaxed) / double(std::max(sharing, 1));
    return s;
}

zip_status_t zip_calibrate(zip_ctx_t *ctx, double *compress_Bps, double *decompress_Bps)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (ctx == nullptr || compress_Bps == nullptr || decompress_Bps == nullptr)
        return ZIP_E_ARG;
    // A smooth field (what zip is for), deterministic so that every rank measures the same work.
    constexpr size_t n = 65536;
    // Outside the heap (zip_mem_alloc): freeing 1.5 MB of heap-mapped chunks here would raise
    // glibc's mmap threshold for the rest of the application's run.
    const size_t frame_cap = zip_compress_bound(n * sizeof(double));
    const size_t total = 2 * n * sizeof(double) + frame_cap;
    std::unique_ptr<unsigned char, MappedFree> memory(
        static_cast<unsigned char *>(zip_mem_alloc(total)), MappedFree{total});
    if (!memory)
        return ZIP_E_NOMEM;
    double *src = reinterpret_cast<double *>(memory.get());
    double *back = src + n;
    unsigned char *frame = memory.get() + 2 * n * sizeof(double);
    for (size_t i = 0; i < n; ++i)
        src[i] = std::sin(double(i) * 0.001) * std::exp(-double(i % 4096) * 1e-4) +
                 1e-3 * double(i % 97);
    using clock = std::chrono::steady_clock;
    double best_c = 0.0, best_d = 0.0;
    // The best of three: the first run pays for page faults and cold tables.
    for (int rep = 0; rep < 3; ++rep) {
        size_t len = 0, got = 0;
        auto t0 = clock::now();
        zip_status_t st = zip_compress(ctx, 0, ZIP_TYPE_F64, src, n, frame, frame_cap, &len);
        auto t1 = clock::now();
        if (st != ZIP_OK)
            return st;
        st = zip_decompress(ctx, 0, frame, len, back, n * sizeof(double), &got);
        auto t2 = clock::now();
        if (st != ZIP_OK)
            return st;
        const double c = std::chrono::duration<double>(t1 - t0).count();
        const double d = std::chrono::duration<double>(t2 - t1).count();
        const double bytes = double(n * sizeof(double));
        if (c > 0.0)
            best_c = std::max(best_c, bytes / c);
        if (d > 0.0)
            best_d = std::max(best_d, bytes / d);
    }
    *compress_Bps = best_c;
    *decompress_Bps = best_d;
    return ZIP_OK;
}

} // extern "C"
