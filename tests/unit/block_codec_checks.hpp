// Checks shared by the unit tests of the predictive block codecs (fpc, dfcm, xorlz): data
// generators, a block round trip at any alignment, and corruption drills. They call the
// BlockCodec interface directly, below the frame layer, so a failure points at the codec.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "codec.hpp"

namespace codectest
{

using CodecFactory = std::function<std::unique_ptr<zip::BlockCodec>()>;
using Bytes = std::vector<uint8_t>;

inline size_t elem_size(zip_elem_type_t type)
{
    return zip_elem_size(type);
}

// xorshift64: deterministic, seedable, no dependence on the standard library's distributions.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ull + 1) {}
    uint64_t next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
};

template <class T> Bytes as_bytes(const std::vector<T> &v)
{
    Bytes b(v.size() * sizeof(T));
    if (!b.empty())
        std::memcpy(b.data(), v.data(), b.size());
    return b;
}

// The whole 64-bit words of a block, for the reference encoders that work on words.
inline std::vector<uint64_t> words_of(const Bytes &b)
{
    std::vector<uint64_t> w(b.size() / 8);
    std::memcpy(w.data(), b.data(), w.size() * 8);
    return w;
}

// A smooth field: what FPC and DFCM are made for.
inline Bytes smooth(zip_elem_type_t type, size_t count)
{
    std::vector<double> d(type == ZIP_TYPE_BYTES ? (count + 7) / 8 : count);
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = 1000.0 * std::sin(double(i) * 0.001) + 0.25 * std::cos(double(i) * 0.0173);
    if (type == ZIP_TYPE_F32) {
        std::vector<float> f(d.begin(), d.end());
        return as_bytes(f);
    }
    Bytes b = as_bytes(d);
    b.resize(count * elem_size(type));
    return b;
}

inline Bytes random_bytes(size_t n, uint64_t seed)
{
    Rng rng(seed);
    Bytes b(n);
    for (auto &x : b)
        x = uint8_t(rng.next() >> 56);
    return b;
}

// NaNs with assorted payloads (quiet and signalling, both signs), +-0, +-inf, denormals, the
// extremes, interleaved with ordinary values so that predictions keep missing.
inline std::vector<uint64_t> special_f64_bits()
{
    std::vector<uint64_t> v = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                               0x7ff4000000000000ull, 0xfff0000000dead01ull, 0x7fffffffffffffffull,
                               0xffffffffffffffffull, 0x7ff800000000beefull, 0x0000000000000000ull,
                               0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                               0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
                               0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                               0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fb999999999999aull};
    size_t base = v.size();
    for (size_t rep = 0; rep < 20; ++rep)
        for (size_t i = 0; i < base; ++i)
            v.push_back(v[(i * 7 + rep) % base] ^ (rep & 1 ? 0 : uint64_t(rep)));
    return v;
}

inline std::vector<uint32_t> special_f32_bits()
{
    std::vector<uint32_t> v = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0xff80beefu,
                               0x7fffffffu, 0xffffffffu, 0x00000000u, 0x80000000u, 0x7f800000u,
                               0xff800000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u,
                               0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x3dcccccdu};
    size_t base = v.size();
    for (size_t rep = 0; rep < 20; ++rep)
        for (size_t i = 0; i < base; ++i)
            v.push_back(v[(i * 5 + rep) % base] ^ (rep & 1 ? 0 : uint32_t(rep)));
    return v;
}

// Roomy capacity for round-trip tests: the codecs may expand incompressible data, and the
// contract's cap < n is exercised separately.
inline size_t roomy_cap(size_t n)
{
    return 2 * n + 64;
}

inline Bytes compress(zip::BlockCodec &codec, const Bytes &raw, zip_elem_type_t type, size_t cap)
{
    Bytes out(cap);
    size_t len = codec.compress(raw.data(), raw.size(), type, out.data(), cap);
    out.resize(len);
    return out;
}

// Compresses with one codec instance and decompresses with another (as the receiving rank
// would), with src and dst at the given offsets from a 64-byte boundary; expects bit-exact
// equality and returns the compressed size.
inline size_t expect_round_trip(const CodecFactory &make, const Bytes &raw, zip_elem_type_t type,
                                size_t src_offset = 0, size_t dst_offset = 0)
{
    auto enc = make(), dec = make();
    size_t cap = roomy_cap(raw.size());
    std::vector<uint8_t> src_store(raw.size() + 128), comp_store(cap + 128),
        out_store(raw.size() + 128);
    auto aligned = [](std::vector<uint8_t> &s, size_t off) {
        auto base = reinterpret_cast<uintptr_t>(s.data());
        return s.data() + (64 - base % 64) % 64 + off;
    };
    uint8_t *src = aligned(src_store, src_offset);
    uint8_t *comp = aligned(comp_store, dst_offset);
    uint8_t *out = aligned(out_store, dst_offset);
    if (!raw.empty())
        std::memcpy(src, raw.data(), raw.size());
    size_t len = enc->compress(src, raw.size(), type, comp, cap);
    if (raw.empty())
        EXPECT_EQ(len, 0u);
    else
        EXPECT_GT(len, 0u) << "compress failed with a roomy capacity";
    EXPECT_EQ(dec->decompress(comp, len, type, out, raw.size()), ZIP_OK);
    EXPECT_TRUE(raw.empty() || std::memcmp(out, raw.data(), raw.size()) == 0)
        << "round trip is not bit-exact (" << raw.size() << " bytes)";
    return len;
}

