#include "measure.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>

#include "verify.hpp"

namespace codecbench
{
namespace
{

double now_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Runs `call` (one compression or decompression, returns false on failure) in timed samples and
// returns the median throughput in GB/s of raw data, or a negative value if a call failed.
// Each sample repeats the call often enough to last min_time / repeats, so that short calls are
// not drowned in clock resolution; the median discards the samples an interruption spoiled.
template <class Call> double median_gbps(Call call, size_t raw_bytes, const Timing &t)
{
    for (int i = 0; i < t.warmup; ++i)
        if (!call())
            return -1;
    double t0 = now_seconds();
    if (!call())
        return -1;
    double single = std::max(now_seconds() - t0, 1e-9);
    double per_sample = t.min_time / t.repeats;
    long iterations = std::max(1L, static_cast<long>(std::ceil(per_sample / single)));

    std::vector<double> gbps;
    for (int s = 0; s < t.repeats; ++s) {
        double elapsed = 0;
        if (t.gap_us > 0) {
            // Busy, as a rank polling MPI or computing between messages: helper threads that
            // spin only briefly (the codec's workers) are asleep when the call comes.
            for (long i = 0; i < iterations; ++i) {
                const double until = now_seconds() + 1e-6 * t.gap_us;
                while (now_seconds() < until) {
                }
                const double start = now_seconds();
                if (!call())
                    return -1;
                elapsed += now_seconds() - start;
            }
        } else {
            const double start = now_seconds();
            for (long i = 0; i < iterations; ++i)
                if (!call())
                    return -1;
            elapsed = now_seconds() - start;
        }
        elapsed = std::max(elapsed, 1e-9);
        gbps.push_back(static_cast<double>(raw_bytes) * static_cast<double>(iterations) / elapsed /
                       1e9);
    }
    return median(gbps);
}

Verdict verify(BenchCodec &codec, const void *data, size_t raw_bytes, const Buffers &b,
               size_t decoded_len)
{
    return codec.lossy() ? verify_lossy(codec.name(), static_cast<const double *>(data),
                                        b.decoded.data(), decoded_len, raw_bytes)
                         : verify_lossless(data, b.decoded.data(), decoded_len, raw_bytes);
}

} // namespace

PointResult measure_point(BenchCodec &codec, const void *data, size_t raw_bytes,
                          const Element &elem, const Timing &timing, Buffers &b)
{
    PointResult r;
    if (codec.lossy() && elem.zip_type != ZIP_TYPE_F64) {
        r.error = "lossy codecs are checked on doubles only";
        return r;
    }
    b.frame.resize(std::max(b.frame.size(), codec.bound(raw_bytes)));
    b.decoded.resize(std::max(b.decoded.size(), raw_bytes));
    size_t frame_len = 0, decoded_len = 0;
    std::string error;

    auto compress = [&] {
        return codec.compress(data, raw_bytes, elem, b.frame.data(), b.frame.size(), &frame_len,
                              &error);
    };
    auto decompress = [&] {
        return codec.decompress(b.frame.data(), frame_len, b.decoded.data(), b.decoded.size(),
                                &decoded_len, &error);
    };

    // Round trip before timing: a codec that fails is not timed at all.
    if (!compress() || !decompress()) {
        r.error = error;
        return r;
    }
    Verdict v = verify(codec, data, raw_bytes, b, decoded_len);
    if (!v.ok) {
        r.error = v.error;
        return r;
    }

    r.compress_gbps = median_gbps(compress, raw_bytes, timing);
    if (r.compress_gbps < 0) {
        r.error = error;
        return r;
    }
    // The frame of the last timed call (a warm context) is the one decoded and checked below.
    r.compressed_bytes = frame_len;
    // Clear the output so that the final check sees what the timed calls wrote, not the warm-up's.
    std::fill(b.decoded.begin(), b.decoded.end(), 0);
    r.decompress_gbps = median_gbps(decompress, raw_bytes, timing);
    if (r.decompress_gbps < 0) {
        r.error = error;
        return r;
    }
    v = verify(codec, data, raw_bytes, b, decoded_len);
    if (!v.ok) {
        r.error = "after the timed runs: " + v.error;
        return r;
    }
    r.max_rel_error = v.max_rel_error;
    r.ratio = static_cast<double>(raw_bytes) / static_cast<double>(frame_len);
    r.ok = true;
    return r;
}

} // namespace codecbench
