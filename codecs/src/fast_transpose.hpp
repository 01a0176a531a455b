// Byte transposition ("shuffle") between element order and byte-plane order, for the `fast`
// codec. Plane k holds byte k (little-endian) of every element, so a block of `count` elements of
// `width` bytes becomes `width` planes of `count` bytes each.
//
// split_planes: elements (u64 or u32 words, in a scratch array) -> planes (one contiguous buffer,
//               plane k at planes + k * count).
// join_planes:  planes (each at its own pointer: some are read straight from the compressed
//               block, some from scratch) -> elements (written to any address, any alignment).
//
// The AVX2 kernels move 32 elements per iteration; the scalar loops handle what is left and
// serve CPUs without AVX2. Dispatch is decided once at run time (CI machines may lack AVX2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace zip::fast_detail {

using SplitFn = void (*)(const void *elems, size_t count, uint8_t *planes);
using JoinFn = void (*)(const uint8_t *const *planes, size_t count, uint8_t *elems);

struct Transposer {
    SplitFn split8, split4;
    JoinFn join8, join4;
};

// The best kernels this CPU supports.
const Transposer &transposer();

// The portable kernels (also used by the tests to cross-check the SIMD ones).
const Transposer &scalar_transposer();

}  // namespace zip::fast_detail
