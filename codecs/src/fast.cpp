// `fast`: lossless block codec for arrays of F64/F32/I64/I32 (and plain bytes), built to beat
// Blosc's shuffle+LZ4 in both speed and ratio, on smooth fields and on the record layouts of
// real application messages. Design and measurements: docs/fast-codec.md.
//
// Pipeline (element width w = 8 or 4 bytes, count = n / w elements):
//   1. predict: each element's bit pattern x[i] (as an unsigned integer) becomes a residual
//      from the elements one and two strides back (fast_transform.hpp): None x[i]; Delta1
//      zigzag(x[i] - x[i-s]); Delta2 zigzag(x[i] - 2 x[i-s] + x[i-2s]); Xor x[i] ^ x[i-s];
//      arithmetic mod 2^(8w); elements before the block stand for the same field of the first
//      record. The stride s > 1 predicts each field of a record from the same field of the
//      records before (several variables per grid point side by side). Chosen per block from
//      a sample. zigzag(d) = (d << 1) ^ (d >> (8w-1)) turns small negative differences into
//      small positive numbers, so on smooth data the high bytes of the residuals are zero or
//      nearly so. Integer arithmetic: bit-exact for every pattern, FPU mode and CPU.
//   2. split the residuals into w byte planes (plane k = byte k of every residual); fused with
//      step 1 in the SIMD kernels (fast_transpose.cpp AVX2, fast_split_avx512.cpp), which also
//      OR all residuals so that the all-zero planes are known without another pass.
//   3. code each plane on its own, most significant first, by the smallest of: all-zero (costs
//      nothing); bit-packed, when its bytes all fit in b < 8 bits; run-coded (a bit mask of the
//      bytes that differ from their predecessor, then those bytes), when that at least halves
//      it; sparse (a bit mask of the bytes that are not zero, then those bytes), when that
//      saves an eighth; raw; LZ4 where one pass of plane statistics says it may pay (long runs,
//      many zeros, or few distinct byte values: repeats at any distance). Once a plane is noise
//      (none of the above helps) the lower planes are not analysed, only sampled for a
//      (nearly) constant bit: such a plane, else raw, is coded as bit planes
//      (fast_bitplanes.hpp) when that saves a sixteenth.
// BYTES blocks are one plane (w = 1, transform 0): zero, raw or plain LZ4.
//
// Block byte format (all integers little-endian):
//   Element runs (frame format 4, element widths 4 and 8): byte 0 kElemRunsFlag (0x80), then
//   the run list and the other elements as a block of this format (fast_runs.hpp). Otherwise:
//   byte 0        transform: bits 0-1 predictor (0 None, 1 Delta1, 2 Delta2, 3 Xor), bits 2-6
//                 stride - 1, bit 7 zero. Always 0 for BYTES. The first format knew only
//                 predictors 0..2 with stride 1 (the same bytes 0, 1, 2).
//   modes         ceil(2w / 8) bytes: 2 bits per plane, plane k at bits 2(k%4) of byte k/4;
//                 0 = zero plane, 1 = raw, 2 = LZ4, 3 = coded (not for BYTES); unused high
//                 bits zero.
//   seed          the first record, min(s, count) elements of w bytes, when the predictor is not
//                 None (the first format: x[0]).
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
//                           c = 9 (sparse, second format): as 8, but a set bit marks a byte
//                             that is not zero and a clear bit is a zero byte.
//                           c = 10 (bit planes, third format: frame parameter bit 25): the
//                             plane's 8 bit planes, each all-zero, raw or sparse, optionally
//                             complemented (fast_bitplanes.hpp). Used for planes that would
//                             be raw but hold a (nearly) constant bit.
//   The block ends exactly after the last plane; anything else is corrupt.
// An empty block (n = 0) is not coded (compress returns 0, decompress accepts len 0).
// The decoder derives w and count from the element type and raw size the frame gives it.
#include "fast.hpp"

#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "codec_registry.hpp"
#include "fast_bitplanes.hpp"
#include "fast_transform.hpp"
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
using fast_detail::Transform;

