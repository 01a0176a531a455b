// `fast`: lossless block codec for F64/F32 arrays (and plain bytes), built to beat Blosc's
// shuffle+LZ4 on smooth fields in both speed and ratio. Design and measurements:
// docs/fast-codec.md.
//
// Pipeline (F64 / F32, element width w = 8 / 4 bytes, count = n / w elements):
//   1. predict: each element's bit pattern x[i] (as an unsigned integer) becomes the residual
//      zigzag(x[i] - prediction), prediction per the block's predictor (None: 0; Delta1: x[i-1];
//      Delta2: 2 x[i-1] - x[i-2]; x[-1] = x[-2] = x[0]; arithmetic mod 2^(8w); the default
//      picks None for blocks whose values repeat exactly, else Delta2). zigzag(d) =
//      (d << 1) ^ (d >> (8w-1)) turns small negative differences into small positive numbers,
//      so on smooth data the high bytes of the residuals are zero or nearly so. Integer
//      arithmetic: bit-exact for every pattern and independent of the FPU mode and the CPU.
//   2. split the residuals into w byte planes (plane k = byte k of every residual); fused with
//      step 1 in the AVX2 kernels (fast_transpose.cpp), which also OR all residuals so that the
//      all-zero planes are known without another pass.
//   3. code each plane on its own, most significant first, by the smallest of: all-zero (costs
//      nothing); bit-packed, when its bytes all fit in b < 8 bits; run-coded (a bit mask of the
//      bytes that differ from their predecessor, then those bytes), when that at least halves
//      it; raw. Planes with long runs (15/16 of the bytes repeat) try LZ4 first. Once a plane is
//      noise (none of the above helps) the lower planes are stored raw unexamined.
// BYTES blocks are one plane (w = 1, predictor None): zero, raw or plain LZ4.
//
// Block byte format (all integers little-endian):
//   byte 0        predictor: 0 None, 1 Delta1, 2 Delta2 (bits 2..7 zero). Always 0 for BYTES.
//   modes         ceil(2w / 8) bytes: 2 bits per plane, plane k at bits 2(k%4) of byte k/4;
//                 0 = zero plane, 1 = raw, 2 = LZ4, 3 = coded (not for BYTES); unused high
//                 bits zero.
//   seed          x[0], w bytes, present when the predictor is not None.
//   planes        in order k = w-1 down to 0 (most significant first):
//                   zero:   nothing
//                   raw:    count bytes
//                   LZ4:    L (length field of `lenbytes` bytes, L > 0) then L bytes of one LZ4
//                           block (LZ4_decompress_safe format) that decodes to exactly count
//                           bytes. lenbytes = bytes needed to write count: 1 (< 2^8),
//                           2 (< 2^16), 3 (< 2^24), else 4.
//                   coded:  one coding byte c, then
//                           c = 1..7 (bit-packed): ceil(count / 8) groups of c bytes: group g
//                             holds plane bytes 8g..8g+7, byte j in bits c*j .. c*j+c-1 of the
//                             little-endian group; the last group is padded with zero bytes.
//                           c = 8 (run-coded): ceil(count / 8) mask bytes, bit j of byte g set
//                             when plane byte 8g+j differs from the byte before it (the byte
//                             before byte 0 counts as 0); bits past count are zero. Then one
//                             literal per set bit, in order; clear bits repeat the byte before.
//   The block ends exactly after the last plane; anything else is corrupt.
// An empty block (n = 0) is not coded (compress returns 0, decompress accepts len 0).
// The decoder derives w and count from the element type and raw size the frame gives it.
#include "fast.hpp"

#include <lz4.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <limits>

#include "codec_registry.hpp"
#include "fast_transpose.hpp"

namespace zip
{

// LZ4 for one plane at a time, with output that depends only on the plane. A stream reset with
// LZ4_resetStream_fast keeps its hash table (no 16 KiB memset per plane, which would dominate
// 4 KiB messages) and skips 64 KiB of offsets so that old entries are out of reach. But LZ4
// codes the first input of a stream whose offset is 0 (after LZ4_initStream, and again after LZ4
// resets its table by itself past 1 GB of offsets) in another mode, where an empty table slot is
// a candidate match at the start of the input; a used stream rejects such slots. Frames then
// differed by a few bytes depending on the context's history (issue 11). So the stream is never
// at offset 0: it is primed with one byte after every init, and re-initialised here well before
// LZ4's own reset (tests/unit/test_frame_determinism.cpp checks across several such restarts).
struct FastCodec::Lz4State {
    LZ4_stream_t stream;
    size_t offset = 0; // what this stream's offsets have advanced since the last restart

