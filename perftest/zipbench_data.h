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

/* The data set's name in rows and CSV files: the name, or for "corpus:DIR" "corpus-" and the
 * last component of DIR (corpus-lulesh), so that a path puts no comma or slash in a CSV. */
void zb_dataset_label(const char *name, char *out, size_t len);

#endif
