// `fast`: lossless block codec for F64/F32 arrays (and plain bytes), built to beat Blosc's
// shuffle+LZ4 on smooth fields in both speed and ratio. Design and measurements:
// docs/fast-codec.md.
//
// Pipeline (F64 / F32, element width w = 8 / 4 bytes, count = n / w elements):
//   1. predict: each element's bit pattern x[i] (as an unsigned integer) becomes the residual
//      zigzag(x[i] - prediction), prediction per the block's predictor (None: 0; Delta1: x[i-1];
//      Delta2: 2 x[i-1] - x[i-2]; x[-1] = x[-2] = 0; arithmetic mod 2^(8w)). zigzag(d) =
//      (d << 1) ^ (d >> (8w-1)) turns small negative differences into small positive numbers,
//      so on smooth data the high bytes of the residuals are zero or nearly so.
//   2. split the residuals into w byte planes (plane k = byte k of every residual).
//   3. code each plane on its own: all-zero planes cost nothing, planes that LZ4 shrinks by at
//      least 1/16 are LZ4 blocks, the rest are copied raw. Planes are tried from the most
//      significant down; after the first plane that does not shrink, the lower (noisier) planes
//      are stored raw without trying (they are mantissa noise), which saves most of LZ4's time.
// BYTES blocks are one plane (w = 1, predictor None): zero, raw or plain LZ4.
//
// Block byte format (all integers little-endian):
//   byte 0        predictor: 0 None, 1 Delta1, 2 Delta2 (bits 2..7 zero). Always 0 for BYTES.
//   modes         ceil(2w / 8) bytes: 2 bits per plane, plane k at bits 2(k%4) of byte k/4;
//                 0 = zero plane, 1 = raw, 2 = LZ4, 3 invalid; unused high bits zero.
//   planes        in order k = w-1 down to 0 (most significant first):
//                   zero: nothing
//                   raw:  count bytes
//                   LZ4:  L (length field of `lenbytes` bytes) then L bytes of one LZ4 block
//                         (LZ4_decompress_safe format) that decodes to exactly count bytes.
//                 lenbytes = bytes needed to write count: 1 (< 2^8), 2 (< 2^16), 3 (< 2^24), 4.
//   The block ends exactly after the last plane; anything else is corrupt.
// The decoder derives w and count from the element type and raw size the frame gives it.
#include "fast.hpp"

#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "codec_registry.hpp"
#include "fast_transpose.hpp"

