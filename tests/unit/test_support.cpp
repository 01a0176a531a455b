#include "test_support.hpp"

#include <memory>
#include <stdexcept>

#include "zipdata.h"

namespace ziptest
{

namespace
{

struct CtxDeleter {
    void operator()(zip_ctx_t *c) const { zip_ctx_destroy(c); }
};
using Ctx = std::unique_ptr<zip_ctx_t, CtxDeleter>;

Ctx make_ctx(const std::string &spec)
{
    zip_status_t err;
    Ctx ctx(zip_ctx_create(spec.c_str(), &err));
    if (!ctx)
        throw std::runtime_error("zip_ctx_create(" + spec + "): " + zip_spec_error());
    return ctx;
}

} // namespace

std::vector<uint8_t> dataset_bytes(const std::string &name, zip_elem_type_t type, size_t n,
                                   uint64_t seed)
{
    size_t doubles = type == ZIP_TYPE_BYTES ? (n + 7) / 8 : n;
    std::vector<double> d(doubles);
    if (zipdata_fill(name.c_str(), d.data(), doubles, seed) != ZIPDATA_OK)
        throw std::runtime_error("unknown data set " + name);
    std::vector<uint8_t> out(n * zip_elem_size(type));
    if (type == ZIP_TYPE_F32) {
        for (size_t i = 0; i < n; ++i) {
            float f = float(d[i]);
            std::memcpy(out.data() + 4 * i, &f, 4);
        }
    } else if (!out.empty()) {
        std::memcpy(out.data(), d.data(), out.size());
    }
    return out;
}

RoundTrip round_trip(const std::string &spec, zip_elem_type_t type, const std::vector<uint8_t> &src,
                     size_t src_offset, size_t dst_offset)
{
    Ctx enc = make_ctx(spec), dec = make_ctx(spec);
    size_t esize = zip_elem_size(type);
    size_t count = src.size() / esize;
    Misaligned in(src.size(), src_offset);
    if (!src.empty())
        std::memcpy(in.data(), src.data(), src.size());
    size_t cap = zip_compress_bound(src.size());
    Misaligned frame(cap, dst_offset);
    RoundTrip r{};
    r.compress_status =
        zip_compress(enc.get(), 7, type, in.data(), count, frame.data(), cap, &r.frame_bytes);
    if (r.compress_status != ZIP_OK)
        return r;
    Misaligned out(src.size(), (src_offset + 3) % 8);
    size_t raw_len = 0;
    r.decompress_status =
        zip_decompress(dec.get(), 7, frame.data(), r.frame_bytes, out.data(), src.size(), &raw_len);
    if (r.decompress_status == ZIP_OK)
        r.output.assign(out.data(), out.data() + raw_len);
    return r;
}

std::vector<uint8_t> make_frame(const std::string &spec, zip_elem_type_t type,
                                const std::vector<uint8_t> &src)
{
    Ctx enc = make_ctx(spec);
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t len = 0;
    if (zip_compress(enc.get(), 7, type, src.data(), src.size() / zip_elem_size(type), frame.data(),
                     frame.size(), &len) != ZIP_OK)
        throw std::runtime_error("compress failed: " + std::string(zip_ctx_last_error(enc.get())));
    frame.resize(len);
    return frame;
}

} // namespace ziptest
