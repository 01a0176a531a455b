// The benchmark data sets (perftest/data/zipdata.h): deterministic, never constant, and with the
// shapes and values zipdata.h documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "zipdata.h"

namespace
{

uint64_t bits_of(double d)
{
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

uint32_t bits_of(float f)
{
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

std::vector<double> fill(const char *name, size_t n, uint64_t seed = 1)
{
    std::vector<double> v(n);
    EXPECT_EQ(zipdata_fill(name, v.data(), n, seed), ZIPDATA_OK) << name;
    return v;
}

// FNV-1a over the bit patterns: a fingerprint of a data set.
uint64_t fingerprint(const std::vector<double> &v)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (double d : v) {
        uint64_t b = bits_of(d);
        for (int i = 0; i < 8; ++i)
            h = (h ^ ((b >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
    }
    return h;
}

bool same_bits(const std::vector<double> &a, const std::vector<double> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::vector<std::string> all_names()
{
    std::vector<std::string> names;
    for (size_t i = 0; i < zipdata_count(); ++i)
        names.emplace_back(zipdata_name(i));
    return names;
}

constexpr size_t kEdge = 128; // heat3d box edge (zipdata.h)

} // namespace

TEST(ZipData, ListsTheIssueDataSets)
{
    std::vector<std::string> names = all_names();
    std::set<std::string> unique(names.begin(), names.end());
    EXPECT_EQ(unique.size(), names.size());
    for (const char *want :
         {"linear", "gauss-256", "gauss-512-sorted", "gauss-1024", "sincos-256-sorted",
          "sincos-1024", "heat3d", "heat3d-halo", "random", "random-unit", "special"})
        EXPECT_TRUE(unique.count(want)) << want;
    EXPECT_EQ(zipdata_name(zipdata_count()), nullptr);
    for (const std::string &n : names)
        EXPECT_NE(zipdata_description(n.c_str()), nullptr) << n;
}

TEST(ZipData, RejectsUnknownNamesAndNullBuffers)
{
    double d;
    EXPECT_EQ(zipdata_fill("no-such-set", &d, 1, 0), ZIPDATA_E_NAME);
    EXPECT_EQ(zipdata_fill(nullptr, &d, 1, 0), ZIPDATA_E_NAME);
    EXPECT_EQ(zipdata_fill("linear", nullptr, 1, 0), ZIPDATA_E_ARG);
    EXPECT_EQ(zipdata_fill("linear", nullptr, 0, 0), ZIPDATA_OK);
    EXPECT_EQ(zipdata_fill("heat3d", &d, 1, ZIPDATA_MAX_STEP + 1), ZIPDATA_E_ARG);
    EXPECT_EQ(zipdata_natural_count("no-such-set"), 0u);
    EXPECT_EQ(zipdata_description("no-such-set"), nullptr);
}

TEST(ZipData, EverySetIsDeterministicAndNotConstant)
{
    const size_t n = 4096;
    for (const std::string &name : all_names()) {
        std::vector<double> a = fill(name.c_str(), n, 3), b = fill(name.c_str(), n, 3);
        EXPECT_TRUE(same_bits(a, b)) << name;
        std::set<uint64_t> distinct;
        for (double d : a)
            distinct.insert(bits_of(d));
        EXPECT_GT(distinct.size(), n / 16) << name << " is (nearly) constant";
    }
}

TEST(ZipData, ValueKDoesNotDependOnN)
{
    // codecbench and zipbench take prefixes of a big buffer: that must equal a small fill.
    for (const std::string &name : all_names()) {
        std::vector<double> small = fill(name.c_str(), 1000, 7), big = fill(name.c_str(), 5000, 7);
        big.resize(small.size());
        EXPECT_TRUE(same_bits(small, big)) << name;
    }
}

TEST(ZipData, SeedChangesOnlySeededSets)
{
    for (const std::string &name : all_names()) {
        bool differ = !same_bits(fill(name.c_str(), 512, 1), fill(name.c_str(), 512, 2));
        EXPECT_EQ(differ, zipdata_uses_seed(name.c_str()) != 0) << name;
    }
}

TEST(ZipData, FingerprintsAreStable)
{
    // Bit-exact across machines and releases: a change here means every recorded benchmark and
    // every rank regenerating a peer's data disagree with older builds. Update only on purpose.
    EXPECT_EQ(fingerprint(fill("linear", 4096)), 0xfba71c980d51d3b0ull);
    EXPECT_EQ(fingerprint(fill("gauss-256", 65536)), 0x8d91bc971edea02cull);
    EXPECT_EQ(fingerprint(fill("sincos-512-sorted", 262144)), 0x692537c20f993be4ull);
    EXPECT_EQ(fingerprint(fill("heat3d", 65536, 3)), 0xc57e1360db222937ull);
    EXPECT_EQ(fingerprint(fill("random", 4096, 42)), 0x65711301d43c37b3ull);
    EXPECT_EQ(fingerprint(fill("special", 4096, 42)), 0x538fa2d23ddc5fe9ull);
    EXPECT_EQ(fingerprint(fill("heat3d-halo", 2000000, 50)), 0x497bae627f911a94ull);
}

TEST(ZipData, LinearIsAx)
{
    std::vector<double> v = fill("linear", 131072);
    for (size_t k = 0; k < v.size(); ++k)
        ASSERT_EQ(v[k], ZIPDATA_LINEAR_A * static_cast<double>(k));
}

TEST(ZipData, GaussPeaksAtOneInTheCentre)
{
    for (size_t npts : {256, 512, 1024}) {
        std::string name = "gauss-" + std::to_string(npts);
        ASSERT_EQ(zipdata_natural_count(name.c_str()), npts * npts);
        std::vector<double> v = fill(name.c_str(), npts * npts);
        EXPECT_EQ(v[(npts / 2) * npts + npts / 2], 1.0) << name;
        EXPECT_EQ(*std::max_element(v.begin(), v.end()), 1.0) << name;
        // Corner (-2, -2): exp(-4) exp(-4); edges are symmetric about the centre.
        EXPECT_NEAR(v[0], std::exp(-8.0), 1e-16) << name;
        EXPECT_EQ(v[1], v[npts - 1]) << name; // x = -2 + dx and x = 2 - dx
        for (double d : v)
            ASSERT_GT(d, 0.0);
    }
}

TEST(ZipData, SinCosMatchesLibmOnTheGrid)
{
    const size_t npts = 256;
    std::vector<double> v = fill("sincos-256", npts * npts);
    const double dx = 12.0 / npts;
    for (size_t j = 0; j < npts; j += 17)
        for (size_t i = 0; i < npts; i += 13) {
            double x = -6.0 + dx * static_cast<double>(i), y = -6.0 + dx * static_cast<double>(j);
            ASSERT_NEAR(v[j * npts + i], std::sin(x) * std::cos(y), 4e-16) << i << "," << j;
        }
    EXPECT_EQ(v[(npts / 2) * npts + npts / 2], 0.0); // sin(0) cos(0)
    for (double d : v)
        ASSERT_LE(std::fabs(d), 1.0);
}

TEST(ZipData, SortedIsTheAscendingPermutationOfNatural)
{
    for (std::string base : {"gauss-512", "sincos-256", "sincos-1024"}) {
        size_t n = zipdata_natural_count(base.c_str());
        std::vector<double> natural = fill(base.c_str(), n),
                            sorted = fill((base + "-sorted").c_str(), n);
        for (size_t k = 1; k < n; ++k)
            ASSERT_LE(sorted[k - 1], sorted[k]) << base << " at " << k;
        std::vector<uint64_t> a, b;
        for (double d : natural)
            a.push_back(bits_of(d));
        for (double d : sorted)
            b.push_back(bits_of(d));
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << base;
        if (base.starts_with("gauss")) {
            EXPECT_EQ(sorted.back(), 1.0);
        }
    }
}

TEST(ZipData, GridsRepeatBeyondTheirSize)
{
    const size_t grid = 256 * 256;
    for (const char *name : {"gauss-256", "sincos-256-sorted"}) {
        std::vector<double> v = fill(name, grid + 1000);
        for (size_t k = 0; k < 1000; ++k)
            ASSERT_EQ(bits_of(v[grid + k]), bits_of(v[k])) << name;
    }
}

TEST(ZipData, AliasesNameTheBigGrids)
{
    EXPECT_TRUE(same_bits(fill("gauss", 5000), fill("gauss-1024", 5000)));
    EXPECT_TRUE(same_bits(fill("sincos-sorted", 5000), fill("sincos-1024-sorted", 5000)));
    EXPECT_TRUE(same_bits(fill("heat", 5000, 2), fill("heat3d", 5000, 2)));
}

TEST(ZipData, RandomIsFiniteAndVaried)
{
    std::vector<double> v = fill("random", 65536, 9);
    std::set<uint64_t> exponents;
    for (double d : v) {
        ASSERT_TRUE(std::isfinite(d));
        exponents.insert(bits_of(d) >> 52);
    }
    EXPECT_GT(exponents.size(), 1000u); // all of the exponent range, not just [0,1)
    for (double d : fill("random-unit", 65536, 9))
        ASSERT_TRUE(d >= 0.0 && d < 1.0);
}

TEST(ZipData, SpecialHasEveryKindOfCornerCase)
{
    std::vector<double> v = fill("special", 4096, 5);
    size_t qnan_pos = 0, qnan_neg = 0, snan_pos = 0, snan_neg = 0, payload = 0, neg_zero = 0,
           pos_zero = 0, inf = 0, denormal = 0, normal = 0;
    for (double d : v) {
        uint64_t b = bits_of(d);
        bool neg = b >> 63;
        uint64_t mant = b & 0x000FFFFFFFFFFFFFull;
        if (std::isnan(d)) {
            bool quiet = mant >> 51;
            (quiet ? (neg ? qnan_neg : qnan_pos) : (neg ? snan_neg : snan_pos))++;
            payload += (mant & 0x0007FFFFFFFFFFFFull) != 0;
        } else if (d == 0.0) {
            (neg ? neg_zero : pos_zero)++;
        } else if (std::isinf(d)) {
            inf++;
        } else if (std::fpclassify(d) == FP_SUBNORMAL) {
            denormal++;
        } else {
            normal++;
        }
    }
    for (size_t count :
         {qnan_pos, qnan_neg, snan_pos, snan_neg, payload, neg_zero, pos_zero, inf, denormal})
        EXPECT_GT(count, 20u);
    EXPECT_GT(normal, v.size() / 3); // mixed with ordinary values
    // The fixed catalogue at the start.
    EXPECT_EQ(bits_of(v[1]), 0x8000000000000000ull); // -0.0
    EXPECT_EQ(bits_of(v[8]), 0x7FF0000000000001ull); // signalling NaN
    EXPECT_EQ(bits_of(v[11]), 1ull);                 // smallest denormal
}

TEST(ZipData, HeatStepsDifferButStayClose)
{
    const size_t n = kEdge * kEdge * kEdge;
    std::vector<double> s5 = fill("heat3d", n, 5), s6 = fill("heat3d", n, 6);
    EXPECT_FALSE(same_bits(s5, s6));
    double max_diff = 0, lo = 1e9, hi = -1e9, sum = 0;
    for (size_t k = 0; k < n; ++k) {
        max_diff = std::max(max_diff, std::fabs(s5[k] - s6[k]));
        lo = std::min(lo, s5[k]);
        hi = std::max(hi, s5[k]);
        sum += s5[k];
    }
    EXPECT_GT(max_diff, 0.0);
    EXPECT_LT(max_diff, 2.0); // one step moves a temperature by at most a few K
    EXPECT_GT(lo, 250.0);     // ~300 K background, a cold and two hot spots
    EXPECT_LT(hi, 420.0);
    EXPECT_GT(hi - lo, 50.0);
    // Going back to an earlier step recomputes it exactly.
    EXPECT_TRUE(same_bits(fill("heat3d", n, 5), s5));
}

TEST(ZipData, HaloIsTheFacePlanesOfTheField)
{
    const size_t face = kEdge * kEdge;
    std::vector<double> field = fill("heat3d", kEdge * face, 4),
                        halo = fill("heat3d-halo", 12 * face, 4);
    auto at = [&](size_t x, size_t y, size_t z) { return field[(z * kEdge + y) * kEdge + x]; };
    for (size_t b = 0; b < kEdge; b += 7)
        for (size_t a = 0; a < kEdge; a += 5) {
            size_t i = b * kEdge + a;
            ASSERT_EQ(halo[0 * face + i], at(0, a, b));
            ASSERT_EQ(halo[1 * face + i], at(kEdge - 1, a, b));
            ASSERT_EQ(halo[2 * face + i], at(a, 0, b));
            ASSERT_EQ(halo[5 * face + i], at(a, b, kEdge - 1));
            ASSERT_EQ(halo[6 * face + i], at(1, a, b)); // depth 1 follows depth 0
        }
}

TEST(ZipData, FloatVariantRoundsAndKeepsNaNs)
{
    std::vector<double> d = fill("special", 4096, 5);
    std::vector<float> f(d.size());
    ASSERT_EQ(zipdata_fill_f32("special", f.data(), f.size(), 5), ZIPDATA_OK);
    for (size_t k = 0; k < d.size(); ++k) {
        if (std::isnan(d[k])) {
            ASSERT_TRUE(std::isnan(f[k]));
            ASSERT_EQ(std::signbit(f[k]), std::signbit(d[k]));
            ASSERT_TRUE(bits_of(f[k]) & 0x00400000u) << "quiet bit";
        } else {
            ASSERT_EQ(bits_of(f[k]), bits_of(static_cast<float>(d[k]))) << k;
        }
    }
    EXPECT_EQ(bits_of(f[7]),
              0xFFC00000u | static_cast<uint32_t>((0xFFFC0123456789ABull >> 29) & 0x3FFFFF));
    std::vector<float> g(1000);
    ASSERT_EQ(zipdata_fill_f32("gauss-256", g.data(), g.size(), 0), ZIPDATA_OK);
    std::vector<double> gd = fill("gauss-256", 1000);
    for (size_t k = 0; k < g.size(); ++k)
        ASSERT_EQ(g[k], static_cast<float>(gd[k]));
}

TEST(ZipData, RecordSetsInterleaveFieldsWithAQuarterExactZeros)
{
    for (size_t fields : {3, 5, 8}) {
        std::string name = "records-" + std::to_string(fields);
        size_t n = zipdata_natural_count(name.c_str());
        ASSERT_EQ(n, fields * 256 * 256) << name;
        std::vector<double> v = fill(name.c_str(), n);
        size_t zeros = 0;
        std::vector<size_t> zeros_per_field(fields);
        for (size_t k = 0; k < n; ++k)
            if (bits_of(v[k]) == 0) { // +0.0 exactly, never -0.0
                ++zeros;
                ++zeros_per_field[k % fields];
            }
        EXPECT_GT(zeros, n * 20 / 100) << name;
        EXPECT_LT(zeros, n * 30 / 100) << name;
        // The zeros belong to some fields (interleaved), not spread over all of them.
        size_t fields_with_zeros = 0;
        for (size_t z : zeros_per_field)
            fields_with_zeros += z > n / fields / 4;
        EXPECT_LT(fields_with_zeros, fields) << name;
        EXPECT_GE(fields_with_zeros, 1u) << name;
    }
}

TEST(ZipData, IntegerSetsSayTheirTypeAndStayInRange)
{
    EXPECT_EQ(zipdata_type("gauss-256"), ZIPDATA_F64);
    EXPECT_EQ(zipdata_type("records-5"), ZIPDATA_F64);
    EXPECT_EQ(zipdata_type("keys-i32"), ZIPDATA_I32);
    EXPECT_EQ(zipdata_type("indices-i32"), ZIPDATA_I32);
    EXPECT_EQ(zipdata_type("ids-i64"), ZIPDATA_I64);
    float f;
    EXPECT_EQ(zipdata_fill_f32("keys-i32", &f, 1, 1), ZIPDATA_E_TYPE);

    const size_t n = 65536; // doubles: 2n int32
    std::vector<double> keys = fill("keys-i32", n, 4), sorted = fill("keys-sorted-i32", n, 4),
                        cols = fill("indices-i32", n);
    std::vector<int32_t> k(2 * n), s(2 * n), c(2 * n);
    std::memcpy(k.data(), keys.data(), 8 * n);
    std::memcpy(s.data(), sorted.data(), 8 * n);
    std::memcpy(c.data(), cols.data(), 8 * n);
    for (size_t i = 0; i < 2 * n; ++i) {
        ASSERT_GE(k[i], 0);
        ASSERT_LT(k[i], 1 << 11);
        ASSERT_LT(c[i], 64 * 64 * 64);
        ASSERT_GE(c[i], 0);
        if (i > 0) {
            ASSERT_LE(s[i - 1], s[i]);
        }
    }
    // The first stencil row, point (0,0,0): its neighbours (0..1)^3 in ascending order.
    const int32_t first[] = {0, 1, 64, 65, 4096, 4097, 4160, 4161};
    for (size_t i = 0; i < 8; ++i)
        EXPECT_EQ(c[i], first[i]);
}

TEST(ZipData, RecordAndIntegerFingerprintsAreStable)
{
    // As FingerprintsAreStable: change only on purpose.
    struct Pin {
        const char *name;
        size_t n;
        uint64_t seed, fingerprint;
    };
    const Pin pins[] = {
        {"records-3", 65536, 1, 0x95a3a08eed3f3a3cull},
        {"records-5", 100000, 1, 0x482c7a0741c9ba74ull},
        {"records-8", 100000, 1, 0x650a8216242c2690ull},
        {"complex-decay", 4096, 2, 0x532366b48f1ff169ull},
        {"keys-i32", 4096, 2, 0x559539a4e5454125ull},
        {"keys-sorted-i32", 4096, 2, 0x1d968206986b31e6ull},
        {"indices-i32", 4096, 2, 0x5492b23e6693bceaull},
        {"ids-i64", 4096, 2, 0xf82a398369c737e7ull},
    };
    for (const Pin &p : pins)
        EXPECT_EQ(fingerprint(fill(p.name, p.n, p.seed)), p.fingerprint)
            << p.name << std::hex << " 0x" << fingerprint(fill(p.name, p.n, p.seed));
}
