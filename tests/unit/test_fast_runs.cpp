// Unit tests of the element runs of `fast` (codecs/src/fast_runs.cpp, frame format 4): the run
// search against a plain scan, the run list on its own, then through the codec: which blocks
// take the runs out, round trips (NaN payloads, -0.0, odd sizes, all equal, alternating, tiny
// blocks), determinism, format-4 marking, and truncated or corrupt blocks.
#include <cstring>

#include "block_codec_checks.hpp"
#include "codec_registry.hpp"
#include "fast.hpp"
#include "fast_runs.hpp"

using namespace codectest;
using namespace zip::fast_detail;

namespace
{

std::unique_ptr<zip::BlockCodec> fast_default()
{
    return zip::make_fast(std::string_view{});
}

// A halo-like block: runs of zeros, of constants and of special values (NaN payloads, -0.0,
// infinities) between stretches of a smooth field, run lengths from 1 to ~600.
template <class U> std::vector<U> halo(size_t count, uint64_t seed)
{
    Rng rng(seed);
    std::vector<U> v;
    const std::vector<uint64_t> specials = {0x7ff8000000000123ull, 0xfff0000000000001ull,
                                            0x8000000000000000ull, 0x7ff0000000000000ull,
                                            0x3ff0000000000000ull};
    double x = 0.5;
    while (v.size() < count) {
        const uint64_t r = rng.next();
        const size_t len = 1 + (r >> 8) % 600;
        switch (r % 4) {
        case 0:
            v.insert(v.end(), len, U{0});
            break;
        case 1:
            v.insert(v.end(), len, static_cast<U>(specials[(r >> 20) % specials.size()]));
            break;
        case 2:
            v.insert(v.end(), len % 20, static_cast<U>(rng.next()));
            break; // short runs
        default:
            for (size_t i = 0; i < len; ++i) {
                x += 1e-3 * double(i % 7);
                U u;
                if constexpr (sizeof(U) == 8) {
                    std::memcpy(&u, &x, 8);
                } else {
                    float f = float(x);
                    std::memcpy(&u, &f, 4);
                }
                v.push_back(u);
            }
        }
    }
    v.resize(count);
    return v;
}

template <class U> void expect_search_matches_reference(const std::vector<U> &v)
{
    std::vector<ElemRun> fast, ref;
    const auto *p = reinterpret_cast<const uint8_t *>(v.data());
    size_t a = find_elem_runs<U>(p, v.size(), fast);
    size_t b = find_elem_runs_reference<U>(p, v.size(), ref);
    ASSERT_EQ(a, b);
    ASSERT_EQ(fast.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
        EXPECT_EQ(fast[i].start, ref[i].start) << i;
        EXPECT_EQ(fast[i].len, ref[i].len) << i;
    }
}

// The transform byte of a block: kElemRunsFlag when the runs were taken out.
bool takes_runs(const Bytes &block)
{
    return !block.empty() && block[0] == kElemRunsFlag;
}

const CodecFactory kFast = fast_default;

} // namespace

TEST(FastRuns, SearchFindsTheMaximalRunsOfAPlainScan)
{
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        expect_search_matches_reference(halo<uint64_t>(100 + seed * 97, seed));
        expect_search_matches_reference(halo<uint32_t>(100 + seed * 89, seed));
    }
    // Periodic data (every probe pair equal, no run), runs of exactly 15, 16, 17 at every
    // offset from the probe grid, runs at both ends.
    std::vector<uint64_t> alt(1000);
    for (size_t i = 0; i < alt.size(); ++i)
        alt[i] = i % 2 ? 0x3ff0000000000000ull : 0x4000000000000000ull;
    expect_search_matches_reference(alt);
    for (size_t len : {15u, 16u, 17u, 31u, 32u, 33u})
        for (size_t off = 0; off < 24; ++off) {
            std::vector<uint64_t> v(off + len + 30);
            for (size_t i = 0; i < v.size(); ++i)
                v[i] = i + 1000;
            for (size_t i = off; i < off + len; ++i)
                v[i] = 7;
            expect_search_matches_reference(v);
            std::vector<uint64_t> tail(v.begin(), v.begin() + long(off + len)); // run at the end
            expect_search_matches_reference(tail);
        }
    for (size_t n : {0u, 1u, 8u, 9u, 15u, 16u, 17u, 100u})
        expect_search_matches_reference(std::vector<uint64_t>(n, 42));
}

