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
void release_heat3d();

// Edge of the heat3d box: the field has kHeatEdge^3 values (16 MiB of doubles).
constexpr size_t kHeatEdge = 128;

} // namespace zipdata
