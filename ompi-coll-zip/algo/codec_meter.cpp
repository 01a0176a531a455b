// The codec meter (codec_meter.h): what a communicator's data cost this rank's codec.
#include "codec_meter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include <sys/resource.h>

#include "block_codec.hpp"
#include "raw_buffer.hpp"
#include "relaxed_counter.hpp"
#include "steady_ns.hpp"

namespace
{

constexpr double kSlowestClassBps = 62.5e6;
constexpr int kClassesPerOctave = 4;

using zipcoll::relaxed_add;
using zipcoll::relaxed_load;

void halve(uint64_t *v)
{
    zipcoll::relaxed_store(v, relaxed_load(v) / 2);
}

std::atomic<bool> faults_checked{true};

uint64_t minor_faults()
{
    struct rusage u;
    // RUSAGE_SELF: codec threads (codec_threads) write parts of a frame too.
    return getrusage(RUSAGE_SELF, &u) == 0 ? uint64_t(u.ru_minflt) : ZIP_CODEC_METER_UNCHECKED;
}

int speed_class(uint64_t bytes, uint64_t ns)
{
    if (ns == 0)
        return ZIP_CODEC_METER_CLASSES - 1;
    const double Bps = double(bytes) * 1e9 / double(ns);
    const double c = std::floor(kClassesPerOctave * std::log2(Bps / kSlowestClassBps));
    return int(std::clamp(c, 0.0, double(ZIP_CODEC_METER_CLASSES - 1)));
}

// Seconds per byte of direction dir at the bytes' median class, 0 if it saw too little.
double median_seconds_per_byte(const zip_codec_meter_t *m, int dir)
{
    uint64_t bytes[ZIP_CODEC_METER_CLASSES], total = 0;
    for (int c = 0; c < ZIP_CODEC_METER_CLASSES; ++c)
        total += bytes[c] = relaxed_load(&m->bytes[dir][c]);
    if (total < ZIP_CODEC_METER_MIN_BYTES ||
        relaxed_load(&m->calls[dir]) < ZIP_CODEC_METER_MIN_CALLS)
        return 0.0;
    uint64_t below = 0;
    for (int c = 0; c < ZIP_CODEC_METER_CLASSES; ++c) {
        below += bytes[c];
        if (2 * below >= total)
            return bytes[c] > 0 ? double(relaxed_load(&m->ns[dir][c])) * 1e-9 / double(bytes[c])
                                : 0.0;
    }
    return 0.0;
}

} // namespace

