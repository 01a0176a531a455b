// Unit tests of the bit-plane coding of `fast` (codecs/src/fast_bitplanes.cpp, plane coding 10):
// the coded form on its own (the transpose: test_fast_bitplane_kernels.cpp), then through the
// codec: which blocks choose it, round trips, determinism, format-3 marking and corrupt input.
#include <cstring>

#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "fast.hpp"
#include "fast_bitplanes.hpp"

using namespace codectest;
using namespace zip::fast_detail;

namespace
{

std::unique_ptr<zip::BlockCodec> fast_default()
{
    return zip::make_fast(std::string_view{});
}

// Random doubles in [0.5, 1) whose mantissa bit 21 is always set and bit 50 set 99% of the
// time, the rest of the mantissa noise: like miniVite's coordinates, plane 6 and plane 2 are
// noise as bytes but each hold a skewed bit. Predictor None keeps the planes as they are.
Bytes skewed_bits_f64(size_t count, uint64_t seed)
{
    Rng rng(seed);
    std::vector<uint64_t> v(count);
    for (auto &x : v) {
        uint64_t m = rng.next() & ((uint64_t{1} << 52) - 1);
        m |= uint64_t{1} << 21;
        if (rng.next() % 100 != 0)
            m |= uint64_t{1} << 50;
        else
            m &= ~(uint64_t{1} << 50);
        x = (uint64_t{0x3fe} << 52) | m;
    }
    return as_bytes(v);
}

// The plane coding byte of plane k, walking the planes of a block of predictor None and 256 to
// 65535 elements (2-byte LZ4 lengths): planes 7..k+1 may be zero, raw or LZ4.
int coding_of_plane(const Bytes &block, size_t count, size_t k)
{
    size_t pos = 1 + 2; // transform byte, 2 mode bytes (width 8), no seed for None
    for (size_t p = 8; p-- > k + 1;) {
        unsigned mode = (block[1 + p / 4] >> (2 * (p % 4))) & 3;
        if (mode == 1)
            pos += count;
        else if (mode == 2)
            pos += 2 + (block[pos] | size_t{block[pos + 1]} << 8);
        else if (mode != 0)
            return -1; // not walkable here
    }
    unsigned mode = (block[1 + k / 4] >> (2 * (k % 4))) & 3;
    return mode == 3 ? block[pos] : -1;
}

// The coded form of fast_bitplanes.hpp, bit by bit, with the encoder's choices: a bit plane
// with more ones than zeros is complemented (within count), then stored as nothing if zero,
// sparse if that is smaller than raw, else raw.
Bytes reference_bitplanes(const Bytes &plane)
{
    const size_t count = plane.size(), nb = (count + 7) / 8;
    Bytes out(3);
    unsigned invert = 0, kinds = 0;
    for (unsigned j = 8; j-- > 0;) {
        Bytes bp(nb, 0);
        size_t ones = 0;
        for (size_t i = 0; i < count; ++i) {
            const unsigned bit = (plane[i] >> j) & 1u;
            ones += bit;
            bp[i / 8] = static_cast<uint8_t>(bp[i / 8] | bit << (i % 8));
        }
        if (2 * ones > count) {
            invert |= 1u << j;
            for (size_t i = 0; i < count; ++i)
                bp[i / 8] = static_cast<uint8_t>(bp[i / 8] ^ 1u << (i % 8));
        }
        Bytes mask((nb + 7) / 8, 0), literals;
        for (size_t g = 0; g < nb; ++g) {
            if (bp[g] != 0) {
                mask[g / 8] = static_cast<uint8_t>(mask[g / 8] | 1u << (g % 8));
                literals.push_back(bp[g]);
            }
        }
        unsigned kind = 1; // raw
        if (literals.empty())
            kind = 0;
        else if (mask.size() + literals.size() < nb)
            kind = 2;
        kinds |= kind << (2 * j);
        if (kind == 1)
            out.insert(out.end(), bp.begin(), bp.end());
        if (kind == 2) {
            out.insert(out.end(), mask.begin(), mask.end());
            out.insert(out.end(), literals.begin(), literals.end());
        }
    }
    out[0] = static_cast<uint8_t>(invert);
    out[1] = static_cast<uint8_t>(kinds);
    out[2] = static_cast<uint8_t>(kinds >> 8);
    return out;
}

} // namespace

