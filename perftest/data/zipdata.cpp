// The data set registry: names, descriptions and natural sizes, and the C entry points of
// zipdata.h. The generators themselves live in one file per family (generators.hpp).
#include "zipdata.h"

#include <cstring>

#include "generators.hpp"

namespace zipdata
{
namespace
{

enum class Family {
    Linear,
    Grid,
    HeatField,
    HeatHalo,
    RandomBits,
    RandomUnit,
    Special,
    Records,
    ComplexDecay,
    Keys,
    SortedKeys,
    StencilIndices,
    ParticleIds,
};

struct DataSet {
    const char *name;
    Family family;
    Surface surface; // Grid only
    size_t points;   // Grid: points per axis; Records: doubles per record
    bool sorted;     // Grid only
    const char *description;
};

constexpr DataSet kSets[] = {
    {"linear", Family::Linear, Surface::Gauss, 0, false,
     "f(x) = 0.5*x at x = 0, 1, 2, ...: exact values, constant stride (best case)"},
    {"gauss-256", Family::Grid, Surface::Gauss, 256, false,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 256^2 points, row-major"},
    {"gauss-256-sorted", Family::Grid, Surface::Gauss, 256, true,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 256^2 points, ascending"},
    {"gauss-512", Family::Grid, Surface::Gauss, 512, false,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 512^2 points, row-major"},
    {"gauss-512-sorted", Family::Grid, Surface::Gauss, 512, true,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 512^2 points, ascending"},
    {"gauss-1024", Family::Grid, Surface::Gauss, 1024, false,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 1024^2 points, row-major"},
    {"gauss-1024-sorted", Family::Grid, Surface::Gauss, 1024, true,
     "exp(-x^2)exp(-y^2) on [-2,2)^2, 1024^2 points, ascending"},
    {"sincos-256", Family::Grid, Surface::SinCos, 256, false,
     "sin(x)cos(y) on [-6,6)^2, 256^2 points, row-major"},
    {"sincos-256-sorted", Family::Grid, Surface::SinCos, 256, true,
     "sin(x)cos(y) on [-6,6)^2, 256^2 points, ascending"},
    {"sincos-512", Family::Grid, Surface::SinCos, 512, false,
     "sin(x)cos(y) on [-6,6)^2, 512^2 points, row-major"},
    {"sincos-512-sorted", Family::Grid, Surface::SinCos, 512, true,
     "sin(x)cos(y) on [-6,6)^2, 512^2 points, ascending"},
    {"sincos-1024", Family::Grid, Surface::SinCos, 1024, false,
     "sin(x)cos(y) on [-6,6)^2, 1024^2 points, row-major"},
    {"sincos-1024-sorted", Family::Grid, Surface::SinCos, 1024, true,
     "sin(x)cos(y) on [-6,6)^2, 1024^2 points, ascending"},
    {"heat3d", Family::HeatField, Surface::Gauss, 0, false,
     "3-D heat simulation, periodic 128^3 box, whole field at time step <seed>"},
    {"heat3d-halo", Family::HeatHalo, Surface::Gauss, 0, false,
     "3-D heat simulation, the 6 face planes (depth 0, 1, ...) at time step <seed>"},
    {"random", Family::RandomBits, Surface::Gauss, 0, false,
     "random bit patterns of finite doubles (incompressible), seeded"},
    {"random-unit", Family::RandomUnit, Surface::Gauss, 0, false,
     "uniform doubles in [0,1), seeded"},
    {"special", Family::Special, Surface::Gauss, 0, false,
     "NaNs with payloads (quiet, signalling, both signs), +-0, +-inf, denormals, mixed with "
     "normals"},
    {"records-3", Family::Records, Surface::Gauss, 3, false,
     "velocity records (u, v, w) per point of a 256^2 face, w = 0 outside a jet (25% zeros)"},
    {"records-5", Family::Records, Surface::Gauss, 5, false,
     "conserved-variable records (rho, rho u, rho v, rho w, E) per point, 25% exact zeros"},
    {"records-8", Family::Records, Surface::Gauss, 8, false,
     "stress tensor, pressure, temperature per point, shear components zero (25% zeros)"},
    {"complex-decay", Family::ComplexDecay, Surface::Gauss, 0, false,
     "(re, im) pairs of a damped random spectrum on a 256^2 wave-number grid, seeded"},
    {"keys-i32", Family::Keys, Surface::Gauss, 0, false,
     "int32 bucket-sort keys in [0, 2^11), mean of 4 uniform draws, random order, seeded"},
    {"keys-sorted-i32", Family::SortedKeys, Surface::Gauss, 0, false,
     "int32: 2^18 keys of [0, 2^19) sorted ascending, seeded"},
    {"indices-i32", Family::StencilIndices, Surface::Gauss, 0, false,
     "int32 column indices of a 27-point stencil matrix on a 64^3 grid, row by row"},
    {"ids-i64", Family::ParticleIds, Surface::Gauss, 0, false,
     "int64 particle ids: ascending with gaps, a new cell every ~40, seeded"},
};
constexpr size_t kSetCount = sizeof kSets / sizeof kSets[0];

// Names zipbench used before this library existed.
struct Alias {
    const char *alias, *target;
};
constexpr Alias kAliases[] = {
    {"gauss", "gauss-1024"},   {"gauss-sorted", "gauss-1024-sorted"},
    {"sincos", "sincos-1024"}, {"sincos-sorted", "sincos-1024-sorted"},
    {"heat", "heat3d"},
};

const DataSet *find(const char *name)
{
    if (!name)
        return nullptr;
    for (const Alias &a : kAliases)
        if (std::strcmp(name, a.alias) == 0)
            name = a.target;
    for (const DataSet &s : kSets)
        if (std::strcmp(name, s.name) == 0)
            return &s;
    return nullptr;
}

} // namespace
} // namespace zipdata

using namespace zipdata;

extern "C" {

size_t zipdata_count(void)
{
    return kSetCount;
}

const char *zipdata_name(size_t i)
{
    return i < kSetCount ? kSets[i].name : nullptr;
}

const char *zipdata_description(const char *name)
{
    const DataSet *s = find(name);
    return s ? s->description : nullptr;
}

size_t zipdata_natural_count(const char *name)
{
    const DataSet *s = find(name);
    if (!s)
        return 0;
    switch (s->family) {
    case Family::Grid:
        return s->points * s->points;
    case Family::HeatField:
        return kHeatEdge * kHeatEdge * kHeatEdge;
    case Family::HeatHalo:
        return kHeatEdge / 2 * 6 * kHeatEdge * kHeatEdge;
    case Family::Records:
        return s->points * kRecordFace * kRecordFace;
    case Family::ComplexDecay:
        return 2 * kRecordFace * kRecordFace;
    case Family::SortedKeys:
        return kSortedKeyCount / 2;
    default:
        return ZIPDATA_UNBOUNDED;
    }
}

int zipdata_uses_seed(const char *name)
{
    const DataSet *s = find(name);
    return s && s->family != Family::Linear && s->family != Family::Grid &&
           s->family != Family::Records && s->family != Family::StencilIndices;
}

zipdata_type_t zipdata_type(const char *name)
{
    const DataSet *s = find(name);
    if (!s)
        return ZIPDATA_F64;
    switch (s->family) {
    case Family::Keys:
    case Family::SortedKeys:
    case Family::StencilIndices:
        return ZIPDATA_I32;
    case Family::ParticleIds:
        return ZIPDATA_I64;
    default:
        return ZIPDATA_F64;
    }
}

int zipdata_fill(const char *name, double *out, size_t n, uint64_t seed_or_step)
{
    const DataSet *s = find(name);
    if (!s)
        return ZIPDATA_E_NAME;
    if (!out && n > 0)
        return ZIPDATA_E_ARG;
    switch (s->family) {
    case Family::Linear:
        return fill_linear(out, n);
    case Family::Grid:
        return fill_grid2d(s->surface, s->points, s->sorted, out, n);
    case Family::HeatField:
    case Family::HeatHalo:
        if (seed_or_step > ZIPDATA_MAX_STEP)
            return ZIPDATA_E_ARG;
        return s->family == Family::HeatField ? fill_heat3d_field(out, n, seed_or_step)
                                              : fill_heat3d_halo(out, n, seed_or_step);
    case Family::RandomBits:
        return fill_random_bits(out, n, seed_or_step);
    case Family::RandomUnit:
        return fill_random_unit(out, n, seed_or_step);
    case Family::Special:
        return fill_special(out, n, seed_or_step);
    case Family::Records:
        return fill_records(s->points, out, n);
    case Family::ComplexDecay:
        return fill_complex_decay(out, n, seed_or_step);
    case Family::Keys:
        return fill_keys(out, n, seed_or_step);
    case Family::SortedKeys:
        return fill_sorted_keys(out, n, seed_or_step);
    case Family::StencilIndices:
        return fill_stencil_indices(out, n);
    case Family::ParticleIds:
        return fill_particle_ids(out, n, seed_or_step);
    }
    return ZIPDATA_E_NAME;
}

void zipdata_release(void)
{
    release_heat3d();
}

} // extern "C"
