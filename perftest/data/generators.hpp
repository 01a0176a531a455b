// The generator behind each family of data sets. zipdata.cpp maps names to these; each fills
// out[0..n) and returns a ZIPDATA_* code (see zipdata.h for what the data sets contain).
#pragma once

#include <cstddef>
#include <cstdint>

namespace zipdata
{

enum class Surface { Gauss, SinCos };

int fill_linear(double *out, size_t n);
int fill_grid2d(Surface surface, size_t points_per_axis, bool sorted, double *out, size_t n);
int fill_heat3d_field(double *out, size_t n, uint64_t step);
int fill_heat3d_halo(double *out, size_t n, uint64_t step);
int fill_random_bits(double *out, size_t n, uint64_t seed);
int fill_random_unit(double *out, size_t n, uint64_t seed);
int fill_special(double *out, size_t n, uint64_t seed);
int fill_records(size_t fields, double *out, size_t n); // fields = 3, 5 or 8
int fill_complex_decay(double *out, size_t n, uint64_t seed);
int fill_keys(double *out, size_t n, uint64_t seed);         // int32 elements, 2 per double
int fill_sorted_keys(double *out, size_t n, uint64_t seed);  // int32
int fill_stencil_indices(double *out, size_t n);             // int32
int fill_particle_ids(double *out, size_t n, uint64_t seed); // int64
void release_heat3d();

// Edge of the heat3d box: the field has kHeatEdge^3 values (16 MiB of doubles).
constexpr size_t kHeatEdge = 128;
// Edge of the records-* and complex-decay face: kRecordFace^2 points (records.cpp).
constexpr size_t kRecordFace = 256;
// keys-sorted-i32 repeats after this many keys (integers.cpp).
constexpr size_t kSortedKeyCount = size_t{1} << 18;

} // namespace zipdata