    static constexpr size_t kRestartOffset = size_t{512} << 20; // LZ4 resets past 1 GB
    static constexpr size_t kGap = 65536;                       // LZ4_resetStream_fast's skip

    Lz4State() { restart(); }

    void restart()
    {
        LZ4_initStream(&stream, sizeof stream);
        const char one = 0;
        char out[16];
        LZ4_compress_fast_continue(&stream, &one, out, 1, sizeof out, 1);
        offset = 1;
    }

    // One LZ4 block of src[0, n) into at most cap bytes; 0 if it does not fit.
    int compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, unsigned accel)
    {
        if (offset > kRestartOffset)
            restart();
        LZ4_resetStream_fast(&stream);
        offset += kGap + n;
        return LZ4_compress_fast_continue(&stream, reinterpret_cast<const char *>(src),
                                          reinterpret_cast<char *>(dst), static_cast<int>(n),
                                          static_cast<int>(cap), static_cast<int>(accel));
    }
};

namespace
{

using fast_detail::kernels;

constexpr unsigned kMaxAccel = 64;
// A residual plane goes to LZ4 only if at least this share (in 1/256) of its bytes repeat the
// byte before (long runs: mostly-zero or sign/exponent planes, where LZ4 is both smaller than
// the run mask and fast); see plane_stats(). Measurements in docs/fast-codec.md.
constexpr unsigned kLz4RepeatShare = 240;
enum PlaneMode : unsigned { kZero = 0, kRaw = 1, kLz4 = 2, kCoded = 3 };
constexpr unsigned kRunsCoding = 8; // kCoded sub-mode byte: 1..7 bit-packed, 8 run mask

size_t element_width(zip_elem_type_t type)
{
    switch (type) {
    case ZIP_TYPE_F64:
        return 8;
    case ZIP_TYPE_F32:
        return 4;
    default:
        return 1;
    }
}

size_t mode_bytes(size_t width)
{
    return (2 * width + 7) / 8;
}

size_t length_field_bytes(size_t count)
{
    if (count < (size_t{1} << 8))
        return 1;
    if (count < (size_t{1} << 16))
        return 2;
    if (count < (size_t{1} << 24))
        return 3;
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
template <class U> inline void store(uint8_t *p, U v)
{
    std::memcpy(p, &v, sizeof v);
}

// Undoes the prediction in place on the (already un-zigzagged) residuals stored, unaligned, at
// buf, carrying the running state (x = x[i-1], d = x[i-1] - x[i-2]) from chunk to chunk.
template <class U> void unpredict(uint8_t *buf, size_t count, FastPredictor pred, U &x, U &d)
{
    if (pred == FastPredictor::Delta1) {
        for (size_t i = 0; i < count; ++i) {
            x += load<U>(buf + i * sizeof(U));
            store<U>(buf + i * sizeof(U), x);
        }
    } else if (pred == FastPredictor::Delta2) {
        // x[i] - x[i-1] = d[i] = d[i-1] + residual: two running sums. Two elements a step, with
        // each sum advanced by one add of a pair total (r0 + r1, d0 + d1, off the chains): half
        // the latency per element of the one-at-a-time loop, which that latency bounded.
        U xs = x, ds = d; // locals: stores through buf could alias the references
        size_t i = 0;
        for (; i + 2 <= count; i += 2) {
            U r0 = load<U>(buf + i * sizeof(U)), r1 = load<U>(buf + (i + 1) * sizeof(U));
            U d0 = ds + r0, d1 = ds + (r0 + r1);
            U x0 = xs + d0, x1 = xs + (d0 + d1);
            store<U>(buf + i * sizeof(U), x0);
            store<U>(buf + (i + 1) * sizeof(U), x1);
            ds = d1;
            xs = x1;
        }
        for (; i < count; ++i) {
            ds += load<U>(buf + i * sizeof(U));
            xs += ds;
            store<U>(buf + i * sizeof(U), xs);
        }
        x = xs;
        d = ds;
    }
}

// Planes -> elements at dst. The residuals come from the split kernels (fast_transpose.cpp):
// zigzag(x[i] - prediction) with x[-1] = x[-2] = x[0] (the seed in the block header), so the
// first residuals are small too (a large one would spoil the all-zero high planes). Works in
// chunks of 8 KiB so that the running sums read what the transpose just wrote, still in L1.
template <class U>
void join_and_unpredict(const uint8_t *const *planes, size_t count, FastPredictor pred,
                        const uint8_t *seed, uint8_t *dst)
{
    constexpr size_t kChunk = 8192 / sizeof(U);
    const auto &t = kernels();
    const bool unzig = pred != FastPredictor::None;
    U x = unzig ? load<U>(seed) : 0, d = 0;
    const uint8_t *at[8];
    for (size_t i = 0; i < count; i += kChunk) {
        size_t n = std::min(kChunk, count - i);
        for (size_t k = 0; k < sizeof(U); ++k)
            at[k] = planes[k] + i;
        if (sizeof(U) == 8)
            t.join8(at, n, unzig, dst + i * sizeof(U));
        else
            t.join4(at, n, unzig, dst + i * sizeof(U));
        unpredict<U>(dst + i * sizeof(U), n, pred, x, d);
    }
}

// What the coder needs to know about a plane: the share (in 1/256) of bytes equal to the byte
// before them, and the OR of all bytes (its bit length is the packed width). LZ4 gains on
// residual planes come from such runs: measured, LZ4 output/input ~ 2.5 (1 - share) at most.
struct PlaneStats {
    unsigned repeat_share;
    unsigned bits;   // 0..8
    size_t literals; // bytes that differ from the byte before (before byte 0: 0)
};

PlaneStats plane_stats(const uint8_t *p, size_t count)
{
    size_t same = p[0] == 0, i = 1;
    unsigned any = p[0];
#ifdef __SSE2__
    // 16 bytes a step (SSE2 is baseline on x86-64): compare with the bytes one before, count the
    // equal ones per lane (at most 255 steps between flushes) and OR everything.
    __m128i ors = _mm_setzero_si128();
    while (i + 16 <= count) {
        __m128i counts = _mm_setzero_si128();
        for (size_t steps = 0; steps < 255 && i + 16 <= count; ++steps, i += 16) {
            __m128i cur = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
            __m128i prev = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i - 1));
            counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(cur, prev)); // equal lanes are -1
            ors = _mm_or_si128(ors, cur);
        }
        __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
        same += static_cast<size_t>(_mm_cvtsi128_si32(sums)) +
                static_cast<size_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
    }
    alignas(16) uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes), ors);
    for (uint8_t b : lanes)
        any |= b;
