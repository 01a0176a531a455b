// Included first by every generator that does floating-point arithmetic: the data must be
// bit-identical on every machine, so a*b+c must not be contracted into an FMA (GCC contracts by
// default in C++ when the target has FMA, e.g. with -march=native). The build also passes
// -ffp-contract=off; this pragma keeps hand builds honest.
#pragma once

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
