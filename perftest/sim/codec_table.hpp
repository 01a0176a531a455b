// What a codec does to a data set, from perftest/codecbench's CSV (--csv): ratio and
// single-core compress/decompress speed at each measured message size, and memcpy's speed on
// the same data as the reference for copies.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace simscale
{

struct CodecPoint {
    double ratio = 1.0;        // raw / frame
    double compress_Bps = 0;   // raw bytes per second into the compressor
    double decompress_Bps = 0; // raw bytes per second out of the decompressor
};

class CodecTable
{
  public:
    // Reads codecbench's CSV; false with a message in *error on a bad file.
    bool load(const std::string &path, std::string *error);

    // The data set named exactly, or else the shortest whose name has the words of `name` as
    // prefixes of its words, in order: zipbench's "gauss", "gauss-sorted" and "heat" are
    // codecbench's "gauss-1024", "gauss-1024-sorted" and "heat3d". Empty if none.
    std::string resolve_dataset(const std::string &name) const;
    bool has(const std::string &codec, const std::string &dataset) const;
    std::vector<std::string> datasets(const std::string &codec) const;

    // The codec on `bytes` of the data set: interpolated between the measured sizes on a log
    // scale (the speed of a 48 KiB segment lies between the 4 KiB and 64 KiB rows), clamped at
    // the smallest and largest.
    CodecPoint at(const std::string &codec, const std::string &dataset, double bytes) const;

  private:
    // codec -> dataset -> size -> point
    std::map<std::string, std::map<std::string, std::map<double, CodecPoint>>> rows_;
};

} // namespace simscale