extern "C" {

void zip_codec_meter_time(zip_codec_meter_t *m, int decompress, uint64_t bytes, uint64_t ns)
{
    if (bytes == 0)
        return;
    const int dir = decompress ? 1 : 0;
    const int c = speed_class(bytes, ns);
    relaxed_add(&m->bytes[dir][c], bytes);
    relaxed_add(&m->ns[dir][c], ns);
    relaxed_add(&m->calls[dir], 1);
}

uint64_t zip_codec_meter_faults_before(const zip_codec_meter_t *m, int decompress, uint64_t bytes)
{
    const int dir = decompress ? 1 : 0;
    if (m == nullptr || !faults_checked.load(std::memory_order_relaxed) ||
        (bytes < ZIP_CODEC_METER_CHECKED_FROM &&
         relaxed_load(&m->calls[dir]) >= ZIP_CODEC_METER_CHECKED_CALLS))
        return ZIP_CODEC_METER_UNCHECKED;
    return minor_faults();
}

bool zip_codec_meter_time_unfaulted(zip_codec_meter_t *m, int decompress, uint64_t bytes,
                                    uint64_t ns, uint64_t before)
{
    if (before != ZIP_CODEC_METER_UNCHECKED && minor_faults() != before)
        return false;
    zip_codec_meter_time(m, decompress, bytes, ns);
    return true;
}

void zip_codec_meter_check_faults(bool on)
{
    faults_checked.store(on, std::memory_order_relaxed);
}

void zip_codec_meter_mine(const zip_codec_meter_t *m, double mine[2])
{
    mine[0] = median_seconds_per_byte(m, 0);
    mine[1] = median_seconds_per_byte(m, 1);
}

bool zip_codec_meter_agreed(zip_codec_meter_t *m, const double all[2], zip_algo_agreed_t *speeds)
{
    double *speed[2] = {&speeds->compress_Bps, &speeds->decompress_Bps};
    bool changed = false;
    for (int i = 0; i < 2; ++i) {
        if (all[i] > 0.0 && *speed[i] != 1.0 / all[i]) {
            *speed[i] = 1.0 / all[i];
            changed = true;
        }
    }
    if (all[1] > 0.0 && !speeds->decompress_seen) {
        speeds->decompress_seen = 1;
        changed = true;
    }
    // Racing adds from another thread may be halved or not: the meter is an estimate.
    for (int dir = 0; dir < 2; ++dir) {
        for (int c = 0; c < ZIP_CODEC_METER_CLASSES; ++c) {
            halve(&m->bytes[dir][c]);
            halve(&m->ns[dir][c]);
        }
        halve(&m->calls[dir]);
    }
    return changed;
}

bool zip_codec_meter_agree_at(uint64_t n, uint64_t period)
{
    if (period == 0 || n == 0)
        return false;
    if (n >= period)
        return n % period == 0;
    // 4, 16, 64, ...: a power of two with an even exponent of at least 2.
    return (n & (n - 1)) == 0 && (__builtin_ctzll(n) % 2) == 0 && n >= 4;
}

bool zip_codec_meter_probe_at(uint64_t k)
{
    return k != 0 && (k & (k - 1)) == 0;
}

int zip_codec_meter_probe(zip_codec_meter_t *m, const zip_codec_ops_t *codec, int elem_type,
                          const void *sample, size_t sample_bytes, size_t call_bytes)
{
    const size_t elem = zip_elem_size(zip_elem_type_t(elem_type));
    const size_t n = std::min(sample_bytes, zipcoll::kSampleBytes) / elem * elem;
    if (n == 0)
        return 0;
    const size_t cap = zip_compress_bound(n);
    auto frame = zipcoll::raw_buffer(cap);
    auto back = zipcoll::raw_buffer(n);
    if (!frame || !back)
        return int(ZIP_E_NOMEM);
    // Written once before the timed calls, whose first writes would otherwise fault them in and
    // so go uncounted (zip_codec_meter_time_unfaulted): a sample whose buffers came fresh from
    // the heap on every call left the meter blind (2026-12-07: a communicator's bcasts never
    // learnt their codec speed once an unrelated allocation had moved the heap's top).
    std::memset(frame.get(), 0, cap);
    std::memset(back.get(), 0, n);
    // Each round stands for half the call: the meter's bytes are those of the calls it judges.
    const double scale = double(std::max(call_bytes / 2, n)) / double(n);
    const uint64_t stands_for = uint64_t(double(n) * scale);
    const auto count = [&](int dir, uint64_t ns, uint64_t faults) {
        zip_codec_meter_time_unfaulted(m, dir, stands_for, uint64_t(double(ns) * scale), faults);
    };
    // Twice: a sample during which the rank lost its core is then outvoted sooner (the meter
    // speaks only after ZIP_CODEC_METER_MIN_CALLS calls).
    int rc = 0;
    for (int round = 0; round < 2 && rc == 0; ++round) {
        size_t frame_len = 0, raw_len = 0;
        uint64_t faults = zip_codec_meter_faults_before(m, 0, stands_for);
        uint64_t t0 = zipcoll::steady_ns();
        rc = codec->compress(codec->ctx, elem_type, sample, n, frame.get(), cap, &frame_len);
        if (rc != 0)
            break;
        count(0, zipcoll::steady_ns() - t0, faults);
        faults = zip_codec_meter_faults_before(m, 1, stands_for);
        t0 = zipcoll::steady_ns();
        rc = codec->decompress(codec->ctx, frame.get(), frame_len, back.get(), n, &raw_len);
        if (rc == 0)
            count(1, zipcoll::steady_ns() - t0, faults);
    }
    return rc;
}

} // extern "C"
