// The things codecbench measures behind one interface: an ompi-zip codec (through the C API of
// zip.h) or a reference (memcpy, Blosc shuffle+lz4 or bitshuffle+lz4) that puts the figures in
// perspective.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "zip/zip.h"

namespace codecbench
{

// How a payload's elements are handed to a codec: zip's element type (integers are
// ZIP_TYPE_BYTES, as coll/zip and pml/zip see them) and the element size (Blosc's typesize).
struct Element {
    zip_elem_type_t zip_type = ZIP_TYPE_F64;
    size_t width = sizeof(double);
};
inline constexpr Element kF64{ZIP_TYPE_F64, sizeof(double)};

class BenchCodec
{
  public:
    virtual ~BenchCodec() = default;

    const std::string &name() const { return name_; }

    // Lossy codecs are checked against their error bound instead of bit for bit.
    virtual bool lossy() const { return false; }

    // Largest compressed size for `raw_bytes` of input.
    virtual size_t bound(size_t raw_bytes) const = 0;

    // Both return false and set *error on failure. `src` holds raw_bytes / elem.width elements.
    virtual bool compress(const void *src, size_t raw_bytes, const Element &elem, void *dst,
                          size_t cap, size_t *out_len, std::string *error) = 0;
    virtual bool decompress(const void *src, size_t len, void *dst, size_t cap, size_t *out_len,
                            std::string *error) = 0;

  protected:
    explicit BenchCodec(std::string name) : name_(std::move(name)) {}

  private:
    std::string name_;
    Element element_;
};

// Creates the codec for `spec` ("memcpy", "blosc-shuffle-lz4", "blosc-bitshuffle-lz4" or a zip
// spec). Returns nullptr
// and says why in *why_not when it is not available in this build (the bench skips it).
std::unique_ptr<BenchCodec> make_bench_codec(const std::string &spec, size_t block_size,
                                             std::string *why_not);

// One line naming what the figures were measured with (library versions), for the report header.
std::string describe_libraries();

} // namespace codecbench
