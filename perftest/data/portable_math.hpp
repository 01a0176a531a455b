// exp, sin and cos built from IEEE +,-,*,/ only, so that the data sets come out bit-identical
// whatever libm the machine has (glibc, musl and vendor libms differ in the last bit). Accurate to
// a few ulp, which is plenty for test data; speed is secondary.
#pragma once

namespace zipdata
{

double portable_exp(double x); // finite x; underflows to 0 below ~ -745, overflows to inf
double portable_sin(double x); // |x| < 1e6 (the reduction is exact only for moderate x)
double portable_cos(double x); // |x| < 1e6

} // namespace zipdata