constexpr unsigned kMaxAccel = 64;
// LZ4 on a plane without long runs is tried only if it uses at most kLz4DistinctMax (and a
// quarter of the values its width allows) of kDistinctSample bytes, and LZ4 pays on a slice of
// kLz4Slice bytes (code_plane).
constexpr unsigned kDistinctSample = 256;
constexpr unsigned kLz4DistinctMax = 48;
constexpr size_t kLz4Slice = 1024;
constexpr size_t kLz4MinSlice = 256;
// LZ4 on a plane chosen for its long runs uses this many times the acceleration: its time goes
// to the bytes between the runs, which it skips faster, at the price of finding a run's start
// a few bytes late (docs/fast-codec.md).
constexpr unsigned kRunsAccelFactor = 2;
// ... and this many times where under an eighth of the plane is in runs: the middle planes of
// smooth fields, where LZ4 finds repeats that the runs do not show. On gauss-1024 it took 29%
// off such planes at kRunsAccelFactor, at 2.3x the block's compress time; with this factor the
// ratio is 1.563 (1.656 before, 1.564 and the same speed on 2026-11-22; docs/fast-codec.md).
constexpr unsigned kFewRunsAccelFactor = 16;
enum PlaneMode : unsigned { kZero = 0, kRaw = 1, kLz4 = 2, kCoded = 3 };
// Bytes blocks: coded as 8-byte words (transform byte | kWordsFlag) when the words' residuals
// average below kWordsViewBits significant bits on the sample, from kMinWordsView words on.
constexpr uint8_t kWordsFlag = 0x80;
constexpr unsigned kWordsViewBits = 60;
constexpr size_t kMinWordsView = fast_detail::kMinSampled;
// Bytes blocks coded as one plane: LZ4 must save 1/16 of this many bytes first.
constexpr size_t kBytesProbe = 4096;
constexpr unsigned kRunsCoding = 8;   // kCoded sub-mode byte: 1..7 bit-packed, 8 run mask,
constexpr unsigned kSparseCoding = 9; // 9 nonzero mask,
constexpr unsigned kBitsCoding = 10;  // 10 bit planes (format 3)
constexpr uint32_t kParamFormat2 = 1u << 24;
constexpr uint32_t kParamFormat3 = 1u << 25; // with kParamFormat2: blocks may use kBitsCoding
constexpr uint32_t kParamFormat4 = 1u << 26; // with 2 and 3: blocks may take out element runs

size_t element_width(zip_elem_type_t type)
{
    return zip_elem_size(type); // integers and floats alike: the codec sees bit patterns
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

// Planes -> elements at dst. The residuals come from the split kernels (fast_transpose.cpp),
// the first record from the seed. Works in chunks of 8 KiB so that the running sums read what
// the transpose just wrote, still in L1.
template <class U>
void join_and_unpredict(const uint8_t *const *planes, size_t count, Transform t,
                        const uint8_t *seed, uint8_t *dst)
{
    constexpr size_t kChunk = 8192 / sizeof(U);
    const auto &k = kernels();
    const bool unzig = t.pred == fast_detail::kPredDelta1 || t.pred == fast_detail::kPredDelta2;
    const uint8_t *at[8];
    for (size_t i = 0; i < count; i += kChunk) {
        size_t n = std::min(kChunk, count - i);
        for (size_t p = 0; p < sizeof(U); ++p)
            at[p] = planes[p] + i;
        if (sizeof(U) == 8)
            k.join8(at, n, unzig, dst + i * sizeof(U));
        else
            k.join4(at, n, unzig, dst + i * sizeof(U));
        fast_detail::unpredict<U>(dst, i, n, t, seed);
    }
}

// Distinct values among kDistinctSample bytes spread over the plane: few of them on a plane
// without runs or zeros means a repeated pattern (LZ4 finds it), many means noise.
unsigned distinct_bytes(const uint8_t *p, size_t count)
{
    // A byte table rather than a bit set: independent stores instead of a chain of
    // read-modify-writes through four words (the bit set cost 6% of compress on heat3d-halo).
    uint8_t seen[256] = {};
    const size_t step = std::max<size_t>(1, count / kDistinctSample);
    for (size_t i = 0, taken = 0; i < count && taken < kDistinctSample; i += step, ++taken)
        seen[p[i]] = 1;
    unsigned n = 0;
    for (uint8_t v : seen)
        n += v;
    return n;
}

} // namespace