TEST(FastBitplanes, CodedFormIsTheReferenceEncodersByteForByte)
{
    // The SIMD kernels must not change a frame: every shape of plane, every tail length.
    for (size_t count : {1, 7, 8, 9, 127, 128, 129, 200, 255, 256, 257, 1000, 1021, 4096, 8195}) {
        for (int shape = 0; shape < 7; ++shape) {
            SCOPED_TRACE(testing::Message() << "count " << count << " shape " << shape);
            Bytes plane = random_bytes(count, count * 13 + shape);
            for (size_t i = 0; i < count; ++i) {
                uint8_t &b = plane[i];
                if (shape == 0)
                    b = 0;
                else if (shape == 1)
                    b = 0xff;
                else if (shape == 2)
                    b = static_cast<uint8_t>(b | 0x81);
                else if (shape == 3 && (b & 7) != 0)
                    b = static_cast<uint8_t>(b & 0xf7);
                else if (shape == 4)
                    b = static_cast<uint8_t>(i % 3 ? b | 0x40 : b & 0xbf); // 2/3 ones
                else if (shape == 5 && (b & 0x3f) != 0)
                    b = static_cast<uint8_t>(b | 0x10); // nearly always set
            }                                           // shape 6: noise
            const size_t nb = bitplane_bytes(count);
            Bytes scratch(8 * nb), coded(3 + 8 * nb + 8 * ((nb + 7) / 8));
            size_t len =
                encode_bitplanes(plane.data(), count, scratch.data(), coded.data(), coded.size());
            coded.resize(len);
            EXPECT_EQ(coded, reference_bitplanes(plane));
        }
    }
}

TEST(FastBitplanes, SkewTestSeesANearlyConstantBitAndNotNoise)
{
    Bytes noise = random_bytes(8192, 3);
    EXPECT_FALSE(has_skewed_bit(noise.data(), noise.size()));
    Bytes one = noise;
    for (auto &b : one)
        b |= 0x20; // bit 5 always set
    EXPECT_TRUE(has_skewed_bit(one.data(), one.size()));
    Bytes zero = noise;
    for (auto &b : zero)
        b &= 0x7f;
    EXPECT_TRUE(has_skewed_bit(zero.data(), zero.size()));
    EXPECT_FALSE(has_skewed_bit(zero.data(), 100)); // too small to be worth it
}

TEST(FastBitplanes, CodedFormRoundTripsEdgeCases)
{
    for (size_t count : {1, 5, 8, 9, 63, 64, 65, 200, 1021, 8192}) {
        for (int kind = 0; kind < 5; ++kind) {
            SCOPED_TRACE(testing::Message() << "count " << count << " kind " << kind);
            Bytes plane = random_bytes(count, count * 7 + kind);
            for (auto &b : plane) {
                if (kind == 0)
                    b = 0; // all zero
                else if (kind == 1)
                    b = 0xff; // all ones
                else if (kind == 2)
                    b = static_cast<uint8_t>(b | 0x81); // two constant bits, the rest noise
                else if (kind == 3 && (b & 7) != 0)
                    b = static_cast<uint8_t>(b & 0xf7); // bit 3 rarely set
            }                                           // kind 4: noise (raw bit planes)
            const size_t nb = bitplane_bytes(count);
            Bytes scratch(8 * nb), coded(3 + 8 * nb + 8 * ((nb + 7) / 8));
            size_t len =
                encode_bitplanes(plane.data(), count, scratch.data(), coded.data(), coded.size());
            ASSERT_GT(len, 0u);
            Bytes back(count, 0x11);
            Bytes exact(coded.begin(), coded.begin() + static_cast<ptrdiff_t>(len));
            EXPECT_EQ(
                decode_bitplanes(exact.data(), exact.size(), count, scratch.data(), back.data()),
                len);
            EXPECT_EQ(back, plane);
            if (kind <= 1) {
                EXPECT_EQ(len, 3u); // every bit plane constant: header only
            }
            // Every truncation is refused.
            for (size_t cut = 0; cut < len; ++cut)
                EXPECT_EQ(decode_bitplanes(exact.data(), cut, count, scratch.data(), back.data()),
                          0u);
            // No room: 0, nothing written past the limit.
            if (len > 3) {
                Bytes small(len - 1, 0xcd);
                EXPECT_EQ(
                    encode_bitplanes(plane.data(), count, scratch.data(), small.data(), len - 2),
                    0u);
                EXPECT_EQ(small.back(), 0xcd);
            }
        }
    }
}

