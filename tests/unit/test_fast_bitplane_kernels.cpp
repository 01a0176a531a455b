// Unit tests of the bit-plane kernels of `fast` (codecs/src/fast_bitplane_kernels.cpp): each SIMD
// transpose this CPU runs (SSE2, AVX2) and the counts against the portable ones and against a
// bit-by-bit reading of the layout,
// at every length around the 128-byte SIMD step (tails of 1..127 bytes, lengths not a multiple of
// 8), on random and structured planes, and bit planes read at odd addresses.
#include <cstring>
#include <utility>

#include "block_codec_checks.hpp"
#include "fast_bitplane_kernels.hpp"

using namespace codectest;
using namespace zip::fast_detail;

namespace
{

// Plane byte i of shape 0..7: bits that are constant (all zero, all one), a counter,
// alternating, a walking bit, two constant bits in noise, a rare bit; shape 7 is noise (r).
uint8_t structured_byte(unsigned shape, size_t i, uint8_t r)
{
    const uint8_t by_shape[7] = {
        0,
        0xff,
        static_cast<uint8_t>(i),
        static_cast<uint8_t>(i % 2 ? 0xaa : 0x55),
        static_cast<uint8_t>(1u << (i % 8)),
        static_cast<uint8_t>((r | 0x81) & 0xf7),
        static_cast<uint8_t>((r & 0x1f) == 0 ? 0x04 : 0),
    };
    return shape < 7 ? by_shape[shape] : r;
}

// A plane of n such bytes: its bit planes are zero, ones, patterns or random.
Bytes structured_plane(size_t n, unsigned shape, uint64_t seed)
{
    Bytes p = random_bytes(n, seed);
    for (size_t i = 0; i < n; ++i)
        p[i] = structured_byte(shape, i, p[i]);
    return p;
}

constexpr unsigned kShapes = 8;

// The SIMD transposes this CPU runs, each with its name for the trace.
std::vector<std::pair<BitKernel, const char *>> simd_kernels()
{
    std::vector<std::pair<BitKernel, const char *>> k;
    if (bit_kernel_available(BitKernel::Sse2))
        k.emplace_back(BitKernel::Sse2, "sse2");
    if (bit_kernel_available(BitKernel::Avx2))
        k.emplace_back(BitKernel::Avx2, "avx2");
    if (bit_kernel_available(BitKernel::Gfni))
        k.emplace_back(BitKernel::Gfni, "gfni");
    return k;
}

// Lengths that cover every tail after the 128-byte SIMD steps, and several steps.
std::vector<size_t> lengths()
{
    std::vector<size_t> n;
    for (size_t i = 0; i <= 300; ++i)
        n.push_back(i);
    for (size_t i : {383, 384, 385, 511, 512, 513, 1000, 1024, 4095, 4096, 4097, 8193, 16384})
        n.push_back(i);
    return n;
}

} // namespace

TEST(FastBitplaneKernels, SimdSplitsMatchThePortableSplitAndTheLayout)
{
    for (size_t count : lengths()) {
        if (count == 0)
            continue;
        for (unsigned shape = 0; shape < kShapes; ++shape) {
            SCOPED_TRACE(testing::Message() << "count " << count << " shape " << shape);
            const Bytes plane = structured_plane(count, shape, count * 31 + shape);
            const size_t nb = bitplane_bytes(count);
            Bytes portable(8 * nb);
            split_bits_with(BitKernel::Portable, plane.data(), count, portable.data());
            for (size_t i = 0; i < 8 * nb; ++i) { // padding bits past count are zero
                const size_t j = i / nb, byte = 8 * (i % nb);
                for (unsigned b = 0; b < 8; ++b) {
                    const unsigned want = byte + b < count ? (plane[byte + b] >> j) & 1u : 0u;
                    ASSERT_EQ((portable[i] >> b) & 1u, want)
                        << "bit plane " << j << " byte " << byte;
                }
            }
            for (const auto &[kernel, name] : simd_kernels()) {
                SCOPED_TRACE(name);
                Bytes simd(8 * nb + 1, 0xa5);
                split_bits_with(kernel, plane.data(), count, simd.data());
                EXPECT_EQ(simd.back(), 0xa5); // exactly 8 * nb bytes written
                simd.pop_back();
                ASSERT_EQ(simd, portable);
            }
            Bytes best(8 * nb);
            split_bits(plane.data(), count, best.data());
            ASSERT_EQ(best, portable);
        }
    }
}