uint32_t FastOptions::pack() const
{
    uint32_t a = accel == kDefaultAccel ? 0 : accel;
    uint32_t p = predictor == FastPredictor::Auto ? 0 : static_cast<uint32_t>(predictor) + 1;
    if (param_format == 1)
        return a | (p << 8);
    const uint32_t format = param_format >= 4   ? kParamFormat2 | kParamFormat3 | kParamFormat4
                            : param_format == 3 ? kParamFormat2 | kParamFormat3
                                                : kParamFormat2;
    return format | a | (p << 8) | (stride << 11);
}

bool FastOptions::unpack(uint32_t param, FastOptions &out)
{
    FastOptions o;
    uint32_t a = param & 0xff;
    if (a > kMaxAccel)
        return false;
    o.accel = a == 0 ? kDefaultAccel : a;
    uint32_t p;
    if (param & kParamFormat2) {
        p = (param >> 8) & 0x7;
        o.stride = (param >> 11) & 0x3f;
        if ((param & ~(kParamFormat2 | kParamFormat3 | kParamFormat4 | 0x1ffffu)) != 0 || p > 4 ||
            o.stride > kMaxStride || (p == 0 && o.stride != 0) ||
            ((param & kParamFormat4) && !(param & kParamFormat3)))
            return false;
        o.param_format = (param & kParamFormat4) ? 4 : (param & kParamFormat3) ? 3 : 2;
    } else {
        p = (param >> 8) & 0x3;
        if ((param >> 10) != 0)
            return false;
        o.param_format = 1;
    }
    o.predictor = p == 0 ? FastPredictor::Auto : static_cast<FastPredictor>(p - 1);
    out = o;
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
        bits_.resize(n / 4 + 8); // 8 bit planes of the widest plane (4-byte elements)
    }
}

size_t FastCodec::memory_bytes() const
{
    return sizeof(Lz4State) + planes_.size() + zeros_.size() + bits_.size() + rest_.capacity() +
           runs_.capacity() * sizeof(fast_detail::ElemRun) +
           run_values_.capacity() * sizeof(uint64_t);
}