// compress() with cap < n: either 0 or a block that fits and decodes.
inline void expect_capacity_respected(const CodecFactory &make, const Bytes &raw,
                                      zip_elem_type_t type)
{
    auto codec = make();
    size_t full = compress(*codec, raw, type, roomy_cap(raw.size())).size();
    for (size_t cap = 0; cap < raw.size(); cap += 1 + cap / 16) {
        Bytes out(cap + 16, 0xa5); // guard bytes after cap
        size_t len = codec->compress(raw.data(), raw.size(), type, out.data(), cap);
        for (size_t i = cap; i < out.size(); ++i)
            ASSERT_EQ(out[i], 0xa5) << "wrote past cap " << cap;
        if (cap >= full) {
            ASSERT_EQ(len, full) << "did not fit exactly at cap " << cap;
        }
        if (len == 0)
            continue;
        ASSERT_LE(len, cap);
        Bytes back(raw.size());
        ASSERT_EQ(codec->decompress(out.data(), len, type, back.data(), back.size()), ZIP_OK);
        ASSERT_EQ(back, raw);
    }
}

// Decoding into an exact-size heap buffer lets AddressSanitizer catch any stray access.
inline zip_status_t decode_exact(zip::BlockCodec &codec, const Bytes &block, zip_elem_type_t type,
                                 size_t raw_n)
{
    auto in = std::make_unique<uint8_t[]>(block.size() + 1);
    if (!block.empty())
        std::memcpy(in.get(), block.data(), block.size());
    auto out = std::make_unique<uint8_t[]>(raw_n + 1);
    return codec.decompress(in.get(), block.size(), type, out.get(), raw_n);
}

// Every strict prefix of a valid block must be rejected: the format has no slack.
inline void expect_every_truncation_rejected(const CodecFactory &make, const Bytes &raw,
                                             zip_elem_type_t type)
{
    auto codec = make();
    Bytes block = compress(*codec, raw, type, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    for (size_t len = 0; len < block.size(); ++len) {
        Bytes cut(block.begin(), block.begin() + long(len));
        EXPECT_EQ(decode_exact(*codec, cut, type, raw.size()), ZIP_E_CORRUPT) << "length " << len;
    }
    Bytes longer = block;
    longer.push_back(0);
    EXPECT_EQ(decode_exact(*codec, longer, type, raw.size()), ZIP_E_CORRUPT);
}

// Bit flips and garbage: any status is fine as long as nothing is read or written out of bounds
// (run under -fsanitize=address,undefined); a clean decode must at least report ZIP_OK.
inline void expect_corruption_survived(const CodecFactory &make, const Bytes &raw,
                                       zip_elem_type_t type, uint64_t seed)
{
    auto codec = make();
    Bytes block = compress(*codec, raw, type, roomy_cap(raw.size()));
    ASSERT_FALSE(block.empty());
    Rng rng(seed);
    int rejected = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        Bytes bad = block;
        int flips = 1 + int(rng.next() % 4);
        for (int f = 0; f < flips; ++f) {
            uint64_t r = rng.next();
            bad[(r >> 8) % bad.size()] ^= uint8_t(1u << (r & 7));
        }
        zip_status_t s = decode_exact(*codec, bad, type, raw.size());
        EXPECT_TRUE(s == ZIP_OK || s == ZIP_E_CORRUPT);
        rejected += s == ZIP_E_CORRUPT;
    }
    for (int trial = 0; trial < 500; ++trial) {
        Bytes junk = random_bytes(rng.next() % (2 * block.size() + 2), rng.next());
        zip_status_t s = decode_exact(*codec, junk, type, raw.size());
        EXPECT_TRUE(s == ZIP_OK || s == ZIP_E_CORRUPT);
    }
    // The codec is still usable after all that.
    Bytes again = compress(*codec, raw, type, roomy_cap(raw.size()));
    EXPECT_EQ(again, block);
    testing::Test::RecordProperty("bit_flip_rejections", rejected);
}

// Blocks are independent: coding block B after block A gives the same bytes as coding B alone,
// and the decoder needs no history either.
inline void expect_blocks_independent(const CodecFactory &make, zip_elem_type_t type)
{
    Bytes a = random_bytes(4096, 11), b = smooth(type, 4096 / elem_size(type));
    auto warm = make(), fresh = make();
    compress(*warm, a, type, roomy_cap(a.size()));
    Bytes b_warm = compress(*warm, b, type, roomy_cap(b.size()));
    Bytes b_fresh = compress(*fresh, b, type, roomy_cap(b.size()));
    EXPECT_EQ(b_warm, b_fresh);
    Bytes back(b.size());
    auto dec = make();
    Bytes a_block = compress(*dec, a, type, roomy_cap(a.size()));
    Bytes a_back(a.size());
    ASSERT_EQ(dec->decompress(a_block.data(), a_block.size(), type, a_back.data(), a.size()),
              ZIP_OK);
    ASSERT_EQ(dec->decompress(b_fresh.data(), b_fresh.size(), type, back.data(), b.size()), ZIP_OK);
    EXPECT_EQ(back, b);
}

// An empty block may come with null pointers: nothing to write, nothing to read, no UB.
inline void expect_empty_block_handled(const CodecFactory &make)
{
    auto codec = make();
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES}) {
        EXPECT_EQ(codec->compress(nullptr, 0, type, nullptr, 0), 0u);
        EXPECT_EQ(codec->decompress(nullptr, 0, type, nullptr, 0), ZIP_OK);
        uint8_t one = 0;
        EXPECT_EQ(codec->decompress(&one, 1, type, nullptr, 0), ZIP_E_CORRUPT);
    }
}

} // namespace codectest
