// records-3/5/8 and complex-decay: payloads laid out as records of several doubles per grid
// point, the layout of real halo and transpose messages (issue 11): a CFD code sends all of a
// point's variables together, and some of them are exactly zero over long stretches (a velocity
// component outside a jet, shear stresses in a quiescent region). Prediction from the previous
// value mixes fields of different size; prediction from one record back does not.
//
// The face is a kFace x kFace grid of points, x fastest, coordinates in [0, 1). A jet of radius
// kJet around the centre covers ~25% of it; the upper half (y >= 0.5) is the moving half. Values
// come from portable_math (bit-identical everywhere) plus cell-scale noise in the low bits.
#include "deterministic_fp.hpp"

#include <cstring>

#include "generators.hpp"
#include "portable_math.hpp"
#include "prng.hpp"
#include "zipdata.h"

namespace zipdata
{
namespace
{

constexpr double kTwoPi = 6.283185307179586;
constexpr double kJet = 0.28; // pi * 0.28^2 ~ 0.246 of the face

struct Point {
    double x, y;
    double jet;    // 1 - r^2 / kJet^2 inside the jet, 0 outside (exactly)
    bool moving;   // upper half of the face
    double smooth; // a smooth O(1) background, sin(2 pi x) cos(2 pi y)
};

Point point(size_t p)
{
    Point q;
    q.x = static_cast<double>(p % kRecordFace) / static_cast<double>(kRecordFace);
    q.y = static_cast<double>(p / kRecordFace % kRecordFace) / static_cast<double>(kRecordFace);
    double dx = q.x - 0.5, dy = q.y - 0.5, r2 = dx * dx + dy * dy;
    q.jet = r2 < kJet * kJet ? 1.0 - r2 / (kJet * kJet) : 0.0;
    q.moving = q.y >= 0.5;
    q.smooth = portable_sin(kTwoPi * q.x) * portable_cos(kTwoPi * q.y);
    return q;
}

// Relative noise of the last ~20 bits, as a solver's round-off leaves them; a pure function of
// (point, field) so that value k does not depend on n.
double noise(size_t p, size_t field)
{
    uint64_t state = p * 16 + field;
    return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53 * 0x1.0p-32;
}

double with_noise(double v, size_t p, size_t f)
{
    return v == 0.0 ? 0.0 : v * (1.0 + noise(p, f));
}

// velocity (u, v, w): w only inside the jet. 25% of the doubles are exactly 0.
double velocity(const Point &q, size_t f)
{
    switch (f) {
    case 0:
        return 0.8 + 0.2 * q.smooth;
    case 1:
        return 0.3 * portable_cos(kTwoPi * q.x) * portable_sin(2.0 * kTwoPi * q.y);
    default:
        return 1.5 * q.jet;
    }
}

// conserved variables (rho, rho u, rho v, rho w, E): rho v only in the moving half, rho w only
// in the jet. 25% zeros, fields of very different magnitudes (E ~ 2.5e5).
double conserved(const Point &q, size_t f)
{
    double rho =
        1.2 + 0.05 * portable_exp(-((q.x - 0.5) * (q.x - 0.5) + (q.y - 0.5) * (q.y - 0.5)) / 0.1);
    switch (f) {
    case 0:
        return rho;
    case 1:
        return rho * (0.8 + 0.2 * q.smooth);
    case 2:
        return q.moving ? rho * 0.4 * portable_sin(kTwoPi * q.x) : 0.0;
    case 3:
        return rho * 1.5 * q.jet;
    default:
        return 2.5e5 * (1.0 + 0.01 * q.smooth) + 0.5 * rho;
    }
}

// stress tensor (xx, yy, zz, xy, xz, yz), pressure, temperature: xy only in the moving half,
// xz and yz only in the jet. 25% zeros.
double stress(const Point &q, size_t f)
{
    double p = 1.0e5 * (1.0 + 0.02 * q.smooth);
    switch (f) {
    case 0:
    case 1:
    case 2:
        return -p + 10.0 * static_cast<double>(f + 1) * q.smooth;
    case 3:
        return q.moving ? 35.0 * portable_cos(kTwoPi * q.y) : 0.0;
    case 4:
        return 12.0 * q.jet * (q.x - 0.5);
    case 5:
        return 12.0 * q.jet * (q.y - 0.5);
    case 6:
        return p;
    default:
        return 300.0 + 40.0 * q.jet + 5.0 * q.smooth;
    }
}

} // namespace

int fill_records(size_t fields, double *out, size_t n)
{
    const size_t points = kRecordFace * kRecordFace;
    for (size_t k = 0; k < n; ++k) {
        size_t p = k / fields % points, f = k % fields;
        Point q = point(p); // recomputed per field: value k must not depend on n or the order
        double v = fields == 3 ? velocity(q, f) : fields == 5 ? conserved(q, f) : stress(q, f);
        out[k] = with_noise(v, p, f);
    }
    return ZIPDATA_OK;
}

// The spectrum of an FFT-based solver after some steps: (re, im) pairs, each a random amplitude
// damped by exp(-a |k|^2) over a 2-D wave-number grid: the exponent falls with |k|, the mantissa
// is noise. Nearly incompressible, as FFT payloads are.
int fill_complex_decay(double *out, size_t n, uint64_t seed)
{
    const size_t points = kRecordFace * kRecordFace;
    for (size_t k = 0; k < n; ++k) {
        size_t p = k / 2 % points;
        double kx = static_cast<double>(p % kRecordFace) - static_cast<double>(kRecordFace / 2);
        double ky = static_cast<double>(p / kRecordFace) - static_cast<double>(kRecordFace / 2);
        uint64_t state = seed * 0x9E3779B97F4A7C15ull + k % (2 * points);
        double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53 - 0.5;
        out[k] = u * portable_exp(-2.0e-4 * (kx * kx + ky * ky));
    }
    return ZIPDATA_OK;
}

} // namespace zipdata