// Codes one residual plane at dst (at most cap bytes): returns the bytes written, or SIZE_MAX if
// they do not fit; *mode is the plane's mode. `analyse` is cleared when the plane is noise (the
// lower planes, noisier still, are then stored raw without looking at them).
size_t FastCodec::code_plane(const uint8_t *plane, size_t count, bool &analyse, uint8_t *dst,
                             size_t cap, unsigned &mode)
{
    constexpr size_t kNoFit = SIZE_MAX;
    const size_t lenbytes = length_field_bytes(count);
    bool lz4 = false;
    unsigned accel_factor = 1; // LZ4's acceleration times options_.accel
    unsigned coding = 0;       // kCoded sub-mode: 1..7 packed width, kRunsCoding, kSparseCoding
    size_t coded = count;      // its size, header byte included
    if (analyse) {
        const fast_detail::PlaneStats st = kernels().plane_stats(plane, count);
        if (st.bits < 8 && 1 + fast_detail::packed_size(count, st.bits) < coded) {
            coding = st.bits;
            coded = 1 + fast_detail::packed_size(count, st.bits);
        }
        // Run-coded planes must at least halve: decoding them costs ~1 cycle a byte, which a
        // smaller gain does not repay (measured: a plane with 27% repeats saved 1.8% of the
        // block and cost 20% decode speed).
        size_t runs = 1 + fast_detail::runs_size(count, st.literals);
        if (runs < coded && 2 * runs <= count) {
            coding = kRunsCoding;
            coded = runs;
        }
        // Sparse planes decode without the run fill (one pdep per 8 bytes): an eighth saved
        // repays them (interleaved fields of which some are zero).
        size_t sparse = 1 + fast_detail::runs_size(count, st.nonzero);
        if (sparse < coded && 8 * sparse <= 7 * count) {
            coding = kSparseCoding;
            coded = sparse;
        }
        // LZ4 where it should beat the best coding so far by 1/32 of the plane: the bytes not
        // in runs of four are about its output (long runs of zeros or repeats: it is smaller
        // than the masks there and fast), or, on a plane that uses few of the values its width
        // allows, if it does on a slice from the middle (periodic patterns: index lists, where
        // a sparse plane of 3930 bytes of 16384 is ~50 bytes of LZ4). Measured on the recorded
        // corpus (docs/fast-codec.md): within 1% of trying LZ4 on every plane, with a tenth of
        // the failed attempts of a repeat-share rule.
        const size_t goal = coded - std::min(coded, count / 32);
        // Where the runs barely predict that (LZ4 spends a sequence per short run), it must
        // pass the slice test too, at the acceleration it would run with: on a run-coded plane
        // when the bytes outside runs come within an eighth of the goal (sincos-1024: 2 in 3
        // such attempts failed, the rest saved 1.3 % of their planes, for a sixth of its
        // compress time; on the corpus the slice keeps 90 % of what they saved), on an uncoded
        // plane within a sixteenth (heat3d-halo's and gauss's planes, every attempt failed:
        // 12-15 % and 10 % of their compress time; an eighth there cost minife f64 0.1 % of
        // ratio).
        const size_t outside = count - st.in_runs;
        const bool runs_lz4 = outside < goal;
        const bool runs_marginal = coding == kRunsCoding ? 8 * outside > 7 * goal
                                                         : coding == 0 && 16 * outside > 15 * goal;
        if (runs_lz4)
            accel_factor = 8 * st.in_runs < count ? kFewRunsAccelFactor : kRunsAccelFactor;
        lz4 = count >= 16 && count <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE) &&
              (runs_lz4 ? !runs_marginal ||
                              lz4_slice_pays(plane, count, goal, accel_factor * options_.accel)
                        : 16 * coded > count &&
                              distinct_bytes(plane, count) <=
                                  std::min(kLz4DistinctMax, (1u << st.bits) / 4) &&
                              lz4_slice_pays(plane, count, goal, options_.accel));
        analyse = lz4 || coding != 0; // else noise: so are the lower planes
    }
    if (lz4 && cap > lenbytes) {
        // LZ4 must save at least 1/16 of a plane to be worth its decode time.
        size_t room = std::min({cap - lenbytes, count - count / 16, coded});
        int got = lz4_->compress(plane, count, dst + lenbytes, room, accel_factor * options_.accel);
        if (got > 0) {
            put_le(dst, static_cast<size_t>(got), lenbytes);
            mode = kLz4;
            return lenbytes + static_cast<size_t>(got);
        }
    }
    if (coding != 0) {
        if (cap < coded)
            return kNoFit;
        dst[0] = static_cast<uint8_t>(coding);
        const auto &k = kernels();
        if (coding == kRunsCoding || coding == kSparseCoding) {
            auto encode = coding == kRunsCoding ? k.encode_runs : k.encode_sparse;
            if (encode(plane, count, dst + 1, coded - 1) != coded - 1)
                return kNoFit; // cannot happen: plane_stats counted the same literals
        } else {
            k.pack_bits(plane, count, coding, dst + 1);
        }
        mode = kCoded;
        return coded;
    }
    // Noise at byte level, but a bit of it may be (nearly) constant: the low exponent bits of
    // random values in [0, 1), sharing a byte with mantissa bits. Bit planes must save 1/16 of
    // the plane: the decoder transposes them back (SIMD, fast_bitplane_kernels.cpp) where a raw
    // plane is read in place.
    if (options_.param_format >= 3 && fast_detail::has_skewed_bit(plane, count)) {
        const size_t limit = std::min(cap, count - count / 16);
        size_t got = limit > 1 ? fast_detail::encode_bitplanes(plane, count, bits_.data(), dst + 1,
                                                               limit - 1)
                               : 0;
        if (got > 0) {
            dst[0] = static_cast<uint8_t>(kBitsCoding);
            mode = kCoded;
            return 1 + got;
        }
    }
    if (cap < count)
        return kNoFit;
    std::memcpy(dst, plane, count);
    mode = kRaw;
    return count;
}

