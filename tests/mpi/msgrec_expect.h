/*
 * What the msgrec tests (test_msgrec.c, test_msgrec_f.f90) expect the recorder to write: each
 * test declares every payload it sends as it sends it, then, after MPI_Finalize has closed the
 * recorder's files, compares its rank's index and data file with the declarations, applying
 * the recorder's settings (MSGREC_MIN_BYTES, MSGREC_SKIP, MSGREC_EVERY, MSGREC_MAX_BYTES) as
 * perftest/msgrec/README.md specifies them. Callable from Fortran (bind(C)).
 */
#ifndef MSGREC_EXPECT_H
#define MSGREC_EXPECT_H

#include <stddef.h>

/* The payloads declared from here on belong to one new MPI call (they share a call number). */
void expect_call(void);

/* A payload of `bytes` bytes at `data` (copied now), of element type `elem` ("f64", "i32",
 * "bytes", ...), sent by the current call's `op` to `peer` with `tag`, as the index says them. */
void expect_msg(const char *op, const char *elem, const void *data, long bytes, int peer, int tag);

/* Compares rank `rank`'s files in $MSGREC_DIR with the declarations. Prints "FAIL: msgrec ..."
 * for each difference and returns their number. */
int expect_check(int rank);

#endif /* MSGREC_EXPECT_H */