TEST(FastRuns, RunListRoundTripsOnItsOwn)
{
    auto v = halo<uint64_t>(5000, 3);
    const auto *src = reinterpret_cast<const uint8_t *>(v.data());
    std::vector<ElemRun> runs;
    size_t covered = find_elem_runs<uint64_t>(src, v.size(), runs);
    ASSERT_GT(runs.size(), 0u);
    std::vector<uint8_t> list(1 << 16), rest((v.size() - covered) * 8 + 1);
    size_t n =
        encode_elem_runs<uint64_t>(src, v.size(), runs, list.data(), list.size(), rest.data());
    ASSERT_GT(n, 0u);
    std::vector<ElemRun> got;
    std::vector<uint64_t> values;
    size_t nrest = 0;
    ASSERT_EQ(parse_elem_runs<uint64_t>(list.data(), n, v.size(), got, values, &nrest), n);
    ASSERT_EQ(nrest, v.size() - covered);
    std::vector<uint64_t> out(v.size(), 0xdeadbeef);
    std::memcpy(out.data() + covered, rest.data(), nrest * 8);
    expand_elem_runs<uint64_t>(got, values, v.size(), reinterpret_cast<uint8_t *>(out.data()));
    EXPECT_EQ(out, v);
    // Too small a capacity is refused, never overrun.
    for (size_t cap = 0; cap < n; ++cap)
        EXPECT_EQ(encode_elem_runs<uint64_t>(src, v.size(), runs, list.data(), cap, rest.data()),
                  0u);
}

TEST(FastRuns, HaloBlocksTakeTheRunsOutAndRoundTripBitExact)
{
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        for (size_t count : {64u, 999u, 2048u, 8191u, 8192u}) {
            Bytes raw64 = as_bytes(halo<uint64_t>(count, seed));
            auto c = fast_default();
            Bytes block = compress(*c, raw64, ZIP_TYPE_F64, roomy_cap(raw64.size()));
            if (count >= 999) { // 64 elements may hold too few long runs
                EXPECT_TRUE(takes_runs(block)) << count;
                EXPECT_LT(block.size(), raw64.size() / 2);
            }
            expect_round_trip(kFast, raw64, ZIP_TYPE_F64, seed % 8, (seed * 3) % 8);
            Bytes raw32 = as_bytes(halo<uint32_t>(count, seed));
            expect_round_trip(kFast, raw32, ZIP_TYPE_F32, seed % 4, 0);
            expect_round_trip(kFast, raw32, ZIP_TYPE_I32);
            expect_round_trip(kFast, raw64, ZIP_TYPE_I64);
        }
    }
}

TEST(FastRuns, EdgeCasesRoundTrip)
{
    // All equal (the rest is empty), all zero, NaN payload and -0.0 runs, alternating values
    // (no runs), runs at the very start and end, tiny blocks.
    for (uint64_t value : {0ull, 0x8000000000000000ull, 0x7ff8dead0000beefull,
                           0xfff0000000000001ull, 0x3ff0000000000000ull}) {
        for (size_t count : {1u, 2u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 8192u}) {
            Bytes raw = as_bytes(std::vector<uint64_t>(count, value));
            expect_round_trip(kFast, raw, ZIP_TYPE_F64);
            Bytes raw32 = as_bytes(std::vector<uint32_t>(count, uint32_t(value >> 32)));
            expect_round_trip(kFast, raw32, ZIP_TYPE_F32);
        }
    }
    auto c = fast_default();
    Bytes all = as_bytes(std::vector<uint64_t>(8192, 0x7ff8dead0000beefull));
    Bytes block = compress(*c, all, ZIP_TYPE_F64, roomy_cap(all.size()));
    EXPECT_TRUE(takes_runs(block));
    EXPECT_LE(block.size(), 16u); // flag, count, gap, length, value
    std::vector<uint64_t> alt(4096);
    for (size_t i = 0; i < alt.size(); ++i)
        alt[i] = i % 2 ? 0x8000000000000000ull : 0x7ff8000000000001ull;
    expect_round_trip(kFast, as_bytes(alt), ZIP_TYPE_F64);
    EXPECT_FALSE(takes_runs(compress(*c, as_bytes(alt), ZIP_TYPE_F64, roomy_cap(alt.size() * 8))));
    std::vector<uint64_t> ends(3000, 0);
    for (size_t i = 100; i < 2900; ++i)
        ends[i] = i * 0x9e3779b97f4a7c15ull;
    for (size_t i = 1000; i < 2000; ++i)
        ends[i] = 0x8000000000000000ull;
    expect_round_trip(kFast, as_bytes(ends), ZIP_TYPE_F64);
    EXPECT_TRUE(takes_runs(compress(*c, as_bytes(ends), ZIP_TYPE_F64, roomy_cap(ends.size() * 8))));
    // Odd element counts and the contract's capacity rule.
    for (size_t count : {33u, 257u, 1001u})
        expect_capacity_respected(kFast, as_bytes(halo<uint64_t>(count, count)), ZIP_TYPE_F64);
}

