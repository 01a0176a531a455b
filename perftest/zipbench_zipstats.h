/* The zip component's own traffic counters (MPI_T performance variables
 * coll_zip_<op>_bytes_in / _bytes_out), so that zip rows report the compression ratio that
 * actually went over the wire, not an estimate; and the calls its policy handed to the previous
 * component (_calls_link_faster + _calls_never), so that a row without zip traffic says why;
 * and the calls that reached it (_calls), so that zipbench --ab can tell that only its zip
 * communicator has zip. */
#ifndef ZIPBENCH_ZIPSTATS_H
#define ZIPBENCH_ZIPSTATS_H

typedef struct zb_zipstats zb_zipstats;

/* NULL when the component exports no counters at all (not loaded, or an older build). */
zb_zipstats *zb_zipstats_open(void);
void zb_zipstats_close(zb_zipstats *s);

/* This process's cumulative bytes before (*in) and after (*out) compression for operation
 * `op` (the statistics row: "bcast", "ialltoallv", ...), and the calls the policy handed on
 * (*handed_on). Returns 0, or -1 for an operation the component has no counters for (one it
 * does not take). */
int zb_zipstats_read(zb_zipstats *s, const char *op, unsigned long long *in,
                     unsigned long long *out, unsigned long long *handed_on);

/* This process's cumulative calls of `op` that reached the component (whatever it then did
 * with them: a communicator without coll/zip adds none). Returns 0, or -1 as above. */
int zb_zipstats_calls(zb_zipstats *s, const char *op, unsigned long long *calls);

#endif