namespace zip {

struct FastCodec::Lz4State {
    LZ4_stream_t stream;
};

namespace {

using fast_detail::transposer;

constexpr unsigned kMaxAccel = 64;
enum PlaneMode : unsigned { kZero = 0, kRaw = 1, kLz4 = 2 };

size_t element_width(zip_elem_type_t type)
{
    switch (type) {
    case ZIP_TYPE_F64: return 8;
    case ZIP_TYPE_F32: return 4;
    default: return 1;
    }
}

size_t mode_bytes(size_t width) { return (2 * width + 7) / 8; }

size_t length_field_bytes(size_t count)
{
    if (count < (size_t{1} << 8)) return 1;
    if (count < (size_t{1} << 16)) return 2;
    if (count < (size_t{1} << 24)) return 3;
    return 4;
}

void put_le(uint8_t *p, size_t v, size_t bytes)
{
    for (size_t i = 0; i < bytes; ++i)
        p[i] = static_cast<uint8_t>(v >> (8 * i));
}

size_t get_le(const uint8_t *p, size_t bytes)
{
    size_t v = 0;
    for (size_t i = 0; i < bytes; ++i)
        v |= size_t{p[i]} << (8 * i);
    return v;
}

template <class U> inline U load(const uint8_t *p)
{
    U v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class U> inline void store(uint8_t *p, U v) { std::memcpy(p, &v, sizeof v); }

template <class U> inline U zigzag(U d)
{
    using S = std::make_signed_t<U>;
    return static_cast<U>((d << 1) ^ static_cast<U>(static_cast<S>(d) >> (8 * sizeof(U) - 1)));
}
template <class U> inline U unzigzag(U r) { return static_cast<U>((r >> 1) ^ (U{0} - (r & 1))); }

// Residuals of `count` elements at src into out; returns the OR of all residuals, whose zero
// bytes mark the all-zero planes.
template <class U>
U predict(const uint8_t *src, size_t count, FastPredictor pred, U *out)
{
    U any = 0;
    U p1 = 0, p2 = 0;
    switch (pred) {
    case FastPredictor::None:
        for (size_t i = 0; i < count; ++i) {
            U x = load<U>(src + i * sizeof(U));
            out[i] = x;
            any |= x;
        }
        break;
    case FastPredictor::Delta1:
        for (size_t i = 0; i < count; ++i) {
            U x = load<U>(src + i * sizeof(U));
            U r = zigzag<U>(x - p1);
            p1 = x;
            out[i] = r;
            any |= r;
        }
        break;
    case FastPredictor::Delta2:
        for (size_t i = 0; i < count; ++i) {
            U x = load<U>(src + i * sizeof(U));
            U r = zigzag<U>(x - (2 * p1 - p2));
            p2 = p1;
            p1 = x;
            out[i] = r;
            any |= r;
        }
        break;
    }
    return any;
}

// Inverse of predict(), in place on the residuals stored (unaligned) at buf.
template <class U> void unpredict(uint8_t *buf, size_t count, FastPredictor pred)
{
    switch (pred) {
    case FastPredictor::None:
        break;
    case FastPredictor::Delta1: {
        U x = 0;
        for (size_t i = 0; i < count; ++i) {
            x += unzigzag<U>(load<U>(buf + i * sizeof(U)));
            store<U>(buf + i * sizeof(U), x);
        }
        break;
    }
    case FastPredictor::Delta2: {
        // x[i] - x[i-1] = d[i] = d[i-1] + residual: two running sums, one add of latency each.
        U x = 0, d = 0;
        for (size_t i = 0; i < count; ++i) {
            d += unzigzag<U>(load<U>(buf + i * sizeof(U)));
            x += d;
            store<U>(buf + i * sizeof(U), x);
        }
        break;
    }
    }
}

}  // namespace

uint32_t FastOptions::pack() const
{
    uint32_t a = accel == kDefaultAccel ? 0 : accel;
    uint32_t p = predictor == FastPredictor::Delta2 ? 0 : static_cast<uint32_t>(predictor) + 1;
    return a | (p << 8);
}

bool FastOptions::unpack(uint32_t param, FastOptions &out)
{
    uint32_t a = param & 0xff, p = (param >> 8) & 0x3;
    if ((param >> 10) != 0 || a > kMaxAccel)
        return false;
    out.accel = a == 0 ? kDefaultAccel : a;
    out.predictor = p == 0 ? FastPredictor::Delta2 : static_cast<FastPredictor>(p - 1);
    return true;
}

FastCodec::FastCodec(FastOptions options) : options_(options), lz4_(new Lz4State)
{
    LZ4_initStream(&lz4_->stream, sizeof lz4_->stream);
    reserve(65536);  // the frame's default block: no growth on the hot path in the common case
}

FastCodec::~FastCodec() = default;

void FastCodec::reserve(size_t n)
{
    if (planes_.size() < n) {
        residuals_.resize((n + 7) / 8);
        planes_.resize(n);
        zeros_.resize(n / 4);
    }
}

size_t FastCodec::memory_bytes() const
{
    return sizeof(Lz4State) + residuals_.size() * sizeof(uint64_t) + planes_.size() +
           zeros_.size();
}

// Writes the block (header and planes[width-1] .. planes[0]) into dst; 0 if it exceeds cap.
size_t FastCodec::compress_planes(const uint8_t *const *planes, size_t width, size_t count,
                                  uint64_t nonzero_bytes, FastPredictor pred, uint8_t *dst,
                                  size_t cap)
{
    const size_t nmode = mode_bytes(width), lenbytes = length_field_bytes(count);
    size_t pos = 1 + nmode;
    if (pos > cap)
        return 0;
    dst[0] = static_cast<uint8_t>(pred);
    std::memset(dst + 1, 0, nmode);
    // LZ4 must save at least 1/16 of a plane to be worth its decode time; planes that do not
    // reach it are mantissa noise and so are all less significant ones.
    const size_t lz4_limit = count - count / 16;
    const bool lz4_usable = count >= 16 && count <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE);
    bool try_lz4 = lz4_usable;
    for (size_t k = width; k-- > 0;) {
        unsigned mode = kZero;
        if ((nonzero_bytes >> (8 * k)) & 0xff) {
            mode = kRaw;
            if (try_lz4 && cap - pos > lenbytes) {
                size_t room = std::min(cap - pos - lenbytes, lz4_limit);
                int got = LZ4_compress_fast_continue(
                    (LZ4_resetStream_fast(&lz4_->stream), &lz4_->stream),
                    reinterpret_cast<const char *>(planes[k]),
                    reinterpret_cast<char *>(dst + pos + lenbytes), static_cast<int>(count),
                    static_cast<int>(room), static_cast<int>(options_.accel));
                if (got > 0) {
                    put_le(dst + pos, static_cast<size_t>(got), lenbytes);
                    pos += lenbytes + static_cast<size_t>(got);
                    mode = kLz4;
                } else {
                    try_lz4 = false;
                }
            }
            if (mode == kRaw) {
                if (cap - pos < count)
                    return 0;
                std::memcpy(dst + pos, planes[k], count);
                pos += count;
            }
        }
        dst[1 + k / 4] |= static_cast<uint8_t>(mode << (2 * (k % 4)));
    }
    return pos;
}

size_t FastCodec::compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                           size_t cap)
{
    const size_t width = element_width(type);
    if (n % width != 0)  // callers never pass this; the frame would store the block raw
        return 0;
    const size_t count = n / width;
    if (width == 1) {
        uint64_t nonzero = std::any_of(src, src + n, [](uint8_t b) { return b != 0; }) ? 1 : 0;
        const uint8_t *plane = src;
        return compress_planes(&plane, 1, count, nonzero, FastPredictor::None, dst, cap);
    }
    reserve(n);
    const auto &t = transposer();
    const uint8_t *planes[8];
    for (size_t k = 0; k < width; ++k)
        planes[k] = planes_.data() + k * count;
    uint64_t nonzero;
    if (width == 8) {
        nonzero = predict<uint64_t>(src, count, options_.predictor, residuals_.data());
        t.split8(residuals_.data(), count, planes_.data());
    } else {
        auto *r32 = reinterpret_cast<uint32_t *>(residuals_.data());
        nonzero = predict<uint32_t>(src, count, options_.predictor, r32);
        t.split4(r32, count, planes_.data());
    }
    return compress_planes(planes, width, count, nonzero, options_.predictor, dst, cap);
}

