/* Data sets for zipbench: smooth fields, sorted fields, a stencil step and random doubles.
 * Stand-in until perftest/data/zipdata.h exists; the names match the list so CSVs stay
 * comparable when the generator is swapped. */
#ifndef ZIPBENCH_DATA_H
#define ZIPBENCH_DATA_H

#include <stddef.h>

/* Comma-separated list of the data set names zb_fill understands. */
extern const char *const zb_dataset_names;

/* Fills out[0..n) with data set `name`. Returns 0, or -1 for an unknown name. Deterministic:
 * every rank generating the same (name, n) gets bit-identical data, which is what lets a
 * receiver verify a message without being sent a reference copy. */
int zb_fill(const char *name, double *out, size_t n);

#endif
