/* Data sets for zipbench: smooth fields, sorted fields, a stencil step and random doubles.
 * Stand-in until perftest/data/zipdata.h exists; the names match the list so CSVs stay
 * comparable when the generator is swapped. */
#ifndef ZIPBENCH_DATA_H
#define ZIPBENCH_DATA_H

#include <stddef.h>

/* Comma-separated list of the data set names zb_fill understands. */
extern const char *const zb_dataset_names;

/* Data set of recorded application messages (zipbench_corpus.h): "corpus:" and a directory
 * written by perftest/msgrec. Not in zb_dataset_names: the corpus is generated, not shipped. */
#define ZB_CORPUS_PREFIX "corpus:"

/* Fills out[0..n) with data set `name`. Returns 0, or -1 with the reason in err[0..errlen)
 * (an unknown name, a corpus that cannot be read or is too small). Deterministic: every rank
 * generating the same (name, n) gets bit-identical data, which is what lets a receiver verify
 * a message without being sent a reference copy. */
int zb_fill(const char *name, double *out, size_t n, char *err, size_t errlen);

/* --evolve: the share of elements zb_evolve changes per step in the sets that have no time
 * step of their own (one in ZB_EVOLVE_EVERY). */
#define ZB_EVOLVE_EVERY 64

/* --evolve: advances F[0..n), data set `name` after step - 1 evolution steps (0: zb_fill's
 * data), by one step. The heat sets (heat, heat3d, heat3d-halo) take one more explicit step
 * of their heat equation: F becomes what zb_fill gives at the simulation's next time step.
 * Every other set, the corpus included, is perturbed: n / ZB_EVOLVE_EVERY elements (at least
 * one), at positions drawn by a xorshift generator seeded with `step`, are each multiplied by
 * 1 + d with d drawn from the same generator, |d| < 1e-3 (a value the product would turn into
 * an infinity or a NaN is left as it is; a NaN stays). Deterministic like zb_fill: every rank
 * advancing the same (name, n) through the same steps holds bit-identical data. Returns 0, or
 * -1 with the reason in err[0..errlen). */
int zb_evolve(const char *name, double *F, size_t n, unsigned long step, char *err, size_t errlen);

/* The data set's name in rows and CSV files: the name, or for "corpus:DIR" "corpus-" and the
 * last component of DIR (corpus-lulesh), so that a path puts no comma or slash in a CSV. */
void zb_dataset_label(const char *name, char *out, size_t len);

#endif