TEST(FastBitplaneKernels, SimdJoinsMatchThePortableJoinAtOddAddressesAndInvertMasks)
{
    for (size_t count : lengths()) {
        if (count == 0)
            continue;
        const size_t nb = bitplane_bytes(count);
        // The bit planes at odd, different offsets of one buffer, as raw bit planes lie in a
        // block; padding bits past count set, which the join must ignore.
        Bytes store = random_bytes(8 * (nb + 3) + 16, count);
        const uint8_t *bits[8];
        for (unsigned j = 0; j < 8; ++j)
            bits[j] = store.data() + 1 + j * (nb + 3) + j % 3;
        for (unsigned invert : {0u, 0xffu, 0x81u, 0x5au, static_cast<unsigned>(count % 256)}) {
            SCOPED_TRACE(testing::Message() << "count " << count << " invert " << invert);
            Bytes portable(count + 1, 0x22);
            join_bits_with(BitKernel::Portable, bits, count, invert, portable.data());
            EXPECT_EQ(portable[count], 0x22); // exactly count bytes written
            for (size_t i = 0; i < count; ++i) {
                unsigned want = 0;
                for (unsigned j = 0; j < 8; ++j)
                    want |= (((bits[j][i / 8] >> (i % 8)) ^ (invert >> j)) & 1u) << j;
                ASSERT_EQ(portable[i], want) << "byte " << i;
            }
            for (const auto &[kernel, name] : simd_kernels()) {
                SCOPED_TRACE(name);
                Bytes simd(count + 1, 0x11);
                join_bits_with(kernel, bits, count, invert, simd.data());
                EXPECT_EQ(simd[count], 0x11);
                ASSERT_EQ(0, std::memcmp(simd.data(), portable.data(), count));
            }
            Bytes best(count);
            join_bits(bits, count, invert, best.data());
            ASSERT_EQ(0, std::memcmp(best.data(), portable.data(), count));
        }
    }
}

TEST(FastBitplaneKernels, JoinUndoesSplitOnStructuredPlanes)
{
    for (size_t count : lengths()) {
        if (count == 0)
            continue;
        for (unsigned shape = 0; shape < kShapes; ++shape) {
            SCOPED_TRACE(testing::Message() << "count " << count << " shape " << shape);
            const Bytes plane = structured_plane(count, shape, count + 7 * shape);
            const size_t nb = bitplane_bytes(count);
            Bytes split(8 * nb);
            split_bits(plane.data(), count, split.data());
            const uint8_t *bits[8];
            for (unsigned j = 0; j < 8; ++j)
                bits[j] = split.data() + j * nb;
            Bytes back(count);
            join_bits(bits, count, 0, back.data());
            ASSERT_EQ(back, plane);
        }
    }
}

TEST(FastBitplaneKernels, CountsMatchThePortableCountsAndAByteLoop)
{
    for (size_t n : lengths()) {
        for (unsigned shape = 0; shape < kShapes; ++shape) {
            SCOPED_TRACE(testing::Message() << "n " << n << " shape " << shape);
            const Bytes p = structured_plane(n, shape, n * 3 + shape);
            size_t ones = 0, zeros = 0, full = 0;
            for (uint8_t b : p) {
                for (unsigned i = 0; i < 8; ++i)
                    ones += (b >> i) & 1u;
                zeros += b == 0;
                full += b == 0xff;
            }
            for (const auto &[kernel, name] : simd_kernels()) {
                const BitplaneCounts simd = bitplane_counts_with(kernel, p.data(), n);
                EXPECT_EQ(simd.ones, ones) << name;
                EXPECT_EQ(simd.zeros, zeros) << name;
                EXPECT_EQ(simd.full, full) << name;
            }
            const BitplaneCounts fast = bitplane_counts(p.data(), n);
            const BitplaneCounts portable = bitplane_counts_portable(p.data(), n);
            EXPECT_EQ(fast.ones, ones);
            EXPECT_EQ(fast.zeros, zeros);
            EXPECT_EQ(fast.full, full);
            EXPECT_EQ(portable.ones, ones);
            EXPECT_EQ(portable.zeros, zeros);
            EXPECT_EQ(portable.full, full);
            EXPECT_EQ(count_set_bits(p.data(), n), ones);
            EXPECT_EQ(count_set_bits_portable(p.data(), n), ones);
        }
    }
    // Long runs of 0xff: the per-lane byte counters of the SIMD loop must flush before they wrap.
    const Bytes full(100000, 0xff);
    for (const auto &[kernel, name] : simd_kernels()) {
        const BitplaneCounts c = bitplane_counts_with(kernel, full.data(), full.size());
        EXPECT_EQ(c.ones, 800000u) << name;
        EXPECT_EQ(c.full, 100000u) << name;
        EXPECT_EQ(c.zeros, 0u) << name;
    }
    const Bytes zero(100000, 0);
    EXPECT_EQ(bitplane_counts(zero.data(), zero.size()).zeros, 100000u);
}
