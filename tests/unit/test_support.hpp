// Shared helpers for the codec tests: data sets as typed byte buffers, misaligned copies, and
// a frame round trip through the public C API.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "zip/zip.h"

namespace ziptest
{

// Bytes of `n` elements of `type` from data set `name` (doubles narrowed to float for F32; the
// raw bytes of the set's buffer for BYTES and the integer types, so an integer set gives its
// integers). Never constant: the sets come from perftest/data.
std::vector<uint8_t> dataset_bytes(const std::string &name, zip_elem_type_t type, size_t n,
                                   uint64_t seed = 1);

// A buffer whose data() is `offset` bytes past a 64-byte boundary, to test unaligned access.
class Misaligned
{
  public:
    Misaligned(size_t n, size_t offset) : storage_(n + offset + 64), offset_(offset) {}
    uint8_t *data()
    {
        auto base = reinterpret_cast<uintptr_t>(storage_.data());
        return storage_.data() + ((64 - base % 64) % 64) + offset_;
    }

  private:
    std::vector<uint8_t> storage_;
    size_t offset_;
};

struct RoundTrip {
    zip_status_t compress_status;
    zip_status_t decompress_status;
    size_t frame_bytes;
    std::vector<uint8_t> output;
};

// Compresses src with a fresh context for `spec`, decompresses with another fresh context
// (as a receiving rank would), at the given buffer misalignments.
RoundTrip round_trip(const std::string &spec, zip_elem_type_t type, const std::vector<uint8_t> &src,
                     size_t src_offset = 0, size_t dst_offset = 0);

// Compresses and returns the frame (asserting success is the caller's job).
std::vector<uint8_t> make_frame(const std::string &spec, zip_elem_type_t type,
                                const std::vector<uint8_t> &src);

} // namespace ziptest
