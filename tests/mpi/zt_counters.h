/*
 * Shared helpers of the tests of coll/zip's MPI_T counters (test_pvars, test_stats): whether
 * zip is expected, and handles of the counters coll_zip_<op>_<counter> in one session.
 */
#ifndef ZT_COUNTERS_H
#define ZT_COUNTERS_H

#include "zt_common.h"

/* For the tests of zip's MPI_T counters (test_pvars, test_stats); call after MPI_Init, with MPI_T
 * initialized. coll/zip is loaded when its parameters exist as control variables (registered as
 * the coll framework opens it, whatever its priority). Not loaded on any rank: prints
 * "SKIP: <name>" on rank 0 and returns 0 (nothing to test), unless the command line says
 * --require-zip (run-mpi-tests.sh, which always loads zip), where that is a failure. Otherwise
 * returns 1, and a rank without zip is a failure. */
static inline int zt_zip_counters_expected(int argc, char **argv, const char *name)
{
    int rank, index = -1, require = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; ++i)
        require |= 0 == strcmp(argv[i], "--require-zip");
    int loaded = MPI_SUCCESS == MPI_T_cvar_get_index("coll_zip_priority", &index), anywhere = 0;
    MPI_Allreduce(&loaded, &anywhere, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!anywhere && !require) {
        if (0 == rank)
            printf("SKIP: %s (coll/zip is not loaded)\n", name);
        return 0;
    }
    zt_check(loaded, "coll/zip is not loaded (no coll_zip_priority control variable)", rank);
    return 1;
}

/* Allocates a handle of zip's MPI_T counter `name` in `session`. A counter that is missing (or
 * refuses a handle) is a failure: zip is loaded. Returns whether the handle was allocated. */
static inline int zt_counter_handle(MPI_T_pvar_session session, const char *name,
                                    MPI_T_pvar_handle *handle, int rank)
{
    int index = -1, count = 0;
    const int ok = MPI_SUCCESS == MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) &&
                   MPI_SUCCESS == MPI_T_pvar_handle_alloc(session, index, NULL, handle, &count) &&
                   1 == count;
    zt_checkf(ok, rank, "MPI_T counter %s is missing", name);
    return ok;
}

/* MPI_T and MPI initialised for a counters test called `name`, with this rank and the size of
 * MPI_COMM_WORLD; 0 (both finalized again) when the test has nothing to do
 * (zt_zip_counters_expected). */
static inline int zt_counters_init(int *argc, char ***argv, const char *name, int *rank, int *size)
{
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (zt_zip_counters_expected(*argc, *argv, name))
        return 1;
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}

/* Buffers for calls of every collective with n doubles a block on size ranks, root 0: mine and
 * all of n * size doubles (mine filled with this rank's `kind` data of case salt), and the
 * v-forms' counts (n) and displacements (p * n). */
typedef struct {
    double *mine, *all;
    int *counts, *disps;
} zt_blocks_t;

static inline void zt_blocks_init(zt_blocks_t *b, int n, int size, int kind, int rank,
                                  uint64_t salt)
{
    b->mine = malloc((size_t)n * size * sizeof(double));
    b->all = malloc((size_t)n * size * sizeof(double));
    b->counts = malloc(size * sizeof(int));
    b->disps = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        b->counts[p] = n;
        b->disps[p] = p * n;
    }
    zt_fill(b->mine, (size_t)n * size, kind, rank, salt);
}

static inline void zt_blocks_free(zt_blocks_t *b)
{
    free(b->mine);
    free(b->all);
    free(b->counts);
    free(b->disps);
}

/* The counters coll_zip_<ops[op]>_<counters[c]> of one session: handle[op * ncounters + c]. */
enum { ZT_MAX_COUNTERS = 64 };
typedef struct {
    MPI_T_pvar_session session;
    int n;
    MPI_T_pvar_handle handle[ZT_MAX_COUNTERS];
    int have[ZT_MAX_COUNTERS];
} zt_counters_t;

/* Allocates every handle (a missing counter is a failure); returns 1 when every rank has all. */
static inline int zt_counters_open(zt_counters_t *t, const char *const *ops, int nops,
                                   const char *const *counters, int ncounters, int rank)
{
    int found = 1, all_found = 0;
    MPI_T_pvar_session_create(&t->session);
    t->n = nops * ncounters;
    zt_check(t->n <= ZT_MAX_COUNTERS, "too many counters for zt_counters_t", rank);
    for (int i = 0; i < t->n && i < ZT_MAX_COUNTERS; ++i) {
        char name[64];
        snprintf(name, sizeof name, "coll_zip_%s_%s", ops[i / ncounters], counters[i % ncounters]);
        found &= t->have[i] = zt_counter_handle(t->session, name, &t->handle[i], rank);
    }
    MPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all_found;
}

/* Reads every counter into value[op * ncounters + c]. */
static inline void zt_counters_read(zt_counters_t *t, unsigned long long *value)
{
    for (int i = 0; i < t->n; ++i)
        MPI_T_pvar_read(t->session, t->handle[i], &value[i]);
}

/* Frees the handles and the session and finalizes MPI_T (before MPI_Finalize: the other order
 * crashes Open MPI 4.1.4). */
static inline void zt_counters_close(zt_counters_t *t)
{
    for (int i = 0; i < t->n && i < ZT_MAX_COUNTERS; ++i)
        if (t->have[i])
            MPI_T_pvar_handle_free(t->session, &t->handle[i]);
    MPI_T_pvar_session_free(&t->session);
    MPI_T_finalize();
}

#endif