TEST(FastRuns, SmoothFieldsDoNotTakeTheRunPath)
{
    auto c = fast_default();
    for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32}) {
        Bytes raw = smooth(type, 8192);
        EXPECT_FALSE(takes_runs(compress(*c, raw, type, roomy_cap(raw.size()))));
    }
}

TEST(FastRuns, OutputIsDeterministicAndMarkedFormat4)
{
    Bytes raw = as_bytes(halo<uint64_t>(8192, 5));
    auto a = fast_default(), b = fast_default();
    compress(*a, random_bytes(65536, 9), ZIP_TYPE_F64, roomy_cap(65536)); // a used context
    EXPECT_EQ(compress(*a, raw, ZIP_TYPE_F64, roomy_cap(raw.size())),
              compress(*b, raw, ZIP_TYPE_F64, roomy_cap(raw.size())));
    EXPECT_EQ(a->param() & (1u << 26), 1u << 26);
    // A decoder for a format-3 frame (parameter without bit 26) rejects run blocks.
    auto old = zip::make_fast(a->param() & ~(1u << 26));
    ASSERT_NE(old, nullptr);
    Bytes block = compress(*a, raw, ZIP_TYPE_F64, roomy_cap(raw.size()));
    ASSERT_TRUE(takes_runs(block));
    EXPECT_EQ(decode_exact(*old, block, ZIP_TYPE_F64, raw.size()), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*a, block, ZIP_TYPE_F64, raw.size()), ZIP_OK);
    // Bit 26 without bit 25 is not a valid parameter.
    EXPECT_EQ(zip::make_fast((1u << 24) | (1u << 26)), nullptr);
}

TEST(FastRuns, TruncatedAndCorruptBlocksAreRejected)
{
    Bytes raw = as_bytes(halo<uint64_t>(3000, 7));
    expect_every_truncation_rejected(kFast, raw, ZIP_TYPE_F64);
    expect_corruption_survived(kFast, raw, ZIP_TYPE_F64, 17);
    Bytes all = as_bytes(std::vector<uint64_t>(512, 0));
    expect_every_truncation_rejected(kFast, all, ZIP_TYPE_F64);
    expect_every_truncation_rejected(kFast, as_bytes(halo<uint32_t>(2000, 8)), ZIP_TYPE_F32);
    // Hand-made lists: runs past the block, a zero count, a nonzero-flagged zero value,
    // an overlong varint, the flag with other transform bits.
    auto c = fast_default();
    const size_t n = 64 * 8;
    EXPECT_EQ(decode_exact(*c, Bytes{0x80, 1, 0, 2 * 49}, ZIP_TYPE_F64, n), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*c, Bytes{0x80, 2, 0, 2 * 30, 0, 2 * 3}, ZIP_TYPE_F64, n),
              ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*c, Bytes{0x80, 1, 1, 2 * 48}, ZIP_TYPE_F64, n), ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*c, Bytes{0x80, 0}, ZIP_TYPE_F64, n), ZIP_E_CORRUPT);
    EXPECT_EQ(
        decode_exact(*c, Bytes{0x80, 1, 0, 2 * 48 + 1, 0, 0, 0, 0, 0, 0, 0, 0}, ZIP_TYPE_F64, n),
        ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*c, Bytes{0x80, 0x81, 0x80, 0x80, 0x80, 0x80, 0}, ZIP_TYPE_F64, n),
              ZIP_E_CORRUPT);
    EXPECT_EQ(decode_exact(*c, Bytes{0x81, 1, 0, 2 * 48}, ZIP_TYPE_F64, n), ZIP_E_CORRUPT);
    // The exact form of a whole-block zero run decodes.
    Bytes ok{0x80, 1, 0, 2 * (64 - 16)};
    Bytes out(n, 1);
    ASSERT_EQ(c->decompress(ok.data(), ok.size(), ZIP_TYPE_F64, out.data(), n), ZIP_OK);
    EXPECT_EQ(out, Bytes(n, 0));
}