// Whether LZ4 codes a slice of kLz4Slice bytes from the middle of the plane into the share of
// it that `goal` is of the plane.
bool FastCodec::lz4_slice_pays(const uint8_t *plane, size_t count, size_t goal, unsigned accel)
{
    const size_t slice = count <= 2 * kLz4Slice ? count / 4 : kLz4Slice;
    if (slice < kLz4MinSlice)
        return true; // small: the whole plane costs little more than a slice
    uint8_t out[kLz4Slice];
    const size_t room = goal * slice / count;
    return room > 0 && lz4_->compress(plane + count / 2 - slice / 2, slice, out, room, accel) > 0;
}

// Writes the block (header, seed, planes[width-1] .. planes[0]) into dst; 0 if over cap.
size_t FastCodec::compress_planes(const uint8_t *const *planes, size_t width, size_t count,
                                  uint64_t nonzero_bytes, uint8_t transform, const uint8_t *seed,
                                  size_t seed_bytes, uint8_t *dst, size_t cap, bool bytes_lz4)
{
    const size_t nmode = mode_bytes(width);
    size_t pos = 1 + nmode + seed_bytes;
    if (pos > cap)
        return 0;
    dst[0] = transform;
    std::memset(dst + 1, 0, nmode);
    if (seed_bytes)
        std::memcpy(dst + 1 + nmode, seed, seed_bytes);
    bool analyse = true;
    for (size_t k = width; k-- > 0;) {
        unsigned mode = kZero;
        if ((nonzero_bytes >> (8 * k)) & 0xff) {
            size_t got;
            if (width == 1) {
                // Bytes: repeats need not be adjacent, LZ4 unless the caller's probe failed.
                const size_t lenbytes = length_field_bytes(count);
                got = SIZE_MAX;
                if (bytes_lz4 && cap - pos > lenbytes) {
                    size_t room = std::min(cap - pos - lenbytes, count - count / 16);
                    int n = lz4_->compress(planes[k], count, dst + pos + lenbytes, room,
                                           options_.accel);
                    if (n > 0) {
                        put_le(dst + pos, static_cast<size_t>(n), lenbytes);
                        got = lenbytes + static_cast<size_t>(n);
                        mode = kLz4;
                    }
                }
                if (mode != kLz4) {
                    if (cap - pos < count)
                        return 0;
                    std::memcpy(dst + pos, planes[k], count);
                    got = count;
                    mode = kRaw;
                }
            } else {
                got = code_plane(planes[k], count, analyse, dst + pos, cap - pos, mode);
                if (got == SIZE_MAX)
                    return 0;
            }
            pos += got;
        }
        dst[1 + k / 4] |= static_cast<uint8_t>(mode << (2 * (k % 4)));
    }
    return pos;
}

// Splits `count` elements of `width` bytes under transform tf and codes the planes; the block
// starts with the transform byte ORed with `flag`.
size_t FastCodec::compress_elements(const uint8_t *src, size_t count, size_t width, Transform tf,
                                    uint8_t flag, uint8_t *dst, size_t cap)
{
    reserve(count * width);
    const uint8_t *planes[8];
    for (size_t k = 0; k < width; ++k)
        planes[k] = planes_.data() + k * count;
    const auto &t = kernels();
    uint64_t nonzero = width == 8 ? t.split8(src, count, tf.pred, tf.stride, planes_.data())
                                  : t.split4(src, count, tf.pred, tf.stride, planes_.data());
    const size_t seed_bytes =
        tf.pred == fast_detail::kPredNone ? 0 : std::min(tf.stride, count) * width;
    return compress_planes(planes, width, count, nonzero, static_cast<uint8_t>(tf.byte() | flag),
                           src, seed_bytes, dst, cap);
}

