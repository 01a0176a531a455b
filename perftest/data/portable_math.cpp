#include "deterministic_fp.hpp"

#include "portable_math.hpp"

#include <cmath>

namespace zipdata
{
namespace
{

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (fdlibm's constants).
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

// pi/2 split the same way (33 + 53 bits): exact reduction for |k| < 2^20.
constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kPio2Hi = 1.57079632673412561417e+00;
constexpr double kPio2Lo = 6.07710050650619224932e-11;

// 1/i! for i = 0..20, evaluated at compile time with IEEE double division (the same on every
// machine), so the series below are fixed polynomials.
constexpr int kTerms = 21;
struct InverseFactorials {
    double v[kTerms];
    constexpr InverseFactorials() : v{}
    {
        double fact = 1.0;
        for (int i = 0; i < kTerms; ++i) {
            if (i > 1)
                fact *= i;
            v[i] = 1.0 / fact;
        }
    }
};
constexpr InverseFactorials kInvFact;

double exp_reduced(double r) // |r| <= ln2/2: sum r^i/i! to i = 17 (truncation error < 1e-19)
{
    double sum = 0.0;
    for (int i = 17; i >= 0; --i)
        sum = sum * r + kInvFact.v[i];
    return sum;
}

double sin_reduced(double r) // |r| <= pi/4: r - r^3/3! + ... - r^19/19!
{
    double r2 = r * r, sum = 0.0;
    for (int i = 19; i >= 1; i -= 2)
        sum = sum * r2 + ((i / 2) % 2 ? -kInvFact.v[i] : kInvFact.v[i]);
    return sum * r;
}

double cos_reduced(double r) // |r| <= pi/4: 1 - r^2/2! + ... + r^20/20!
{
    double r2 = r * r, sum = 0.0;
    for (int i = 20; i >= 0; i -= 2)
        sum = sum * r2 + ((i / 2) % 2 ? -kInvFact.v[i] : kInvFact.v[i]);
    return sum;
}

// sin(x) for quadrant offset q (q = 1 gives cos): reduce x = k*pi/2 + r, then pick by (k+q) mod 4.
double sin_quadrant(double x, int q)
{
    double k = std::floor(x * kTwoOverPi + 0.5);
    double r = (x - k * kPio2Hi) - k * kPio2Lo;
    long quadrant = (static_cast<long>(k) + q) & 3;
    switch (quadrant) {
    case 0:
        return sin_reduced(r);
    case 1:
        return cos_reduced(r);
    case 2:
        return -sin_reduced(r);
    default:
        return -cos_reduced(r);
    }
}

} // namespace

double portable_exp(double x)
{
    if (x > 709.8)
        return HUGE_VAL;
    if (x < -745.2)
        return 0.0;
    // x = k ln2 + r with |r| <= ln2/2; exp(r) by its Taylor series.
    double k = std::floor(x * kInvLn2 + 0.5);
    double r = (x - k * kLn2Hi) - k * kLn2Lo;
    double e = exp_reduced(r);
    // ldexp is exact except when the result is denormal, where it rounds per IEEE: deterministic.
    // Split the scaling so that 2^k itself never overflows for k in [-1075, 1024].
    int ki = static_cast<int>(k);
    return std::ldexp(std::ldexp(e, ki / 2), ki - ki / 2);
}

double portable_sin(double x)
{
    return sin_quadrant(x, 0);
}
double portable_cos(double x)
{
    return sin_quadrant(x, 1);
}

} // namespace zipdata
