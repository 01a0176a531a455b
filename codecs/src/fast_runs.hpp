// Element runs of the `fast` codec (frame format 4): long runs of one repeated element value
// (zeros and constants: the halos of CloverLeaf, 40-70% of whose doubles sit in runs of
// hundreds) are taken out of a block before prediction and byte planes, and coded as a list.
// The plane pipeline then sees only the elements between the runs, so none of its passes
// (split, plane statistics, LZ4) spends time on the runs (docs/fast-codec.md).
//
// Run list (after the block's first byte, which is kElemRunsFlag; element width w = 4 or 8):
//   nruns        varint, >= 1
//   nruns times  gap     varint: elements outside runs between the previous run (or the
//                        block's start) and this run
//                len     varint: (run length - kMinElemRun) << 1 | (value != 0)
//                value   w bytes, little-endian, only when the value is not zero
//   then the elements outside runs (count minus the runs' lengths, the "rest", in order) as an
//   ordinary `fast` block of that many elements (transform byte without kElemRunsFlag), to the
//   end of the block; no bytes when the rest is empty.
// Varints are LEB128 (7 bits a byte, low first), at most 5 bytes and below 2^32; a value flagged
// nonzero must not be zero. The encoder writes the maximal runs of >= kMinElemRun equal elements
// (bit patterns), so its output depends only on the block; the decoder accepts any runs that
// fit in the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zip::fast_detail
{

constexpr uint8_t kElemRunsFlag = 0x80;
constexpr size_t kMinElemRun = 16;

struct ElemRun {
    size_t start; // index of the first element of the run
    size_t len;   // >= kMinElemRun
};

// Whether a sample of 32 positions spread over the block sees x[p] == x[p + 8] often enough
// (1 in 8) to look for runs: cheap, so that blocks without runs pay almost nothing.
template <class U> bool elem_runs_likely(const uint8_t *src, size_t count);

// The maximal runs of >= kMinElemRun equal elements of the block, in order, into `runs`
// (cleared first); returns the elements they cover. Probes x[p] == x[p + 8] at p = 0, 8, 16...
// (every run of 16 holds one such pair) and extends only around the hits.
template <class U>
size_t find_elem_runs(const uint8_t *src, size_t count, std::vector<ElemRun> &runs);

// The same runs by a plain element-by-element scan: the reference for tests.
template <class U>
size_t find_elem_runs_reference(const uint8_t *src, size_t count, std::vector<ElemRun> &runs);

// Writes the run list (format above, without the flag byte) into dst (at most cap bytes) and
// gathers the rest of the elements into `rest`; returns the list's size, or 0 if it does not fit.
template <class U>
size_t encode_elem_runs(const uint8_t *src, size_t count, const std::vector<ElemRun> &runs,
                        uint8_t *dst, size_t cap, uint8_t *rest);

// The decoder's side. parse_elem_runs reads the run list at src (len bytes, without the flag
// byte) of a block of `count` elements into `runs`: returns the bytes read (the rest's block
// follows) or 0 if it is corrupt (runs past the block, lengths or varints out of range); *rest
// = the elements outside the runs. expand_elem_runs then spreads the rest, decoded at
// dst + (count - rest) elements, to its places and fills the runs, in place (left to right:
// every element moves to a lower or equal index).
template <class U>
size_t parse_elem_runs(const uint8_t *src, size_t len, size_t count, std::vector<ElemRun> &runs,
                       std::vector<uint64_t> &values, size_t *rest);
template <class U>
void expand_elem_runs(const std::vector<ElemRun> &runs, const std::vector<uint64_t> &values,
                      size_t count, uint8_t *dst);

} // namespace zip::fast_detail
