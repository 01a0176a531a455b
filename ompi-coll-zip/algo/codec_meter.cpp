// The codec meter (codec_meter.h): what a communicator's data cost this rank's codec.
#include "codec_meter.h"

#include <algorithm>

#include "block_codec.hpp"
#include "raw_buffer.hpp"

namespace
{

void add(uint64_t *to, uint64_t v)
{
    if (v != 0)
        __atomic_fetch_add(to, v, __ATOMIC_RELAXED);
}

uint64_t load(const uint64_t *from)
{
    return __atomic_load_n(from, __ATOMIC_RELAXED);
}

double seconds_per_byte(const uint64_t *bytes, const uint64_t *ns)
{
    const uint64_t b = load(bytes), t = load(ns);
    return b >= ZIP_CODEC_METER_MIN_BYTES && t > 0 ? double(t) * 1e-9 / double(b) : 0.0;
}

void halve(uint64_t *v)
{
    __atomic_store_n(v, load(v) / 2, __ATOMIC_RELAXED);
}

} // namespace

extern "C" {

void zip_codec_meter_add(zip_codec_meter_t *m, const zip_algo_codec_binding_t *b)
{
    add(&m->compress_bytes, b->compress_bytes);
    add(&m->compress_ns, b->compress_ns);
    add(&m->decompress_bytes, b->decompress_bytes);
    add(&m->decompress_ns, b->decompress_ns);
}

void zip_codec_meter_mine(const zip_codec_meter_t *m, double mine[2])
{
    mine[0] = seconds_per_byte(&m->compress_bytes, &m->compress_ns);
    mine[1] = seconds_per_byte(&m->decompress_bytes, &m->decompress_ns);
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
    // Racing adds from another thread's progress may be halved or not: the meter is an
    // estimate, and a call's bytes and time land together within one add each.
    halve(&m->compress_bytes);
    halve(&m->compress_ns);
    halve(&m->decompress_bytes);
    halve(&m->decompress_ns);
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

int zip_codec_meter_probe(const zip_codec_ops_t *codec, int elem_type, const void *sample,
                          size_t sample_bytes)
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
    size_t frame_len = 0, raw_len = 0;
    int rc = codec->compress(codec->ctx, elem_type, sample, n, frame.get(), cap, &frame_len);
    if (rc == 0)
        rc = codec->decompress(codec->ctx, frame.get(), frame_len, back.get(), n, &raw_len);
    return rc;
}

} // extern "C"