// Bytes: structs and integers that MPI sends untyped are often words (CoMD's atom records, 56
// bytes of ints and doubles: as words 1.13, LZ4 1.06; miniVite's edge structs: 3.8 and 3.0).
// When the sample says 8-byte words predict well, the block is coded as words (flag 0x80 on
// the transform byte); otherwise as one plane, LZ4 or raw, where LZ4 must first show on the
// block's first kBytesProbe bytes that it saves a sixteenth (LZ4 over 64 KiB of noise cost 3x
// Blosc's time on CoMD).
size_t FastCodec::compress_bytes(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    if (n % 8 == 0 && n / 8 >= kMinWordsView && options_.predictor == FastPredictor::Auto) {
        const fast_detail::Choice c = fast_detail::choose_transform<uint64_t>(src, n / 8);
        const bool pays = c.sample_elems == 0 ? c.transform.pred == fast_detail::kPredNone
                                              : c.sample_bits < kWordsViewBits * c.sample_elems;
        if (pays)
            return compress_elements(src, n / 8, 8, c.transform, kWordsFlag, dst, cap);
    }
    if (std::none_of(src, src + n, [](uint8_t b) { return b != 0; })) {
        const uint8_t *plane = src;
        return compress_planes(&plane, 1, n, 0, 0, nullptr, 0, dst, cap);
    }
    const size_t probe = std::min(n, kBytesProbe);
    bool lz4 = n >= 16 && n <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE);
    if (lz4 && cap >= probe)
        lz4 = lz4_->compress(src, probe, dst, probe - probe / 16, options_.accel) > 0;
    if (!lz4 && cap < n)
        return 0; // a raw plane would not fit either: the frame stores the block raw
    const uint8_t *plane = src;
    return compress_planes(&plane, 1, n, 1, 0, nullptr, 0, dst, cap, lz4);
}

size_t FastCodec::compress(const uint8_t *src, size_t n, zip_elem_type_t type, uint8_t *dst,
                           size_t cap)
{
    const size_t width = element_width(type);
    if (n == 0 || n % width != 0) // nothing to code / never passed: the frame stores it raw
        return 0;
    const size_t count = n / width;
    if (width == 1)
        return compress_bytes(src, n, dst, cap);
    // Long runs of one value (halos of zeros and constants) are taken out first when a sample
    // shows them: the planes then hold only the elements between them (fast_runs.hpp).
    if (options_.predictor == FastPredictor::Auto && options_.param_format >= 4) {
        size_t got = width == 8 ? compress_elem_runs<uint64_t>(src, count, dst, cap)
                                : compress_elem_runs<uint32_t>(src, count, dst, cap);
        if (got != 0)
            return got;
    }
    Transform tf;
    if (options_.predictor == FastPredictor::Auto) {
        tf = width == 8 ? fast_detail::choose_transform<uint64_t>(src, count).transform
                        : fast_detail::choose_transform<uint32_t>(src, count).transform;
    } else {
        tf.pred = static_cast<unsigned>(options_.predictor);
        tf.stride = options_.stride == 0 ? 1 : options_.stride;
    }
    return compress_elements(src, count, width, tf, 0, dst, cap);
}

// Element runs worth taking out (a quarter of the block in runs of kMinElemRun or more): the
// run list, then the other elements as a block of their own. 0 if not worth it or no fit.
template <class U>
size_t FastCodec::compress_elem_runs(const uint8_t *src, size_t count, uint8_t *dst, size_t cap)
{
    constexpr size_t w = sizeof(U);
    if (!fast_detail::elem_runs_likely<U>(src, count))
        return 0;
    const size_t covered = fast_detail::find_elem_runs<U>(src, count, runs_);
    if (4 * covered < count || cap < 2)
        return 0;
    const size_t rest = count - covered;
    if (rest_.size() < rest * w)
        rest_.resize(std::max(rest * w, planes_.size()));
    const size_t list =
        fast_detail::encode_elem_runs<U>(src, count, runs_, dst + 1, cap - 1, rest_.data());
    if (list == 0)
        return 0;
    dst[0] = fast_detail::kElemRunsFlag;
    if (rest == 0)
        return 1 + list;
    const Transform tf = fast_detail::choose_transform<U>(rest_.data(), rest).transform;
    const size_t inner =
        compress_elements(rest_.data(), rest, w, tf, 0, dst + 1 + list, cap - 1 - list);
    return inner == 0 ? 0 : 1 + list + inner;
}

template <class U>
zip_status_t FastCodec::decompress_elem_runs(const uint8_t *src, size_t len, zip_elem_type_t type,
                                             uint8_t *dst, size_t count)
{
    constexpr size_t w = sizeof(U);
    if (options_.param_format < 4 || src[0] != fast_detail::kElemRunsFlag)
        return ZIP_E_CORRUPT;
    size_t rest = 0;
    const size_t list =
        fast_detail::parse_elem_runs<U>(src + 1, len - 1, count, runs_, run_values_, &rest);
    if (list == 0)
        return ZIP_E_CORRUPT;
    // The rest decodes at the end of dst; expand_elem_runs moves it down into place.
    zip_status_t st =
        decompress_planes(src + 1 + list, len - 1 - list, type, dst + (count - rest) * w, rest * w);
    if (st != ZIP_OK)
        return st;
    fast_detail::expand_elem_runs<U>(runs_, run_values_, count, dst);
    return ZIP_OK;
}

