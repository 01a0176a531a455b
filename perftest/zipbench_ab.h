/* zipbench --ab: zip against stock Open MPI inside one job. Three duplicates of the job's
 * communicator: "default" and "default-again" made with the MPI_Info key zip_coll=false (no
 * coll/zip module: the collectives stock Open MPI selects; the second is the A/A control) and
 * "zip", a plain duplicate (coll/zip under the job's MCA settings). One point's operation,
 * created once on each of them, is timed interleaved: short blocks of a few repetitions, each
 * block running the three in the next of the six orders, so that drift of the machine, process
 * placement and the history of the transport hit all three alike. Separate jobs per mode differ
 * by far more than what is measured on a fast link (stock against stock: 0.65-1.72x,
 * docs/performance.md "Fast link"). */
#ifndef ZIPBENCH_AB_H
#define ZIPBENCH_AB_H

#include <mpi.h>

#include "zipbench_ops.h"
#include "zipbench_timing.h"
#include "zipbench_zipstats.h"

enum { ZB_AB_DEFAULT, ZB_AB_ZIP, ZB_AB_AGAIN, ZB_AB_COMMS };

/* The rows' mode labels, by ZB_AB_*: "default", "zip", "default-again". */
extern const char *const zb_ab_modes[ZB_AB_COMMS];

/* The three duplicates of parent (collective); zb_ab_close frees them. */
void zb_ab_open(MPI_Comm parent, MPI_Comm comms[ZB_AB_COMMS]);
void zb_ab_close(MPI_Comm comms[ZB_AB_COMMS]);

/* Times ops[c] (the same operation, data and size on comms[c]) interleaved: o->warmup (at
 * least 1) repetitions of each first, then at least min_blocks blocks (rounded up to a multiple
 * of six, one order each), with a barrier over `all` before every block. Repetitions per block (1
 * to 3) and blocks follow from o->budget_s (timed seconds per communicator) and o->max_reps; each
 * repetition is zb_time_rep's, the root rotating as in zb_measure. Collective over all. */
void zb_ab_measure(zb_op *const ops[ZB_AB_COMMS], const zb_timing_opts *o, int min_blocks,
                   MPI_Comm all, zb_timing out[ZB_AB_COMMS]);

/* After all timing (stats: the caller's MPI_T session, NULL where none opened): one untimed
 * run of each ops[c]. The calls of statistics row stats_op that coll/zip counted in them,
 * summed over ranks, must be none on the default communicators and some on the zip one. Rank 0
 * prints them on a comment line ("# ab <label>: coll/zip calls default N zip N default-again N"),
 * and what is wrong on stderr. Collective over MPI_COMM_WORLD; returns nonzero, on every rank, when
 * the rows would not be what their labels say. */
int zb_ab_check(zb_op *const ops[ZB_AB_COMMS], const char *stats_op, const char *label,
                zb_zipstats *stats);

#endif
