#include "bench_codecs.hpp"

#include <cstring>
#include <string_view>

#include "zip/zip.h"
#ifdef CODECBENCH_HAVE_BLOSC
#include <blosc.h>
#endif

namespace codecbench
{
namespace
{

// The floor of any codec's cost: copying the bytes.
class MemcpyCodec final : public BenchCodec
{
  public:
    MemcpyCodec() : BenchCodec("memcpy") {}
    size_t bound(size_t raw_bytes) const override { return raw_bytes; }
    bool compress(const void *src, size_t n, const Element &, void *dst, size_t cap, size_t *out,
                  std::string *err) override
    {
        return copy(src, n, dst, cap, out, err);
    }
    bool decompress(const void *src, size_t n, void *dst, size_t cap, size_t *out,
                    std::string *err) override
    {
        return copy(src, n, dst, cap, out, err);
    }

  private:
    static bool copy(const void *src, size_t n, void *dst, size_t cap, size_t *out,
                     std::string *err)
    {
        if (n > cap) {
            *err = "destination too small";
            return false;
        }
        std::memcpy(dst, src, n);
        *out = n;
        return true;
    }
};

#ifdef CODECBENCH_HAVE_BLOSC
// The established general-purpose alternative: Blosc's byte shuffle (or bit shuffle) + lz4,
// clevel 5, one thread, typesize = the element size.
class BloscCodec final : public BenchCodec
{
  public:
    BloscCodec(const char *name, int shuffle) : BenchCodec(name), shuffle_(shuffle) {}
    size_t bound(size_t raw_bytes) const override { return raw_bytes + BLOSC_MAX_OVERHEAD; }
    bool compress(const void *src, size_t n, const Element &elem, void *dst, size_t cap,
                  size_t *out, std::string *err) override
    {
        int r = blosc_compress_ctx(5, shuffle_, elem.width, n, src, dst, cap, "lz4", 0, 1);
        if (r <= 0) {
            *err = "blosc_compress_ctx returned " + std::to_string(r);
            return false;
        }
        *out = static_cast<size_t>(r);
        return true;
    }
    bool decompress(const void *src, size_t, void *dst, size_t cap, size_t *out,
                    std::string *err) override
    {
        int r = blosc_decompress_ctx(src, dst, cap, 1);
        if (r < 0) {
            *err = "blosc_decompress_ctx returned " + std::to_string(r);
            return false;
        }
        *out = static_cast<size_t>(r);
        return true;
    }

  private:
    int shuffle_;
};
#endif

// An ompi-zip codec. Two warm contexts, created once: the sender's and the receiver's, as in a
// real exchange (a context also carries per-stream state that belongs to one side).
class ZipCodec final : public BenchCodec
{
  public:
    ZipCodec(const std::string &spec, zip_ctx_t *enc, zip_ctx_t *dec)
        : BenchCodec(spec), enc_(enc), dec_(dec), lossy_(spec.find('+') != std::string::npos)
    {
    }
    ~ZipCodec() override
    {
        zip_ctx_destroy(enc_);
        zip_ctx_destroy(dec_);
    }
    bool lossy() const override { return lossy_; }
    size_t bound(size_t raw_bytes) const override { return zip_compress_bound(raw_bytes); }
    bool compress(const void *src, size_t n, const Element &elem, void *dst, size_t cap,
                  size_t *out, std::string *err) override
    {
        zip_status_t st = zip_compress(enc_, 0, elem.zip_type, src,
                                       n / zip_elem_size(elem.zip_type), dst, cap, out);
        return check(st, enc_, "zip_compress", err);
    }
    bool decompress(const void *src, size_t len, void *dst, size_t cap, size_t *out,
                    std::string *err) override
    {
        zip_status_t st = zip_decompress(dec_, 0, src, len, dst, cap, out);
        return check(st, dec_, "zip_decompress", err);
    }

