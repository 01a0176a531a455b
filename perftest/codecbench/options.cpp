#include "options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "zip/zip.h"
#include "zipdata.h"

namespace codecbench
{

const char *const kDefaultCodecs =
    "memcpy,blosc-shuffle-lz4,blosc-bitshuffle-lz4,raw,lz4,zstd,fast,fpc,dfcm,xorlz,trunc:20+fast,"
    "f32+fast";
const char *const kDefaultSizes = "4K,64K,1M,16M";
const char *const kQuickSizes = "64K,1M";
const char *const kFilesCodecs =
    "fast,dfcm,fpc,lz4,zstd:level=1,blosc-shuffle-lz4,blosc-bitshuffle-lz4";

namespace
{

std::vector<std::string> split_commas(const std::string &s)
{
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            parts.push_back(item);
    return parts;
}

void usage(FILE *to)
{
    std::fprintf(
        to,
        "usage: codecbench [options]\n"
        "Single-core compress/decompress speed (GB/s of raw data, median of repeats) and ratio of\n"
        "every codec on every zipdata data set, with memcpy and Blosc (shuffle+lz4,\n"
        "bitshuffle+lz4) as references.\n"
        "  --codecs a,b      codec specs (default %s);\n"
        "                    spec@unchecked: no block checks, spec@tN: N codec threads\n"
        "  --datasets x,y    zipdata data sets (default: all; see --list)\n"
        "  --sizes 4K,1M     message sizes (default %s; a size below a data set's size takes its\n"
        "                    first bytes)\n"
        "  --tile            also measure sizes beyond a data set's natural size (the data "
        "repeat)\n"
        "  --min-time S      seconds of timed work per point and direction (default 0.05)\n"
        "  --repeats N       timed samples per point, median reported (default 7)\n"
        "  --gap-us N        pause N us (busy, untimed) before every timed call, as between an\n"
        "                    application's messages: codec threads (@tN) have gone to sleep\n"
        "  --quick           sizes %s, 3 repeats, --min-time 0.01: about a minute\n"
        "  --seed N          seed of random/special, time step of heat3d* (default 20)\n"
        "  --block-size B    zip block size (default: the library's)\n"
        "  --pin CPU         pin the benchmark to one CPU\n"
        "  --csv FILE        also write "
        "codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps\n"
        "  --list            list codecs and data sets\n"
        "Recorded application messages (perftest/msgrec) instead of the data sets:\n"
        "  --files DIR       each message compressed on its own, element type from the index;\n"
        "                    totals per application and element type (DIR: one application's\n"
        "                    rank*.idx/.dat, or one subdirectory per application; repeatable).\n"
        "                    Default codecs %s,\n"
        "                    --min-time 0.0005 per message, 5 repeats; --csv: one row per\n"
        "                    message and codec\n"
        "  --sample N        at most N messages per application, evenly spread\n"
        "  --streams SPEC    instead: replay the messages per (rank, op, peer, tag) in call\n"
        "                    order, each coded on its own or against the previous one of its\n"
        "                    stream as coll_zip_alltoallv_temporal would (lossless SPEC, e.g. "
        "fast)\n",
        kDefaultCodecs, kDefaultSizes, kQuickSizes, kFilesCodecs);
}

void list_all()
{
    std::printf("codecs (zip specs, see zip.h; lossy stages as \"stage+codec\"): %s\n",
                zip_codec_list());
    std::printf("references: memcpy, blosc-shuffle-lz4, blosc-bitshuffle-lz4\n\ndata sets:\n");
    for (size_t i = 0; i < zipdata_count(); ++i)
        std::printf("  %-20s %s\n", zipdata_name(i), zipdata_description(zipdata_name(i)));
}

bool parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = std::strtod(s, &end);
    return !errno && end != s && !*end && *v > 0;
}

bool parse_long(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    *v = std::strtol(s, &end, 10);
    return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

} // namespace

bool parse_size(const std::string &text, size_t *bytes)
{
    if (text.empty())
        return false;
    size_t mult = 1;
    std::string digits = text;
    switch (text.back()) {
    case 'K':
    case 'k':
        mult = size_t{1} << 10;
        break;
    case 'M':
    case 'm':
        mult = size_t{1} << 20;
        break;
    case 'G':
    case 'g':
        mult = size_t{1} << 30;
        break;
    default:
        break;
    }
    if (mult != 1)
        digits.pop_back();
    long v;
    if (!parse_long(digits.c_str(), 1, 1L << 40, &v))
        return false;
    *bytes = static_cast<size_t>(v) * mult;
    return true;
}

std::string format_size(size_t bytes)
{
    char buf[32];
    if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0)
        std::snprintf(buf, sizeof buf, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        std::snprintf(buf, sizeof buf, "%zu KiB", bytes >> 10);
    else
        std::snprintf(buf, sizeof buf, "%zu B", bytes);
    return buf;
}

int parse_options(int argc, char **argv, Options *o)
{
    std::string codecs, sizes, datasets;
    bool min_time_given = false, repeats_given = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
        bool ok = true;
        long l;
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return 1;
        } else if (a == "--list") {
            list_all();
            return 1;
        } else if (a == "--quick") {
            o->quick = true;
            continue;
        } else if (a == "--tile") {
            o->tile = true;
            continue;
        } else if (!value) {
            ok = false;
        } else if (a == "--codecs") {
            codecs = value;
        } else if (a == "--datasets") {
            datasets = value;
        } else if (a == "--sizes") {
            sizes = value;
        } else if (a == "--csv") {
            o->csv_path = value;
        } else if (a == "--files") {
            o->files.emplace_back(value);
        } else if (a == "--streams") {
            o->streams = value;
        } else if (a == "--sample") {
            ok = parse_long(value, 1, 1L << 40, &l);
            o->sample = static_cast<size_t>(l);
        } else if (a == "--min-time") {
            ok = parse_double(value, &o->min_time);
            min_time_given = true;
        } else if (a == "--gap-us") {
            ok = parse_long(value, 0, 1000000, &l);
            o->gap_us = static_cast<double>(l);
        } else if (a == "--repeats") {
            ok = parse_long(value, 1, 1000, &l);
            o->repeats = static_cast<int>(l);
            repeats_given = true;
        } else if (a == "--seed") {
            ok = parse_long(value, 0, ZIPDATA_MAX_STEP, &l);
            o->seed = static_cast<uint64_t>(l);
        } else if (a == "--block-size") {
            ok = parse_size(value, &o->block_size);
        } else if (a == "--pin") {
            ok = parse_long(value, 0, 4095, &l);
            o->pin_cpu = static_cast<int>(l);
        } else {
            ok = false;
        }
        if (!ok) {
            std::fprintf(stderr, "codecbench: bad option or value: %s %s\n", a.c_str(),
                         value ? value : "");
            usage(stderr);
            return 2;
        }
        ++i; // consumed the value
    }
    if (o->quick) {
        if (!min_time_given)
            o->min_time = 0.01;
        if (!repeats_given)
            o->repeats = 3;
    }
    if (!o->files.empty()) {
        // Thousands of messages, each timed on its own: shorter samples per message.
        if (!min_time_given)
            o->min_time = 0.0005;
        if (!repeats_given)
            o->repeats = 5;
    }
    if (codecs.empty())
        codecs = o->files.empty() ? kDefaultCodecs : kFilesCodecs;
    if (sizes.empty())
        sizes = o->quick ? kQuickSizes : kDefaultSizes;

    o->codecs = split_commas(codecs);
    for (const std::string &s : split_commas(sizes)) {
        size_t bytes;
        if (!parse_size(s, &bytes) || bytes % sizeof(double)) {
            std::fprintf(stderr, "codecbench: bad size '%s' (a multiple of 8 bytes, e.g. 4K, 1M)\n",
                         s.c_str());
            return 2;
        }
        o->sizes.push_back(bytes);
    }
    if (datasets.empty()) {
        for (size_t i = 0; i < zipdata_count(); ++i)
            o->datasets.emplace_back(zipdata_name(i));
    } else {
        o->datasets = split_commas(datasets);
    }
    for (const std::string &d : o->datasets)
        if (!zipdata_description(d.c_str())) {
            std::fprintf(stderr, "codecbench: unknown data set '%s' (see --list)\n", d.c_str());
            return 2;
        }
    if (o->codecs.empty() || o->sizes.empty() || o->datasets.empty()) {
        std::fprintf(stderr, "codecbench: nothing to measure\n");
        return 2;
    }
    return 0;
}

} // namespace codecbench
