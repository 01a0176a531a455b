// Element runs of the `fast` codec: format and rationale in fast_runs.hpp.
#include "fast_runs.hpp"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace zip::fast_detail
{

namespace
{

template <class U> inline U load_elem(const uint8_t *src, size_t i)
{
    U v;
    std::memcpy(&v, src + i * sizeof(U), sizeof v);
    return v;
}

constexpr size_t kProbe = kMinElemRun / 2; // a run of kMinElemRun holds a pair (8k, 8k + 8)
constexpr size_t kSamples = 32;
constexpr unsigned kSampleHits = kSamples / 8;
constexpr size_t kMaxVarint = 5;
constexpr uint64_t kVarintLimit = uint64_t{1} << 32;

size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    p[n++] = static_cast<uint8_t>(v);
    return n;
}

// Reads a varint at src[*pos] (len bytes in all): false if it runs past len, takes more than
// kMaxVarint bytes or is not below kVarintLimit.
bool get_varint(const uint8_t *src, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < kMaxVarint; ++i) {
        if (*pos >= len)
            return false;
        const uint8_t b = src[(*pos)++];
        v |= uint64_t{b & 0x7fu} << (7 * i);
        if ((b & 0x80) == 0) {
            *out = v;
            return v < kVarintLimit;
        }
    }
    return false;
}

// The first index >= b (and <= count) whose element is not v. Inside a run 64 bytes per test
// (the search's hot loop on run-rich blocks), then one element at a time.
template <class U> size_t run_end(const uint8_t *src, size_t b, size_t count, U v)
{
    constexpr size_t kStep = 64 / sizeof(U);
#if defined(__SSE2__)
    const __m128i pat = sizeof(U) == 8 ? _mm_set1_epi64x(static_cast<long long>(v))
                                       : _mm_set1_epi32(static_cast<int>(v));
    while (b + kStep <= count) {
        const auto *p = reinterpret_cast<const __m128i *>(src + b * sizeof(U));
        const __m128i e0 = _mm_cmpeq_epi8(_mm_loadu_si128(p), pat);
        const __m128i e1 = _mm_cmpeq_epi8(_mm_loadu_si128(p + 1), pat);
        const __m128i e2 = _mm_cmpeq_epi8(_mm_loadu_si128(p + 2), pat);
        const __m128i e3 = _mm_cmpeq_epi8(_mm_loadu_si128(p + 3), pat);
        const __m128i all = _mm_and_si128(_mm_and_si128(e0, e1), _mm_and_si128(e2, e3));
        if (_mm_movemask_epi8(all) != 0xffff)
            break;
        b += kStep;
    }
#else
    while (b + kStep <= count) {
        U diff = 0;
        for (size_t j = 0; j < kStep; ++j)
            diff |= load_elem<U>(src, b + j) ^ v;
        if (diff != 0)
            break;
        b += kStep;
    }
#endif
    while (b < count && load_elem<U>(src, b) == v)
        ++b;
    return b;
}

} // namespace

template <class U> bool elem_runs_likely(const uint8_t *src, size_t count)
{
    if (count < 2 * kMinElemRun || count >= kVarintLimit)
        return false;
    // Independent loads at a fixed step: no division per probe.
    const size_t step = (count - kProbe) / kSamples;
    unsigned hits = 0;
    for (size_t k = 0, p = 0; k < kSamples; ++k, p += step)
        hits += load_elem<U>(src, p) == load_elem<U>(src, p + kProbe);
    return hits >= kSampleHits;
}

template <class U>
size_t find_elem_runs(const uint8_t *src, size_t count, std::vector<ElemRun> &runs)
{
    runs.clear();
    size_t covered = 0, lo = 0; // lo: end of the last run found
    size_t p = 0;
    while (p + kProbe < count) {
        const U v = load_elem<U>(src, p);
        if (load_elem<U>(src, p + kProbe) != v) {
            p += kProbe;
            continue;
        }
        size_t a = p, b = p + kProbe + 1;
        while (a > lo && load_elem<U>(src, a - 1) == v)
            --a;
        // Elements p + 1 .. p + kProbe - 1 are not known to equal v: check them, then go on.
        size_t j = p + 1;
        while (j < p + kProbe && load_elem<U>(src, j) == v)
            ++j;
        if (j < p + kProbe) {
            b = j;
        } else {
            b = run_end<U>(src, b, count, v);
        }
        if (b - a >= kMinElemRun) {
            runs.push_back({a, b - a});
            covered += b - a;
            lo = b;
            p = (b + kProbe - 1) / kProbe * kProbe;
        } else {
            p += kProbe;
        }
    }
    return covered;
}

template <class U>
size_t find_elem_runs_reference(const uint8_t *src, size_t count, std::vector<ElemRun> &runs)
{
    runs.clear();
    size_t covered = 0;
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && load_elem<U>(src, j) == load_elem<U>(src, i))
            ++j;
        if (j - i >= kMinElemRun) {
            runs.push_back({i, j - i});
            covered += j - i;
        }
        i = j;
    }
    return covered;
}