zip_status_t FastCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                   uint8_t *dst, size_t raw_n)
{
    const size_t width = element_width(type);
    if (raw_n % width != 0)
        return ZIP_E_CORRUPT;
    const size_t count = raw_n / width;
    const size_t nmode = mode_bytes(width), lenbytes = length_field_bytes(count);
    if (len < 1 + nmode || src[0] > 2 || (width == 1 && src[0] != 0))
        return ZIP_E_CORRUPT;
    const auto pred = static_cast<FastPredictor>(src[0]);
    if (width == 1 && (src[1] >> 2) != 0)
        return ZIP_E_CORRUPT;
    if (width > 1)
        reserve(raw_n);

    const uint8_t *planes[8];
    size_t pos = 1 + nmode;
    for (size_t k = width; k-- > 0;) {
        unsigned mode = (src[1 + k / 4] >> (2 * (k % 4))) & 3;
        // BYTES decodes its single plane straight into dst; wider types into scratch planes.
        uint8_t *out = width == 1 ? dst : planes_.data() + k * count;
        switch (mode) {
        case kZero:
            if (width == 1)
                std::memset(dst, 0, count);
            planes[k] = zeros_.data();
            break;
        case kRaw:
            if (len - pos < count)
                return ZIP_E_CORRUPT;
            if (width == 1)
                std::memcpy(dst, src + pos, count);
            planes[k] = src + pos;
            pos += count;
            break;
        case kLz4: {
            if (len - pos < lenbytes)
                return ZIP_E_CORRUPT;
            size_t clen = get_le(src + pos, lenbytes);
            pos += lenbytes;
            if (clen == 0 || len - pos < clen || count > static_cast<size_t>(LZ4_MAX_INPUT_SIZE))
                return ZIP_E_CORRUPT;
            int got = LZ4_decompress_safe(reinterpret_cast<const char *>(src + pos),
                                          reinterpret_cast<char *>(out), static_cast<int>(clen),
                                          static_cast<int>(count));
            if (got < 0 || static_cast<size_t>(got) != count)
                return ZIP_E_CORRUPT;
            planes[k] = out;
            pos += clen;
            break;
        }
        default:
            return ZIP_E_CORRUPT;
        }
    }
    if (pos != len)
        return ZIP_E_CORRUPT;
    if (width == 1)
        return ZIP_OK;
    const auto &t = transposer();
    if (width == 8) {
        t.join8(planes, count, dst);
        unpredict<uint64_t>(dst, count, pred);
    } else {
        t.join4(planes, count, dst);
        unpredict<uint32_t>(dst, count, pred);
    }
    return ZIP_OK;
}

std::unique_ptr<BlockCodec> make_fast(std::string_view options)
{
    FastOptions o;
    for_each_option(options, [&](std::string_view key, std::string_view value) {
        if (key == "accel")
            o.accel = parse_uint_option(key, value, 1, kMaxAccel);
        else if (key == "pred")
            o.predictor = static_cast<FastPredictor>(parse_uint_option(key, value, 0, 2));
        else
            throw SpecError{"fast: unknown option '" + std::string(key) +
                            "' (known: accel=1..64, pred=0..2)"};
    });
    return std::make_unique<FastCodec>(o);
}

std::unique_ptr<BlockCodec> make_fast(uint32_t param)
{
    FastOptions o;
    if (!FastOptions::unpack(param, o))
        return nullptr;
    return std::make_unique<FastCodec>(o);
}

}  // namespace zip
