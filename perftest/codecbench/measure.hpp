// Timing of one codec on one message: warm-up, round-trip verification, then the median of
// repeated timed samples for each direction.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_codecs.hpp"

namespace codecbench
{

struct Timing {
    double min_time = 0.05; // seconds of timed work per direction, split over the samples
    int repeats = 7;        // samples; the median is reported
    int warmup = 2;         // untimed calls per direction before timing
    double gap_us = 0;      // > 0: each call timed on its own after a busy pause this long
};

struct PointResult {
    bool ok = false;
    std::string error; // why not ok: no figure may be reported then
    size_t compressed_bytes = 0;
    double ratio = 0;         // raw bytes / compressed bytes
    double compress_gbps = 0; // raw bytes per second / 1e9, median of the samples
    double decompress_gbps = 0;
    double max_rel_error = 0; // lossy codecs only
};

// Scratch buffers reused across points so that the timed loops never allocate.
struct Buffers {
    std::vector<unsigned char> frame, decoded;
};

// `data` holds raw_bytes of elements of `elem` (lossy codecs: doubles only).
PointResult measure_point(BenchCodec &codec, const void *data, size_t raw_bytes,
                          const Element &elem, const Timing &timing, Buffers &buffers);

} // namespace codecbench
