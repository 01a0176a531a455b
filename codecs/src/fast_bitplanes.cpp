// Bit-plane coding of one byte plane (format in fast_bitplanes.hpp). The byte loops (transpose
// both ways, the counts per bit plane) are in fast_bitplane_kernels.cpp; the sparse bit planes
// reuse the sparse kernels of fast_transpose.cpp.
#include "fast_bitplanes.hpp"

#include "bitio.hpp"

#include <cstring>

#include "fast_transpose.hpp"

namespace zip::fast_detail
{

namespace
{

constexpr uint64_t kLowBits = 0x0101010101010101ull;
constexpr unsigned kKindZero = 0, kKindRaw = 1, kKindSparse = 2;
constexpr size_t kHeader = 3; // invert byte, two kind bytes

// The bit transpose reads byte j of a word as bits 8j..8j+7: little-endian on any host.
inline uint64_t load8(const uint8_t *p)
{
    return bitio::load_le<uint64_t>(p);
}

// Eight bytes a step: the byte loop was not vectorised at -O2 and took an eighth of sincos's
// compress time (`perf annotate`: one `notb` per byte).
void complement(uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        bitio::store_le<uint64_t>(p + i, ~load8(p + i));
    for (; i < n; ++i)
        p[i] = static_cast<uint8_t>(~p[i]);
}

} // namespace

bool has_skewed_bit(const uint8_t *plane, size_t count)
{
    // 16 words of 8 bytes spread over the plane; per bit position, the ones among those 128
    // bytes (each lane of acc[k] counts up to 16, so the lanes never carry into each other).
    constexpr size_t kWords = 16;
    if (count < 8 * kWords)
        return false; // tiny planes: the bit-plane headers would eat the gain
    const size_t step = (count - 8) / (kWords - 1);
    uint64_t acc[8] = {};
    for (size_t w = 0; w < kWords; ++w) {
        const uint64_t x = load8(plane + w * step);
        // Unrolled so that acc stays in registers (rolled, GCC kept it in memory: 5 % of
        // minife's compress time went to this sample).
#pragma GCC unroll 8
        for (unsigned k = 0; k < 8; ++k)
            acc[k] += (x >> k) & kLowBits;
    }
    constexpr unsigned kSample = 8 * kWords;
    for (unsigned k = 0; k < 8; ++k) {
        const unsigned ones = static_cast<unsigned>((acc[k] * kLowBits) >> 56);
        if (16 * ones <= kSample || 16 * ones >= 15 * kSample)
            return true; // at most 1/16 or at least 15/16 ones
    }
    return false;
}

size_t encode_bitplanes(const uint8_t *plane, size_t count, uint8_t *scratch, uint8_t *dst,
                        size_t limit)
{
    const size_t nb = bitplane_bytes(count);
    if (count == 0 || limit < kHeader)
        return 0;
    split_bits(plane, count, scratch);
    const uint8_t valid_tail = count % 8 ? static_cast<uint8_t>((1u << (count % 8)) - 1) : 0xff;
    unsigned invert = 0, kinds = 0;
    size_t pos = kHeader;
    const auto &k = kernels();
    for (unsigned j = 8; j-- > 0;) {
        uint8_t *bp = scratch + j * nb;
        // The last byte on its own: its padding bits stay zero when the rest is complemented.
        const BitplaneCounts c = bitplane_counts(bp, nb - 1);
        const uint8_t last = bp[nb - 1];
        size_t zeros = c.zeros + (last == 0);
        if (2 * (c.ones + count_set_bits(&last, 1)) > count) {
            invert |= 1u << j; // mostly ones: stored complemented, so mostly zeros
            complement(bp, nb);
            bp[nb - 1] &= valid_tail;
            zeros = c.full + (last == valid_tail);
        }
        const size_t nz = nb - zeros;
        const size_t sparse = runs_size(nb, nz);
        unsigned kind = nz == 0 ? kKindZero : sparse < nb ? kKindSparse : kKindRaw;
        const size_t size = kind == kKindZero ? 0 : kind == kKindSparse ? sparse : nb;
        if (limit - pos < size)
            return 0;
        if (kind == kKindSparse && k.encode_sparse(bp, nb, dst + pos, size) != size)
            return 0; // cannot happen: nz counted the same literals
        if (kind == kKindRaw)
            std::memcpy(dst + pos, bp, nb);
        pos += size;
        kinds |= kind << (2 * j);
    }
    dst[0] = static_cast<uint8_t>(invert);
    dst[1] = static_cast<uint8_t>(kinds);
    dst[2] = static_cast<uint8_t>(kinds >> 8);
    return pos;
}

size_t decode_bitplanes(const uint8_t *src, size_t len, size_t count, uint8_t *scratch,
                        uint8_t *plane)
{
    const size_t nb = bitplane_bytes(count);
    if (len < kHeader || count == 0)
        return 0;
    const unsigned invert = src[0], kinds = src[1] | (unsigned{src[2]} << 8);
    const uint8_t *bits[8]; // raw bit planes are read in place, the others decoded into scratch
    size_t pos = kHeader;
    const auto &k = kernels();
    for (unsigned j = 8; j-- > 0;) {
        uint8_t *bp = scratch + j * nb;
        bits[j] = bp;
        switch ((kinds >> (2 * j)) & 3) {
        case kKindZero:
            std::memset(bp, 0, nb);
            break;
        case kKindRaw:
            if (len - pos < nb)
                return 0;
            bits[j] = src + pos;
            pos += nb;
            break;
        case kKindSparse: {
            const size_t mask_bytes = (nb + 7) / 8;
            if (len - pos < mask_bytes)
                return 0;
            const uint8_t *mask = src + pos;
            const size_t literals = count_set_bits(mask, mask_bytes);
            const unsigned tail = nb % 8;
            if ((tail && (mask[mask_bytes - 1] >> tail) != 0) || len - pos - mask_bytes < literals)
                return 0;
            const uint8_t *lits = mask + mask_bytes;
            k.decode_sparse(mask, lits, lits + literals, nb, bp);
            pos += mask_bytes + literals;
            break;
        }
        default:
            return 0;
        }
    }
    join_bits(bits, count, invert, plane);
    return pos;
}

} // namespace zip::fast_detail