  private:
    static bool check(zip_status_t st, const zip_ctx_t *ctx, const char *what, std::string *err)
    {
        if (st == ZIP_OK)
            return true;
        *err = std::string(what) + ": " + zip_status_str(st) + " (" + zip_ctx_last_error(ctx) + ")";
        return false;
    }
    zip_ctx_t *enc_, *dec_;
    bool lossy_;
};

// "<spec>@unchecked" measures frames without block checks (zip_ctx_set_block_checks);
// "<spec>@tN" codes each frame on N threads (zip_ctx_set_threads); both may be given, in this
// order: "fast@unchecked@t2".
constexpr std::string_view kUncheckedSuffix = "@unchecked";

std::unique_ptr<BenchCodec> make_zip_codec(const std::string &name, size_t block_size,
                                           std::string *why_not)
{
    std::string spec = name;
    unsigned threads = 1;
    if (size_t at = spec.rfind("@t");
        at != std::string::npos && at + 2 < spec.size() &&
        spec.find_first_not_of("0123456789", at + 2) == std::string::npos) {
        threads = unsigned(std::stoul(spec.substr(at + 2)));
        spec.resize(at);
    }
    const bool unchecked =
        spec.size() > kUncheckedSuffix.size() && spec.ends_with(kUncheckedSuffix);
    if (unchecked)
        spec.resize(spec.size() - kUncheckedSuffix.size());
    if (spec.rfind("temporal", 0) == 0 || spec.find("+temporal") != std::string::npos) {
        // Its ratio depends on the message sequence, which a repeat loop over one buffer fakes.
        *why_not = "the temporal codec needs a message sequence; zipbench measures it";
        return nullptr;
    }
    zip_status_t st = ZIP_OK;
    zip_ctx_t *enc = zip_ctx_create(spec.c_str(), &st);
    if (!enc) {
        *why_not =
            std::string("zip_ctx_create failed: ") + zip_status_str(st) + ": " + zip_spec_error();
        return nullptr;
    }
    zip_ctx_t *dec = zip_ctx_create(spec.c_str(), &st);
    if (!dec) {
        *why_not =
            std::string("zip_ctx_create failed: ") + zip_status_str(st) + ": " + zip_spec_error();
        zip_ctx_destroy(enc);
        return nullptr;
    }
    if (block_size && (zip_ctx_set_block_size(enc, block_size) != ZIP_OK ||
                       zip_ctx_set_block_size(dec, block_size) != ZIP_OK)) {
        *why_not = "zip_ctx_set_block_size(" + std::to_string(block_size) + ") failed";
        zip_ctx_destroy(enc);
        zip_ctx_destroy(dec);
        return nullptr;
    }
    if (unchecked) {
        zip_ctx_set_block_checks(enc, 0);
        zip_ctx_set_block_checks(dec, 0);
    }
    if (threads != 1 && (zip_ctx_set_threads(enc, threads) != ZIP_OK ||
                         zip_ctx_set_threads(dec, threads) != ZIP_OK)) {
        *why_not = "zip_ctx_set_threads(" + std::to_string(threads) + ") failed";
        zip_ctx_destroy(enc);
        zip_ctx_destroy(dec);
        return nullptr;
    }
    return std::make_unique<ZipCodec>(name, enc, dec);
}

} // namespace

std::string describe_libraries()
{
    std::string s = std::string("zip codecs: ") + zip_codec_list();
#ifdef CODECBENCH_HAVE_BLOSC
    s += std::string("; blosc ") + BLOSC_VERSION_STRING;
#else
    s += "; no blosc";
#endif
    return s;
}

std::unique_ptr<BenchCodec> make_bench_codec(const std::string &spec, size_t block_size,
                                             std::string *why_not)
{
    if (spec == "memcpy")
        return std::make_unique<MemcpyCodec>();
    if (spec == "blosc-shuffle-lz4" || spec == "blosc-bitshuffle-lz4") {
#ifdef CODECBENCH_HAVE_BLOSC
        return std::make_unique<BloscCodec>(
            spec.c_str(), spec == "blosc-shuffle-lz4" ? BLOSC_SHUFFLE : BLOSC_BITSHUFFLE);
#else
        *why_not = "built without libblosc";
        return nullptr;
#endif
    }
    return make_zip_codec(spec, block_size, why_not);
}

} // namespace codecbench
