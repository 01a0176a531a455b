// codecbench's output: the table on stdout and the optional CSV file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "measure.hpp"

namespace codecbench
{

struct Row {
    std::string codec, dataset;
    size_t size_bytes = 0;
    bool lossy = false;
    PointResult result;
};

// Prints the rows of codecs that passed every check; `failed` codecs are left out entirely.
void print_table(FILE *out, const std::vector<Row> &rows, const std::vector<std::string> &failed);

// Writes codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps (same rows as the table).
// Returns false if the file cannot be written.
bool write_csv(const std::string &path, const std::vector<Row> &rows,
               const std::vector<std::string> &failed);

} // namespace codecbench
