/* The "corpus:DIR" data set of zipbench: double messages an application really sent, recorded
 * by perftest/msgrec (perftest/msgrec/README.md), so that the network figures can be shown on
 * real data as well as on the synthetic sets. */
#ifndef ZIPBENCH_CORPUS_H
#define ZIPBENCH_CORPUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills out[0..n) with f64 messages recorded under `dir` (one application's directory, or a
 * directory of them: every application in name order), whole messages back to back: a sample
 * of the messages spread evenly over the applications, their ranks and each rank's index (its
 * run), kept in that order; the last message is cut where out ends. Messages of other element
 * types are skipped. Deterministic: every process reading the same directory gets the same
 * doubles. Returns 0, or -1 with the reason in err[0..errlen) when the
 * directory cannot be read or holds fewer than n recorded doubles (the data are not repeated:
 * a repeat would let a codec find long matches no application sends). */
int zb_corpus_fill(const char *dir, double *out, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
