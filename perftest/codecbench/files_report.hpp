// codecbench --files output: per application its message sizes and operations, and per element
// type and codec the totals (ratio = raw bytes / compressed bytes over the messages; GB/s = raw
// bytes / the summed median time of each message), against Blosc shuffle+lz4 in the same run.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "files_bench.hpp"

namespace codecbench
{

// Codecs in `failed` failed a round trip somewhere: their figures are left out.
void print_files_report(FILE *out, const FilesRun &run, const std::vector<std::string> &codecs,
                        const std::vector<std::string> &failed);

// One row per message and codec: app,rank,call,op,elem,bytes,peer,tag,codec,compressed_bytes,
// ratio,compress_GBps,decompress_GBps. False if the file cannot be written.
bool write_files_csv(const std::string &path, const FilesRun &run,
                     const std::vector<std::string> &codecs,
                     const std::vector<std::string> &failed);

} // namespace codecbench
