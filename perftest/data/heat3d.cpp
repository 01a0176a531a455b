// heat3d and heat3d-halo: a small explicit 3-D heat simulation, the kind of solver whose halo
// exchanges ompi-zip compresses. Data at step t come from t stencil steps after a fixed initial
// field, so consecutive steps are close (temporal codec) and every step is smooth, realistic data.
//
// The box is periodic (it stands for one subdomain of a larger run and needs no boundary code),
// edge kHeatEdge, u' = u + r * (sum of the 6 neighbours - 6u) with r = 1/8 (stable below 1/6).
// The state of the last step computed is kept, so asking for steps t, t+1, ... costs one stencil
// sweep each (~10 ms); asking for an earlier step restarts from step 0.
#include "deterministic_fp.hpp"

#include <cmath>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "generators.hpp"
#include "portable_math.hpp"
#include "prng.hpp"
#include "zipdata.h"

namespace zipdata
{
namespace
{

constexpr size_t E = kHeatEdge;
constexpr size_t kCells = E * E * E;
constexpr double kDiffusion = 0.125; // alpha * dt / dx^2
constexpr double kTwoPi = 6.283185307179586;

size_t at(size_t x, size_t y, size_t z)
{
    return (z * E + y) * E + x;
}

// Position of cell i along an axis in [0, 1), and its periodic distance to c.
double coord(size_t i)
{
    return static_cast<double>(i) / static_cast<double>(E);
}
double periodic_distance(double p, double c)
{
    double d = std::fabs(p - c);
    return d < 0.5 ? d : 1.0 - d;
}

struct HotSpot {
    double cx, cy, cz, amplitude, width;
};
// Two hot spots and a cold one on a 300 K background with a gentle periodic wave.
constexpr HotSpot kSpots[] = {
    {0.30, 0.60, 0.50, 80.0, 0.06},
    {0.75, 0.20, 0.30, 50.0, 0.10},
    {0.50, 0.85, 0.80, -25.0, 0.08},
};

// Separable pieces are tabulated per axis: a Gaussian is exp(-dx^2/2w^2) exp(-dy^2/2w^2) ...
void initial_field(std::vector<double> &u)
{
    std::vector<double> wave_x(E), wave_y(E), wave_z(E);
    for (size_t i = 0; i < E; ++i) {
        wave_x[i] = portable_sin(kTwoPi * coord(i));
        wave_y[i] = portable_sin(kTwoPi * coord(i));
        wave_z[i] = portable_cos(kTwoPi * coord(i));
    }
    for (size_t i = 0; i < kCells; ++i)
        u[i] = 300.0 + 20.0 * wave_x[i % E] * wave_y[i / E % E] * wave_z[i / (E * E)];

    std::vector<double> gx(E), gy(E), gz(E);
    for (const HotSpot &s : kSpots) {
        double inv = 1.0 / (2.0 * s.width * s.width);
        for (size_t i = 0; i < E; ++i) {
            double dx = periodic_distance(coord(i), s.cx), dy = periodic_distance(coord(i), s.cy),
                   dz = periodic_distance(coord(i), s.cz);
            gx[i] = portable_exp(-dx * dx * inv);
            gy[i] = portable_exp(-dy * dy * inv);
            gz[i] = portable_exp(-dz * dz * inv);
        }
        for (size_t i = 0; i < kCells; ++i)
            u[i] += s.amplitude * gx[i % E] * gy[i / E % E] * gz[i / (E * E)];
    }

    // Cell-scale roughness (sensor-like noise, +-0.05 K) that the diffusion smooths out over the
    // first steps: early steps have noisy low bits, later ones do not.
    Xoshiro256 rng(0x4EA73D);
    for (size_t i = 0; i < kCells; ++i)
        u[i] += 0.1 * (rng.unit() - 0.5);
}

void stencil_step(const std::vector<double> &u, std::vector<double> &next)
{
    for (size_t z = 0; z < E; ++z) {
        size_t zm = (z + E - 1) % E, zp = (z + 1) % E;
        for (size_t y = 0; y < E; ++y) {
            size_t ym = (y + E - 1) % E, yp = (y + 1) % E;
            for (size_t x = 0; x < E; ++x) {
                size_t xm = (x + E - 1) % E, xp = (x + 1) % E;
                double c = u[at(x, y, z)];
                double sum = u[at(xm, y, z)] + u[at(xp, y, z)] + u[at(x, ym, z)] + u[at(x, yp, z)] +
                             u[at(x, y, zm)] + u[at(x, y, zp)];
                next[at(x, y, z)] = c + kDiffusion * (sum - 6.0 * c);
            }
        }
    }
}

// The simulation state shared by all callers; the mutex makes zipdata_fill thread-safe.
struct Simulation {
    std::mutex mutex;
    std::vector<double> field, scratch;
    uint64_t step = 0;
    bool ready = false;
};
Simulation &simulation()
{
    static Simulation sim;
    return sim;
}

// Brings the simulation to `step`. Caller holds the mutex.
void advance_to(Simulation &sim, uint64_t step)
{
    if (!sim.ready || sim.step > step) {
        sim.field.assign(kCells, 0.0);
        sim.scratch.assign(kCells, 0.0);
        initial_field(sim.field);
        sim.step = 0;
        sim.ready = true;
    }
    for (; sim.step < step; ++sim.step) {
        stencil_step(sim.field, sim.scratch);
        sim.field.swap(sim.scratch);
    }
}

// Value k of the halo message: layer d = k / (6 E^2) (depth from the faces), then face, then
// the face's two in-plane coordinates (second one outer).
double halo_value(const std::vector<double> &u, size_t k)
{
    const size_t face_cells = E * E, layers = E / 2;
    k %= layers * 6 * face_cells;
    size_t d = k / (6 * face_cells);
    size_t face = k / face_cells % 6;
    size_t a = k % E, b = k / E % E;
    size_t plane = face % 2 == 0 ? d : E - 1 - d;
    switch (face / 2) {
    case 0:
        return u[at(plane, a, b)]; // x = plane, y = a, z = b
    case 1:
        return u[at(a, plane, b)]; // y = plane, x = a, z = b
    default:
        return u[at(a, b, plane)]; // z = plane, x = a, y = b
    }
}

template <class Extract>
int fill_from_simulation(double *out, size_t n, uint64_t step, Extract extract)
{
    Simulation &sim = simulation();
    std::lock_guard<std::mutex> lock(sim.mutex);
    try {
        advance_to(sim, step);
    } catch (const std::bad_alloc &) {
        sim.ready = false;
        return ZIPDATA_E_NOMEM;
    }
    for (size_t k = 0; k < n; ++k)
        out[k] = extract(sim.field, k);
    return ZIPDATA_OK;
}

} // namespace

int fill_heat3d_field(double *out, size_t n, uint64_t step)
{
    return fill_from_simulation(
        out, n, step, [](const std::vector<double> &u, size_t k) { return u[k % kCells]; });
}

int fill_heat3d_halo(double *out, size_t n, uint64_t step)
{
    return fill_from_simulation(out, n, step, halo_value);
}

void release_heat3d()
{
    Simulation &sim = simulation();
    std::lock_guard<std::mutex> lock(sim.mutex);
    std::vector<double>().swap(sim.field);
    std::vector<double>().swap(sim.scratch);
    sim.ready = false;
    sim.step = 0;
}

} // namespace zipdata