zip_status_t FastCodec::decompress(const uint8_t *src, size_t len, zip_elem_type_t type,
                                   uint8_t *dst, size_t raw_n)
{
    const size_t w = element_width(type);
    if (len > 0 && w > 1 && (src[0] & fast_detail::kElemRunsFlag) != 0 && raw_n % w == 0) {
        return w == 8 ? decompress_elem_runs<uint64_t>(src, len, type, dst, raw_n / 8)
                      : decompress_elem_runs<uint32_t>(src, len, type, dst, raw_n / 4);
    }
    return decompress_planes(src, len, type, dst, raw_n);
}

zip_status_t FastCodec::decompress_planes(const uint8_t *src, size_t len, zip_elem_type_t type,
                                          uint8_t *dst, size_t raw_n)
{
    size_t width = element_width(type);
    if (raw_n % width != 0)
        return ZIP_E_CORRUPT;
    if (raw_n == 0 && len == 0)
        return ZIP_OK; // an empty block round-trips as nothing
    uint8_t transform = len > 0 ? src[0] : 0;
    if (width == 1 && (transform & kWordsFlag) != 0) {
        if (raw_n % 8 != 0) // bytes coded as 8-byte words
            return ZIP_E_CORRUPT;
        width = 8;
        transform &= static_cast<uint8_t>(~kWordsFlag);
    }
    const size_t count = raw_n / width;
    const size_t nmode = mode_bytes(width), lenbytes = length_field_bytes(count);
    if (len < 1 + nmode || (transform & 0x80) != 0 || (width == 1 && transform != 0))
        return ZIP_E_CORRUPT;
    const Transform tf = Transform::from_byte(transform);
    if (width == 1 && (src[1] >> 2) != 0)
        return ZIP_E_CORRUPT;
    const size_t nseed =
        tf.pred != fast_detail::kPredNone && count > 0 ? std::min(tf.stride, count) * width : 0;
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
            if (coding == kRunsCoding || coding == kSparseCoding) {
                size_t mask_bytes = (count + 7) / 8;
                if (len - pos < mask_bytes)
                    return ZIP_E_CORRUPT;
                const uint8_t *mask = src + pos;
                size_t literals = fast_detail::count_set_bits(mask, mask_bytes);
                unsigned tail = count % 8;
                if ((tail && (mask[mask_bytes - 1] >> tail) != 0) ||
                    len - pos - mask_bytes < literals)
                    return ZIP_E_CORRUPT;
                const uint8_t *lits = mask + mask_bytes;
                if (coding == kRunsCoding)
                    kernels().decode_runs(mask, lits, lits + literals, count, out);
                else
                    kernels().decode_sparse(mask, lits, lits + literals, count, out);
                pos += mask_bytes + literals;
            } else if (coding == kBitsCoding) {
                if (options_.param_format < 3)
                    return ZIP_E_CORRUPT; // not in frames of formats 1 and 2
                size_t got =
                    fast_detail::decode_bitplanes(src + pos, len - pos, count, bits_.data(), out);
                if (got == 0)
                    return ZIP_E_CORRUPT;
                pos += got;
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
        join_and_unpredict<uint64_t>(planes, count, tf, seed, dst);
    else
        join_and_unpredict<uint32_t>(planes, count, tf, seed, dst);
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
                              : static_cast<FastPredictor>(parse_uint_option(key, value, 0, 3));
        else if (key == "stride")
            o.stride = parse_uint_option(key, value, 1, FastOptions::kMaxStride);
        else
            throw SpecError{"fast: unknown option '" + std::string(key) +
                            "' (known: accel=1..64, pred=auto|0|1|2|3, stride=1..32)"};
    });
    if (o.stride != 0 && o.predictor == FastPredictor::Auto)
        throw SpecError{"fast: stride=N needs a fixed predictor (pred=0..3)"};
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