#endif
    for (; i < count; ++i) {
        same += p[i] == p[i - 1];
        any |= p[i];
    }
    unsigned bits = any ? 32u - static_cast<unsigned>(__builtin_clz(any)) : 0u;
    return {static_cast<unsigned>(same * 256 / count), bits, count - same};
}

// Auto predictor: Delta2 suits smooth fields, but where values repeat exactly (sorted data,
// plateaus, duplicated entries) differences turn the runs into alternating noise while the plain
// values keep them (measured on sorted gauss-512: ratio 6.2 with None, 4.1 with Delta2). Runs
// of exact repeats are rare in a smooth field, so: None when at least half of the first 64
// elements equal their predecessor.
template <class U> FastPredictor choose_predictor(const uint8_t *src, size_t count)
{
    const size_t sample = std::min<size_t>(count, 65);
    size_t repeats = 0;
    for (size_t i = 1; i < sample; ++i)
        repeats += load<U>(src + i * sizeof(U)) == load<U>(src + (i - 1) * sizeof(U));
    return sample > 1 && 2 * repeats >= sample - 1 ? FastPredictor::None : FastPredictor::Delta2;
}

// Set bits in n bytes, 8 at a time (SWAR: baseline x86-64 has no POPCNT instruction, and
// __builtin_popcount would call libgcc).
size_t count_bits(const uint8_t *p, size_t n)
{
    size_t total = 0, i = 0;
    auto swar = [](uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ull);
        x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
        return static_cast<size_t>((x * 0x0101010101010101ull) >> 56);
    };
    for (; i + 8 <= n; i += 8)
        total += swar(load<uint64_t>(p + i));
    uint8_t tail[8] = {};
    std::memcpy(tail, p + i, n - i);
    return total + swar(load<uint64_t>(tail));
}

} // namespace

uint32_t FastOptions::pack() const
{
    uint32_t a = accel == kDefaultAccel ? 0 : accel;
    uint32_t p = predictor == FastPredictor::Auto ? 0 : static_cast<uint32_t>(predictor) + 1;
    return a | (p << 8);
}

