#include "zipbench_zipstats.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every collective zip may take; a build of the component that lacks some of them (an older one,
 * or one without the non-blocking ones) still gives counters for the rest. */
static const char *const ops[] = {"bcast",
                                  "alltoallv",
                                  "gatherv",
                                  "allreduce",
                                  "reduce",
                                  "alltoall",
                                  "gather",
                                  "scatterv",
                                  "scatter",
                                  "allgatherv",
                                  "allgather",
                                  "ibcast",
                                  "iallreduce",
                                  "ialltoall",
                                  "ialltoallv",
                                  "igather",
                                  "igatherv",
                                  "iscatter",
                                  "iscatterv",
                                  "iallgather",
                                  "iallgatherv",
                                  "alltoallw",
                                  "ialltoallw",
                                  "reduce_scatter_block",
                                  "reduce_scatter",
                                  "ireduce_scatter_block",
                                  "ireduce_scatter",
                                  "ireduce",
                                  "scan",
                                  "exscan",
                                  "iscan",
                                  "iexscan",
                                  "neighbor_alltoall",
                                  "neighbor_alltoallv",
                                  "neighbor_allgather",
                                  "neighbor_allgatherv",
                                  "ineighbor_alltoall",
                                  "ineighbor_alltoallv",
                                  "ineighbor_allgather",
                                  "ineighbor_allgatherv",
                                  "neighbor_alltoallw",
                                  "ineighbor_alltoallw"};
enum { NOPS = sizeof ops / sizeof ops[0] };

struct zb_zipstats {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle in[NOPS], out[NOPS], link_faster[NOPS], never[NOPS], calls[NOPS];
    int present[NOPS]; /* the component exports this op's five counters */
};

static int alloc_handle(zb_zipstats *s, const char *op, const char *counter, MPI_T_pvar_handle *h)
{
    char name[96];
    int idx, count;
    snprintf(name, sizeof name, "coll_zip_%s_%s", op, counter);
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS)
        return -1;
    if (MPI_T_pvar_handle_alloc(s->session, idx, NULL, h, &count) != MPI_SUCCESS)
        return -1;
    return count == 1 ? 0 : -1;
}

zb_zipstats *zb_zipstats_open(void)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return NULL;
    zb_zipstats *s = calloc(1, sizeof *s);
    if (!s || MPI_T_pvar_session_create(&s->session) != MPI_SUCCESS) {
        free(s);
        MPI_T_finalize();
        return NULL;
    }
    int found = 0;
    for (int i = 0; i < NOPS; i++) {
        s->present[i] = !alloc_handle(s, ops[i], "bytes_in", &s->in[i]) &&
                        !alloc_handle(s, ops[i], "bytes_out", &s->out[i]) &&
                        !alloc_handle(s, ops[i], "calls_link_faster", &s->link_faster[i]) &&
                        !alloc_handle(s, ops[i], "calls_never", &s->never[i]) &&
                        !alloc_handle(s, ops[i], "calls", &s->calls[i]);
        found += s->present[i];
    }
    if (!found) {
        zb_zipstats_close(s);
        return NULL;
    }
    return s;
}

void zb_zipstats_close(zb_zipstats *s)
{
    if (!s)
        return;
    /* Freeing the session frees its handles. */
    MPI_T_pvar_session_free(&s->session);
    free(s);
    MPI_T_finalize();
}

/* Index of op's counters, or -1 when the component has none. */
static int op_index(const zb_zipstats *s, const char *op)
{
    for (int i = 0; i < NOPS; i++)
        if (!strcmp(op, ops[i]))
            return s->present[i] ? i : -1;
    return -1;
}

int zb_zipstats_calls(zb_zipstats *s, const char *op, unsigned long long *calls)
{
    const int i = op_index(s, op);
    return i >= 0 && MPI_T_pvar_read(s->session, s->calls[i], calls) == MPI_SUCCESS ? 0 : -1;
}

int zb_zipstats_read(zb_zipstats *s, const char *op, unsigned long long *in,
                     unsigned long long *out, unsigned long long *handed_on)
{
    unsigned long long faster = 0, never = 0;
    const int i = op_index(s, op);
    /* Continuous counters: readable without MPI_T_pvar_start. */
    if (i < 0 || MPI_T_pvar_read(s->session, s->in[i], in) != MPI_SUCCESS ||
        MPI_T_pvar_read(s->session, s->out[i], out) != MPI_SUCCESS ||
        MPI_T_pvar_read(s->session, s->link_faster[i], &faster) != MPI_SUCCESS ||
        MPI_T_pvar_read(s->session, s->never[i], &never) != MPI_SUCCESS)
        return -1;
    *handed_on = faster + never;
    return 0;
}
