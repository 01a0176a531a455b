// The interface every lossless block codec implements, and the registry that finds codecs by
// name (from a spec string) or by id (from a frame header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "zip/zip.h"

namespace zip
{

// Stable ids: they are written into frames (docs/format.md). Never renumber, never reuse.
// 7 is reserved: the first draft listed "temporal" here, but temporal is not a block codec (its
// frames carry the inner codec's id and the kFlagTemporal* flags), and no frame ever carried 7.
// A frame naming 7, or any id without a codec, is ZIP_E_UNSUPPORTED once a block needs the codec.
enum class CodecId : uint8_t {
    Raw = 0,
    Lz4 = 1,
    Zstd = 2,
    Fpc = 3,
    Dfcm = 4,
    XorLz = 5,
    Fast = 6,
    // 7: reserved (see above)
};

// Floating-point element types: the only ones lossy stages change.
inline bool is_float(zip_elem_type_t t)
{
    return t == ZIP_TYPE_F32 || t == ZIP_TYPE_F64;
}

// Options of a lossless codec, parsed from "name:key=value,key=value" and stored in the frame's
// 32-bit codec parameter so that the decoder can rebuild the same codec.
struct CodecParams {
    uint32_t value = 0; // codec-specific packing; 0 means "the codec's default"
};

class BlockCodec
{
  public:
    virtual ~BlockCodec() = default;

    virtual CodecId id() const = 0;
    virtual uint32_t param() const { return 0; }

    // Compresses one block of `n` raw bytes (a whole number of elements of `type`, any alignment)
    // into dst. Returns the number of bytes written, or 0 when the result would not fit in `cap`
    // (the frame layer then stores the block raw). `cap` is always < n.
    virtual size_t compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                            size_t cap) = 0;

    // Decodes exactly `raw_n` bytes from a block of `len` bytes. Must validate the input and
    // never read or write outside [src, src+len) and [dst, dst+raw_n).
    // Returns ZIP_OK, or ZIP_E_CORRUPT when the block is malformed.
    virtual zip_status_t decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                    uint8_t *dst, size_t raw_n) = 0;

    // Bytes of memory the codec holds (tables, scratch), for the context's memory cap.
    virtual size_t memory_bytes() const { return 0; }
};

// Creates a codec from its spec name and options ("fpc", "bits=12"); throws SpecError on bad
// input. Used by zip_ctx_create.
struct SpecError {
    std::string message;
};
std::unique_ptr<BlockCodec> make_codec(std::string_view name, std::string_view options);

// Creates a codec from a frame header (id, 32-bit param); nullptr if the id/param is unknown.
std::unique_ptr<BlockCodec> make_codec(CodecId id, uint32_t param);

// Parses "key=value" pairs separated by ','; calls f(key, value) for each. Throws SpecError.
template <class F> void for_each_option(std::string_view options, F &&f)
{
    while (!options.empty()) {
        size_t comma = options.find(',');
        std::string_view kv = options.substr(0, comma);
        options = comma == std::string_view::npos ? std::string_view{} : options.substr(comma + 1);
        size_t eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw SpecError{"option '" + std::string(kv) + "' is not key=value"};
        f(kv.substr(0, eq), kv.substr(eq + 1));
    }
}

// Parses an unsigned integer option in [lo, hi]; throws SpecError naming the key.
unsigned parse_uint_option(std::string_view key, std::string_view value, unsigned lo, unsigned hi);

} // namespace zip
