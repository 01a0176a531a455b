// Bit-plane coding of one byte plane (format in fast_bitplanes.hpp). Plain 64-bit loops: an
// 8 x 8 bit matrix transpose per 8 plane bytes, both ways; the sparse bit planes reuse the
// sparse kernels of fast_transpose.cpp.
#include "fast_bitplanes.hpp"

#include <algorithm>
#include <cstring>

#include "fast_transpose.hpp"

namespace zip::fast_detail
{

namespace
{

constexpr uint64_t kLowBits = 0x0101010101010101ull;
constexpr unsigned kKindZero = 0, kKindRaw = 1, kKindSparse = 2;
constexpr size_t kHeader = 3; // invert byte, two kind bytes

// Transposes the 8 x 8 bit matrix whose row r is byte r: bit 8r + c <-> bit 8c + r. Three
// rounds of swapping the off-diagonal halves of 2 x 2, 4 x 4 and 8 x 8 blocks.
inline uint64_t transpose8(uint64_t x)
{
    uint64_t t = (x ^ (x >> 7)) & 0x00aa00aa00aa00aaull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000cccc0000ccccull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0ull;
    x ^= t ^ (t << 28);
    return x;
}

inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

size_t nonzero_bytes(const uint8_t *p, size_t n)
{
    size_t z = 0;
    for (size_t i = 0; i < n; ++i)
        z += p[i] == 0;
    return n - z;
}

} // namespace

size_t count_set_bits(const uint8_t *p, size_t n)
{
    size_t total = 0, i = 0;
    auto swar = [](uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ull);
        x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
        return static_cast<size_t>((x * kLowBits) >> 56);
    };
    for (; i + 8 <= n; i += 8)
        total += swar(load8(p + i));
    uint8_t tail[8] = {};
    std::memcpy(tail, p + i, n - i);
    return total + swar(load8(tail));
}

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

void split_bits(const uint8_t *plane, size_t count, uint8_t *bits)
{
    const size_t nb = bitplane_bytes(count);
    for (size_t g = 0; g < nb; ++g) {
        uint64_t x;
        if (8 * g + 8 <= count) {
            x = load8(plane + 8 * g);
        } else {
            uint8_t tail[8] = {};
            std::memcpy(tail, plane + 8 * g, count - 8 * g);
            x = load8(tail);
        }
        const uint64_t t = transpose8(x);
        for (unsigned j = 0; j < 8; ++j)
            bits[j * nb + g] = static_cast<uint8_t>(t >> (8 * j));
    }
}

namespace
{

// join_bits with the stored planes complemented where `invert` says (byte j of the word).
void join_bits_inverting(const uint8_t *bits, size_t count, uint64_t invert, uint8_t *plane)
{
    const size_t nb = bitplane_bytes(count);
    for (size_t g = 0; g < nb; ++g) {
        uint64_t t = 0;
        for (unsigned j = 0; j < 8; ++j)
            t |= uint64_t{bits[j * nb + g]} << (8 * j);
        const uint64_t x = transpose8(t ^ invert);
        if (8 * g + 8 <= count) {
            std::memcpy(plane + 8 * g, &x, 8);
        } else {
            uint8_t tail[8];
            std::memcpy(tail, &x, 8);
            std::memcpy(plane + 8 * g, tail, count - 8 * g);
        }
    }
}

} // namespace

void join_bits(const uint8_t *bits, size_t count, uint8_t *plane)
{
    join_bits_inverting(bits, count, 0, plane);
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
        if (2 * count_set_bits(bp, nb) > count) {
            invert |= 1u << j; // mostly ones: stored complemented, so mostly zeros
            for (size_t g = 0; g < nb; ++g)
                bp[g] = static_cast<uint8_t>(~bp[g]);
            bp[nb - 1] &= valid_tail;
        }
        const size_t nz = nonzero_bytes(bp, nb);
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
    uint64_t invert_bytes = 0;
    size_t pos = kHeader;
    const auto &k = kernels();
    for (unsigned j = 8; j-- > 0;) {
        uint8_t *bp = scratch + j * nb;
        switch ((kinds >> (2 * j)) & 3) {
        case kKindZero:
            std::memset(bp, 0, nb);
            break;
        case kKindRaw:
            if (len - pos < nb)
                return 0;
            std::memcpy(bp, src + pos, nb);
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
        if ((invert >> j) & 1)
            invert_bytes |= uint64_t{0xff} << (8 * j);
    }
    join_bits_inverting(scratch, count, invert_bytes, plane);
    return pos;
}

} // namespace zip::fast_detail