template <class U>
size_t encode_elem_runs(const uint8_t *src, size_t count, const std::vector<ElemRun> &runs,
                        uint8_t *dst, size_t cap, uint8_t *rest)
{
    constexpr size_t w = sizeof(U);
    constexpr size_t kMaxRunBytes = 2 * kMaxVarint + w;
    if (runs.empty() || count >= kVarintLimit || cap < kMaxVarint)
        return 0;
    size_t pos = put_varint(dst, runs.size());
    size_t prev_end = 0;
    for (const ElemRun &r : runs) {
        if (cap - pos < kMaxRunBytes)
            return 0;
        const size_t gap = r.start - prev_end;
        if (gap != 0) { // rest may be null when every element is in a run
            std::memcpy(rest, src + prev_end * w, gap * w);
            rest += gap * w;
        }
        const U v = load_elem<U>(src, r.start);
        pos += put_varint(dst + pos, gap);
        pos += put_varint(dst + pos, (r.len - kMinElemRun) << 1 | (v != 0));
        if (v != 0) {
            std::memcpy(dst + pos, &v, w); // little-endian target (as the whole codec)
            pos += w;
        }
        prev_end = r.start + r.len;
    }
    if (count != prev_end)
        std::memcpy(rest, src + prev_end * w, (count - prev_end) * w);
    return pos;
}

template <class U>
size_t parse_elem_runs(const uint8_t *src, size_t len, size_t count, std::vector<ElemRun> &runs,
                       std::vector<uint64_t> &values, size_t *rest)
{
    constexpr size_t w = sizeof(U);
    runs.clear();
    values.clear();
    size_t pos = 0;
    uint64_t nruns;
    if (!get_varint(src, len, &pos, &nruns) || nruns == 0 || nruns > count / kMinElemRun)
        return 0;
    size_t at = 0, covered = 0; // at: elements of the block placed so far
    for (uint64_t i = 0; i < nruns; ++i) {
        uint64_t gap, field;
        if (!get_varint(src, len, &pos, &gap) || !get_varint(src, len, &pos, &field))
            return 0;
        const uint64_t run = (field >> 1) + kMinElemRun;
        if (gap > count - at || run > count - at - gap)
            return 0;
        uint64_t v = 0;
        if (field & 1) {
            if (len - pos < w)
                return 0;
            U u;
            std::memcpy(&u, src + pos, w);
            pos += w;
            if (u == 0)
                return 0; // flagged nonzero: not what the encoder writes
            v = u;
        }
        at += gap;
        runs.push_back({at, static_cast<size_t>(run)});
        values.push_back(v);
        at += run;
        covered += run;
    }
    *rest = count - covered;
    return pos;
}

template <class U>
void expand_elem_runs(const std::vector<ElemRun> &runs, const std::vector<uint64_t> &values,
                      size_t count, uint8_t *dst)
{
    constexpr size_t w = sizeof(U);
    size_t covered = 0;
    for (const ElemRun &r : runs)
        covered += r.len;
    size_t from = covered, out = 0; // from: next rest element to place (the rest starts at covered)
    for (size_t i = 0; i < runs.size(); ++i) {
        const ElemRun &r = runs[i];
        const size_t gap = r.start - out;
        if (gap != 0 && from != out)
            std::memmove(dst + out * w, dst + from * w, gap * w);
        from += gap;
        uint8_t *fill = dst + r.start * w;
        const U v = static_cast<U>(values[i]);
        if (v == 0) {
            std::memset(fill, 0, r.len * w);
        } else {
            // One element, then copies of what is filled so far: log2(len) memcpy calls.
            std::memcpy(fill, &v, w);
            for (size_t done = 1; done < r.len;) {
                const size_t n = std::min(done, r.len - done);
                std::memcpy(fill + done * w, fill, n * w);
                done += n;
            }
        }
        out = r.start + r.len;
    }
    if (from != out)
        std::memmove(dst + out * w, dst + from * w, (count - out) * w);
}

#define ZIP_FAST_RUNS_INSTANTIATE(U)                                                               \
    template bool elem_runs_likely<U>(const uint8_t *, size_t);                                    \
    template size_t find_elem_runs<U>(const uint8_t *, size_t, std::vector<ElemRun> &);            \
    template size_t find_elem_runs_reference<U>(const uint8_t *, size_t, std::vector<ElemRun> &);  \
    template size_t encode_elem_runs<U>(const uint8_t *, size_t, const std::vector<ElemRun> &,     \
                                        uint8_t *, size_t, uint8_t *);                             \
    template size_t parse_elem_runs<U>(const uint8_t *, size_t, size_t, std::vector<ElemRun> &,    \
                                       std::vector<uint64_t> &, size_t *);                         \
    template void expand_elem_runs<U>(const std::vector<ElemRun> &, const std::vector<uint64_t> &, \
                                      size_t, uint8_t *);
ZIP_FAST_RUNS_INSTANTIATE(uint32_t)
ZIP_FAST_RUNS_INSTANTIATE(uint64_t)
#undef ZIP_FAST_RUNS_INSTANTIATE

} // namespace zip::fast_detail