TEST(FastBitplanes, RejectsKindThreeAndMaskBitsPastTheEnd)
{
    Bytes scratch(8 * 2), plane(13);
    // Kind 3 for bit plane 0.
    EXPECT_EQ(decode_bitplanes(Bytes{0, 3, 0}.data(), 3, 13, scratch.data(), plane.data()), 0u);
    // Bit plane 0 sparse, 2 bytes: a mask byte with bit 2 set (byte 2 of 2): corrupt.
    EXPECT_EQ(
        decode_bitplanes(Bytes{0, 2, 0, 0x04, 0x55}.data(), 5, 13, scratch.data(), plane.data()),
        0u);
    // The same with bit 1 (the second byte): elements 8..12 get bit 0 from 0x1f.
    Bytes ok = {0, 2, 0, 0x02, 0x1f};
    ASSERT_EQ(decode_bitplanes(ok.data(), ok.size(), 13, scratch.data(), plane.data()), 5u);
    for (size_t i = 0; i < 13; ++i)
        EXPECT_EQ(plane[i], i >= 8 ? 1 : 0) << i;
}

TEST(FastBitplanes, CodecChoosesBitPlanesForSkewedBitsInNoiseAndRoundTrips)
{
    const size_t count = 8192;
    Bytes raw = skewed_bits_f64(count, 11);
    auto codec = zip::make_fast("pred=0");
    Bytes block = compress(*codec, raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(coding_of_plane(block, count, 6), 10); // bit 50 = bit 2 of plane 6
    // Plane 7 (0x3f) goes to LZ4; plane 6's bit 2 and plane 2's bit 5 save nearly 2 bits of
    // the 56 noise bits an element has as bytes.
    EXPECT_LT(block.size(), count * 7 - count / 5);
    expect_round_trip([] { return zip::make_fast("pred=0"); }, raw, ZIP_TYPE_F64);
    expect_round_trip(fast_default, raw, ZIP_TYPE_F64);
    // Without the skewed bits the same noise stays raw (8 KiB planes: no coding 10).
    Bytes noise = random_bytes(count * 8, 5);
    Bytes plain = compress(*codec, noise, ZIP_TYPE_F64, roomy_cap(noise.size()));
    EXPECT_TRUE(plain.empty() || plain.size() >= noise.size());
}

TEST(FastBitplanes, RoundTripsSizesNaNsAndSignedZerosAroundSkewedBits)
{
    Bytes base = skewed_bits_f64(4099, 2);
    std::vector<uint64_t> w = words_of(base);
    std::vector<uint64_t> special = special_f64_bits(); // NaN payloads, -0.0, infinities...
    for (size_t i = 0; i < w.size(); i += 37)
        w[i] = special[i % special.size()];
    Bytes mixed = as_bytes(w);
    for (size_t count : {0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 1000, 4099}) {
        SCOPED_TRACE(count);
        Bytes part(mixed.begin(), mixed.begin() + static_cast<ptrdiff_t>(count * 8));
        expect_round_trip(fast_default, part, ZIP_TYPE_F64);
        expect_round_trip([] { return zip::make_fast("pred=0"); }, part, ZIP_TYPE_F64);
        Bytes f32(part.begin(), part.begin() + static_cast<ptrdiff_t>(count / 2 * 4 * 2));
        expect_round_trip(fast_default, f32, ZIP_TYPE_F32);
    }
    Bytes zeros(65536, 0);
    expect_round_trip(fast_default, zeros, ZIP_TYPE_F64);
    expect_round_trip(fast_default, random_bytes(65536, 9), ZIP_TYPE_F64);
    expect_every_truncation_rejected([] { return zip::make_fast("pred=0"); },
                                     skewed_bits_f64(300, 4), ZIP_TYPE_F64);
    expect_corruption_survived([] { return zip::make_fast("pred=0"); }, skewed_bits_f64(700, 4),
                               ZIP_TYPE_F64, 9);
}

TEST(FastBitplanes, SameInputSameBlockOnFreshAndUsedCodecs)
{
    Bytes raw = skewed_bits_f64(8192, 21);
    auto used = fast_default();
    Bytes first = compress(*used, raw, ZIP_TYPE_F64, raw.size() - 1);
    ASSERT_FALSE(first.empty());
    for (uint64_t i = 0; i < 20; ++i)
        compress(*used, skewed_bits_f64(1000 + 17 * i, i), ZIP_TYPE_F64, 65536);
    EXPECT_EQ(compress(*used, raw, ZIP_TYPE_F64, raw.size() - 1), first);
    EXPECT_EQ(compress(*fast_default(), raw, ZIP_TYPE_F64, raw.size() - 1), first);
}

TEST(FastBitplanes, OnlyFormatThreeFramesMayUseTheBitPlaneCoding)
{
    constexpr uint32_t kFormat2 = 1u << 24, kFormat3 = 1u << 25;
    EXPECT_EQ(fast_default()->param() & (kFormat2 | kFormat3), kFormat2 | kFormat3); // and 4
    EXPECT_EQ(zip::make_fast(kFormat3), nullptr); // format 3 is format 2 plus bit 25
    Bytes raw = skewed_bits_f64(8192, 11);
    Bytes block = compress(*zip::make_fast("pred=0"), raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_EQ(coding_of_plane(block, 8192, 6), 10);
    auto v2 = zip::make_fast(kFormat2);
    ASSERT_NE(v2, nullptr);
    EXPECT_EQ(decode_exact(*v2, block, ZIP_TYPE_F64, raw.size()), ZIP_E_CORRUPT);
    // A format-2 codec does not write coding 10 either.
    Bytes old =
        compress(*zip::make_fast(kFormat2 | (1u << 8)), raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(old.empty());
    EXPECT_NE(coding_of_plane(old, 8192, 6), 10);
    auto v3 = fast_default();
    Bytes back(raw.size());
    EXPECT_EQ(decode_exact(*v3, old, ZIP_TYPE_F64, raw.size()), ZIP_OK);
}

TEST(FastBitplanes, AutoPredictorKeepsConstantBitsOfNoiseWithXor)
{
    // Noise in one binade with a mantissa bit always set: differences carry into that bit, Xor
    // keeps it (and the exponent) constant, so the estimate's credit for constant bits picks
    // Xor with stride 1 (transform byte 3), and the block is smaller than Delta1's.
    Bytes raw = skewed_bits_f64(8192, 31);
    Bytes block = compress(*fast_default(), raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(block[0], 3);
    Bytes delta1 = compress(*zip::make_fast("pred=1"), raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_FALSE(delta1.empty());
    EXPECT_LT(block.size() * 100, delta1.size() * 99);
    // Smooth data keeps its extrapolating predictor (no credit outside noise).
    std::vector<double> smooth(8192);
    for (size_t i = 0; i < smooth.size(); ++i)
        smooth[i] = 1.0 + 1e-3 * double(i) * double(i) / 8192.0;
    Bytes s = compress(*fast_default(), as_bytes(smooth), ZIP_TYPE_F64, roomy_cap(8192 * 8));
    ASSERT_FALSE(s.empty());
    EXPECT_EQ(s[0] & 3, 2); // Delta2
}