bool FastOptions::unpack(uint32_t param, FastOptions &out)
{
    uint32_t a = param & 0xff, p = (param >> 8) & 0x3;
    if ((param >> 10) != 0 || a > kMaxAccel)
        return false;
    out.accel = a == 0 ? kDefaultAccel : a;
    out.predictor = p == 0 ? FastPredictor::Auto : static_cast<FastPredictor>(p - 1);
    return true;
}

FastCodec::FastCodec(FastOptions options) : options_(options), lz4_(new Lz4State)
{
    reserve(65536); // the frame's default block: no growth on the hot path in the common case
}

FastCodec::~FastCodec() = default;

void FastCodec::reserve(size_t n)
{
    if (planes_.size() < n) {
        planes_.resize(n);
        zeros_.resize(n / 4);
    }
}

size_t FastCodec::memory_bytes() const
{
    return sizeof(Lz4State) + planes_.size() + zeros_.size();
}

// Writes the block (header, seed, planes[width-1] .. planes[0]) into dst; 0 if over cap.
size_t FastCodec::compress_planes(const uint8_t *const *planes, size_t width, size_t count,
                                  uint64_t nonzero_bytes, FastPredictor pred, const uint8_t *seed,
                                  uint8_t *dst, size_t cap)
{
    const size_t nmode = mode_bytes(width), lenbytes = length_field_bytes(count);
    const size_t nseed = seed ? width : 0;
    size_t pos = 1 + nmode + nseed;
    if (pos > cap)
        return 0;
    dst[0] = static_cast<uint8_t>(pred);
    std::memset(dst + 1, 0, nmode);
    if (nseed)
        std::memcpy(dst + 1 + nmode, seed, nseed);
    // LZ4 must save at least 1/16 of a plane to be worth its decode time.
    const size_t lz4_limit = count - count / 16;
    const bool lz4_usable = count >= 16 && count <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE);
    bool analyse = true; // false once a plane was noise: the lower ones are noisier still
    for (size_t k = width; k-- > 0;) {
        unsigned mode = kZero;
        if ((nonzero_bytes >> (8 * k)) & 0xff) {
            mode = kRaw;
            bool lz4 = false;
            unsigned coding = 0;  // kCoded sub-mode: 1..7 packed width, kRunsCoding runs
            size_t coded = count; // its size, header byte included
            if (width == 1) {
                lz4 = lz4_usable; // bytes: repeats need not be adjacent, always try
            } else if (analyse) {
                PlaneStats st = plane_stats(planes[k], count);
                if (st.bits < 8 && 1 + fast_detail::packed_size(count, st.bits) < coded) {
                    coding = st.bits;
                    coded = 1 + fast_detail::packed_size(count, st.bits);
                }
                // Run-coded planes must at least halve: decoding them costs ~1 cycle a byte,
                // which a smaller gain does not repay (measured: a plane with 27% repeats
                // saved 1.8% of the block and cost 20% decode speed).
                size_t runs = 1 + fast_detail::runs_size(count, st.literals);
                if (runs < coded && 2 * runs <= count) {
                    coding = kRunsCoding;
                    coded = runs;
                }
                // Long runs (mostly-zero or sign/exponent planes): LZ4 is smaller than the run
                // mask there and still fast; shorter runs cost LZ4 a sequence each.
                lz4 = lz4_usable && st.repeat_share >= kLz4RepeatShare;
                analyse = lz4 || coding != 0; // else noise: so are the lower planes
            }
            if (lz4 && cap - pos > lenbytes) {
                size_t room = std::min({cap - pos - lenbytes, lz4_limit, coded});
                int got =
                    lz4_->compress(planes[k], count, dst + pos + lenbytes, room, options_.accel);
                if (got > 0) {
                    put_le(dst + pos, static_cast<size_t>(got), lenbytes);
                    pos += lenbytes + static_cast<size_t>(got);
                    mode = kLz4;
                }
            }
            if (mode == kRaw && coding != 0) {
                if (cap - pos < coded)
                    return 0;
                dst[pos] = static_cast<uint8_t>(coding);
                if (coding == kRunsCoding) {
                    if (kernels().encode_runs(planes[k], count, dst + pos + 1, coded - 1) !=
                        coded - 1)
                        return 0; // cannot happen: plane_stats counted the same literals
                } else {
                    kernels().pack_bits(planes[k], count, coding, dst + pos + 1);
                }
                pos += coded;
                mode = kCoded;
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
    if (n == 0 || n % width != 0) // nothing to code / never passed: the frame stores it raw
        return 0;
    const size_t count = n / width;
    if (width == 1) {
        uint64_t nonzero = std::any_of(src, src + n, [](uint8_t b) { return b != 0; }) ? 1 : 0;
        const uint8_t *plane = src;
        return compress_planes(&plane, 1, count, nonzero, FastPredictor::None, nullptr, dst, cap);
    }
    reserve(n);
    const uint8_t *planes[8];
    for (size_t k = 0; k < width; ++k)
        planes[k] = planes_.data() + k * count;
    const auto &t = kernels();
    const FastPredictor pred = options_.predictor == FastPredictor::Auto
                                   ? (width == 8 ? choose_predictor<uint64_t>(src, count)
                                                 : choose_predictor<uint32_t>(src, count))
                                   : options_.predictor;
    const unsigned p = static_cast<unsigned>(pred);
    uint64_t nonzero = width == 8 ? t.split8(src, count, p, planes_.data())
                                  : t.split4(src, count, p, planes_.data());
    const bool seeded = pred != FastPredictor::None;
    return compress_planes(planes, width, count, nonzero, pred, seeded ? src : nullptr, dst, cap);
}

zip_status_t FastCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                   uint8_t *dst, size_t raw_n)
{
    const size_t width = element_width(type);
    if (raw_n % width != 0)
        return ZIP_E_CORRUPT;
    if (raw_n == 0 && len == 0)
        return ZIP_OK; // an empty block round-trips as nothing
    const size_t count = raw_n / width;
    const size_t nmode = mode_bytes(width), lenbytes = length_field_bytes(count);
    if (len < 1 + nmode || src[0] > 2 || (width == 1 && src[0] != 0))
        return ZIP_E_CORRUPT;
    const auto pred = static_cast<FastPredictor>(src[0]);
    if (width == 1 && (src[1] >> 2) != 0)
        return ZIP_E_CORRUPT;
    const size_t nseed = pred != FastPredictor::None && count > 0 ? width : 0;
    if (len - (1 + nmode) < nseed)
        return ZIP_E_CORRUPT;
    const uint8_t *seed = src + 1 + nmode;
    if (width > 1)
        reserve(raw_n);

    const uint8_t *planes[8];
    size_t pos = 1 + nmode + nseed;
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
        case kCoded: {
            if (len - pos < 1 || width == 1)
                return ZIP_E_CORRUPT;
            unsigned coding = src[pos++];
            if (coding == kRunsCoding) {
                size_t mask_bytes = (count + 7) / 8;
                if (len - pos < mask_bytes)
                    return ZIP_E_CORRUPT;
                const uint8_t *mask = src + pos;
                size_t literals = count_bits(mask, mask_bytes);
                unsigned tail = count % 8;
                if ((tail && (mask[mask_bytes - 1] >> tail) != 0) ||
                    len - pos - mask_bytes < literals)
                    return ZIP_E_CORRUPT;
                const uint8_t *lits = mask + mask_bytes;
                kernels().decode_runs(mask, lits, lits + literals, count, out);
                pos += mask_bytes + literals;
            } else {
                if (coding < 1 || coding > 7 || len - pos < fast_detail::packed_size(count, coding))
                    return ZIP_E_CORRUPT;
                kernels().unpack_bits(src + pos, count, coding, out);
                pos += fast_detail::packed_size(count, coding);
            }
            planes[k] = out;
            break;
        }
        }
    }
    if (pos != len)
        return ZIP_E_CORRUPT;
    if (width == 1)
        return ZIP_OK;
    if (width == 8)
        join_and_unpredict<uint64_t>(planes, count, pred, seed, dst);
    else
        join_and_unpredict<uint32_t>(planes, count, pred, seed, dst);
    return ZIP_OK;
}

std::unique_ptr<BlockCodec> make_fast(std::string_view options)
{
    FastOptions o;
    for_each_option(options, [&](std::string_view key, std::string_view value) {
        if (key == "accel")
            o.accel = parse_uint_option(key, value, 1, kMaxAccel);
        else if (key == "pred")
            o.predictor = value == "auto"
                              ? FastPredictor::Auto
                              : static_cast<FastPredictor>(parse_uint_option(key, value, 0, 2));
        else
            throw SpecError{"fast: unknown option '" + std::string(key) +
                            "' (known: accel=1..64, pred=auto|0|1|2)"};
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

} // namespace zip
