/*
 * zipdata: deterministic benchmark and test data for ompi-zip (C API, usable from C and C++).
 *
 * Every data set is a pure function of (name, n, seed_or_step): any rank, on any machine, can
 * regenerate bit-identical data for another rank, so a receiver can check a message without being
 * sent a reference copy. The generators use only IEEE +,-,*,/ (own exp/sin/cos, no libm
 * transcendental functions, FP contraction off), so results do not depend on the libm or the CPU.
 *
 * Data sets (zipdata_count()/zipdata_name() list them; zipdata_description() says more):
 *   linear              f(x) = a*x with a = ZIPDATA_LINEAR_A, x = 0, 1, 2, ... (exact values and a
 *                       constant stride: the paper's best case, FPC ratio ~15). Any n.
 *   gauss-N[-sorted]    exp(-x^2) exp(-y^2) on [-2,2)^2, N x N points, N = 256, 512, 1024.
 *   sincos-N[-sorted]   sin(x) cos(y) on [-6,6)^2, N x N points, N = 256, 512, 1024.
 *                       Grid: x_i = x0 + i*(x1-x0)/N, i = 0..N-1 (half-open, so x = 0 is the point
 *                       i = N/2 and the coordinates are exact); row-major with x fastest (the
 *                       paper's "natural" order), or all N*N values in ascending order ("-sorted";
 *                       -0.0 before +0.0). n != N*N: value k is grid value k mod N*N (crop when
 *                       n < N*N, repeat the whole grid when n > N*N).
 *   heat3d              3-D explicit heat equation on a periodic 128^3 box (7-point stencil),
 *                       whole field at time step seed_or_step, x fastest then y then z.
 * Temperatures ~ 280..400. Tiled like the grids beyond 128^3 values (16 MiB). heat3d-halo the
 * halo-exchange message of the same simulation at step seed_or_step: the six face planes of the box
 * (x=d, x=127-d, y=d, y=127-d, z=d, z=127-d, each 128^2 values) for depth d = 0, then d = 1, ... (a
 * halo of width w is the first w*6*128^2 values); repeats after d = 63. Consecutive steps give
 *                       similar messages (the temporal codec's case).
 *   random              uniformly random bit patterns of finite doubles (NaN/inf patterns are
 *                       drawn again): incompressible. xoshiro256** seeded with seed_or_step.
 *   random-unit         uniform doubles in [0,1) (53-bit), seeded: nearly incompressible.
 *   special             special values mixed with normal ones: the first 20 values are a fixed
 *                       catalogue (+-0, +-inf, quiet and signalling NaNs of both signs with
 *                       payloads, denormals, DBL_MIN, +-DBL_MAX, ...); after that each value is,
 *                       by a seeded coin, a smooth normal value or a random special value.
 *   records-3/5/8       records of 3, 5 or 8 doubles per point of a 256^2 face (velocity; conserved
 *                       variables rho, rho u, rho v, rho w, E; stress tensor, pressure,
 *                       temperature), x fastest: fields of different magnitudes interleaved, and
 *                       25% of the doubles exactly 0.0 in long stretches (a component that only
 *                       exists inside a jet or in the moving half of the face), low bits noisy.
 *                       The layout of real halo messages (issue 11). Repeat after the face.
 *   complex-decay       (re, im) pairs of a damped random spectrum (FFT payloads): noise whose
 *                       exponent falls with the wave number. Seeded; repeats after 256^2 pairs.
 *   keys-i32            int32 (zipdata_type): bucket-sort keys in [0, 2^11), the mean of four
 *                       uniform draws (as NPB IS), random order. Seeded.
 *   keys-sorted-i32     int32: 2^18 keys of [0, 2^19) in ascending order, then repeated. Seeded.
 *   indices-i32         int32: column indices of a 27-point stencil matrix on a 64^3 grid.
 *   ids-i64             int64: particle ids ascending with gaps, a new random start every ~40.
 *                       Seeded.
 * Integer sets fill the bytes of the double buffer with little-endian integers (n doubles hold
 * 2n int32 or n int64 values), so every set fills the same buffer and prefixes still work.
 * seed_or_step is ignored by linear, gauss-*, sincos-*, records-* and indices-i32; it is the time
 * step for heat3d* (cost grows with the step: the simulation runs from the last step it computed,
 * or from 0). Aliases accepted by zipdata_fill (not listed): gauss, gauss-sorted, sincos,
 * sincos-sorted (the 1024 grids) and heat (heat3d), so that zipbench's names keep working.
 */
#ifndef ZIPDATA_H
#define ZIPDATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Slope of the linear data set. */
#define ZIPDATA_LINEAR_A 0.5

/* Return codes of the fill functions. */
#define ZIPDATA_OK 0
#define ZIPDATA_E_NAME (-1)  /* unknown data set name */
#define ZIPDATA_E_ARG (-2)   /* null pointer with n > 0, or a step beyond ZIPDATA_MAX_STEP */
#define ZIPDATA_E_NOMEM (-3) /* could not allocate the generator's scratch memory */
#define ZIPDATA_E_TYPE (-4)  /* zipdata_fill_f32 of an integer set */

/* What the elements of a data set are. */
typedef enum zipdata_type { ZIPDATA_F64 = 0, ZIPDATA_I32 = 1, ZIPDATA_I64 = 2 } zipdata_type_t;

/* Largest time step the heat3d sets accept (about a minute of simulation per 10000 steps). */
#define ZIPDATA_MAX_STEP 100000u

/* zipdata_natural_count() of a data set that has no natural size (any n is equally natural). */
#define ZIPDATA_UNBOUNDED ((size_t)-1)

/* Number of listed data sets, and the name of set i (NULL when i >= zipdata_count()). */
size_t zipdata_count(void);
const char *zipdata_name(size_t i);

/* One-line description of a data set (or alias); NULL for an unknown name. */
const char *zipdata_description(const char *name);

/* Element type of a data set (ZIPDATA_F64 for an unknown name). */
zipdata_type_t zipdata_type(const char *name);

/* Doubles (8-byte words, for the integer sets too) before the set starts repeating (grid size,
 * field size), ZIPDATA_UNBOUNDED for sets without repetition, 0 for an unknown name. */
size_t zipdata_natural_count(const char *name);

/* Nonzero when seed_or_step changes the data of the set (random, special, heat3d*). */
int zipdata_uses_seed(const char *name);

/* Fills out[0..n) with data set `name` (integer sets: the 8n bytes with integers). Returns
 * ZIPDATA_OK or a ZIPDATA_E_* code. Thread-safe. */
int zipdata_fill(const char *name, double *out, size_t n, uint64_t seed_or_step);

/* Same data as binary32: zipdata_fill followed by zipdata_to_f32. ZIPDATA_E_TYPE for integer
 * sets. */
int zipdata_fill_f32(const char *name, float *out, size_t n, uint64_t seed_or_step);

/* Converts doubles to floats deterministically: round to nearest, overflow to +-inf, values below
 * the float range to (signed) zero or a float denormal; a NaN stays a NaN of the same sign with
 * the top 22 payload bits kept and the quiet bit set (what x86 and ARM hardware do). */
void zipdata_to_f32(const double *in, float *out, size_t n);

/* Frees the memory the heat3d simulation keeps between calls (~32 MiB). Optional. */
void zipdata_release(void);

#ifdef __cplusplus
}
#endif

#endif /* ZIPDATA_H */
