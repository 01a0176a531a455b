// Command line of codecbench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace codecbench
{

struct Options {
    std::vector<std::string> codecs; // zip specs, plus the references "memcpy", "blosc-shuffle-lz4"
    std::vector<std::string> datasets; // zipdata names
    std::vector<size_t> sizes;         // message sizes in bytes (multiples of 8)
    double min_time = 0.05;            // seconds of timed work per point and direction
    double gap_us = 0;                 // --gap-us: an untimed busy pause before every timed call
    int repeats = 7;                   // samples per point; the median is reported
    uint64_t seed = 20;                // zipdata seed_or_step (the time step of heat3d*)
    size_t block_size = 0;             // zip_ctx_set_block_size; 0 keeps the library default
    bool tile = false;                 // allow sizes beyond a data set's natural size
    bool quick = false;
    int pin_cpu = -1; // pin the process to this CPU (-1: leave it to the OS)
    std::string csv_path;
    // --files: recorded application messages (perftest/msgrec) instead of the data sets; each
    // directory is one application or a corpus of them (one subdirectory each).
    std::vector<std::string> files;
    size_t sample = 0; // --sample N: at most N messages per application, evenly spread (0: all)
    // --streams SPEC: replay the --files messages as streams with that codec
    // (streams_bench.hpp) instead of measuring each message with every codec.
    std::string streams;
};

// The defaults the issue asks for: every codec and data set, 4 KiB .. 16 MiB.
extern const char *const kDefaultCodecs;
extern const char *const kDefaultSizes;
extern const char *const kQuickSizes;
// The defaults of --files: the candidates and the references of issue 11's goal.
extern const char *const kFilesCodecs;

// Parses argv into *out. Returns 0 to run, 1 when --help/--list was handled, 2 on a usage error
// (message already printed).
int parse_options(int argc, char **argv, Options *out);

// "4K" -> 4096, "1M" -> 1048576; false when malformed.
bool parse_size(const std::string &text, size_t *bytes);

// 4096 -> "4 KiB", 1048576 -> "1 MiB", 1000 -> "1000 B".
std::string format_size(size_t bytes);

} // namespace codecbench
