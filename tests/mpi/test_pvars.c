/*
 * The coll/zip counters are readable through MPI_T, for every collective zip takes (the
 * non-blocking ones included). Counters
 * count from the moment their handle is allocated (MPI_T counter semantics), so handles are made
 * before one compressible call of each collective below and read after it: one call each, and
 * where this rank sent in zip's path, fewer bytes out than in. Prints SKIP only when coll/zip is
 * not loaded at all (and not --require-zip); a loaded zip without these counters fails.
 */
#include "zt_common.h"

enum { CALLS, BYTES_IN, BYTES_OUT, NVARS };
static const char *const counters[NVARS] = {"calls", "bytes_in", "bytes_out"};
enum {
    BCAST,
    ALLTOALL,
    GATHER,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    IALLTOALL,
    IALLTOALLV,
    IGATHER,
    IGATHERV,
    ISCATTER,
    ISCATTERV,
    IALLGATHER,
    IALLGATHERV,
    NOPS
};
static const char *const ops[NOPS] = {"bcast",      "alltoall",   "gather",     "scatter",
                                      "scatterv",   "allgather",  "allgatherv", "ialltoall",
                                      "ialltoallv", "igather",    "igatherv",   "iscatter",
                                      "iscatterv",  "iallgather", "iallgatherv"};

/* One call of each op with n smooth doubles a block, root 0. */
static void run_ops(int rank, int size, int n)
{
    double *mine = malloc((size_t)n * size * sizeof(double));
    double *all = malloc((size_t)n * size * sizeof(double));
    int *counts = malloc(size * sizeof(int)), *disps = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        counts[p] = n;
        disps[p] = p * n;
    }
    zt_fill(mine, (size_t)n * size, ZT_SMOOTH, rank, 1);
    MPI_Bcast(mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Alltoall(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, n, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatterv(all, counts, disps, MPI_DOUBLE, mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgatherv(mine, n, MPI_DOUBLE, all, counts, disps, MPI_DOUBLE, MPI_COMM_WORLD);
    /* The non-blocking forms, all in flight at once, on their own buffers. */
    double *in = malloc((size_t)n * size * sizeof(double)), *out[8];
    zt_fill(in, (size_t)n * size, ZT_SMOOTH, rank, 2);
    for (int k = 0; k < 8; ++k)
        out[k] = malloc((size_t)n * size * sizeof(double));
    MPI_Request r[8];
    MPI_Ialltoall(in, n, MPI_DOUBLE, out[0], n, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    MPI_Ialltoallv(in, counts, disps, MPI_DOUBLE, out[1], counts, disps, MPI_DOUBLE, MPI_COMM_WORLD,
                   &r[1]);
    MPI_Igather(in, n, MPI_DOUBLE, out[2], n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Igatherv(in, n, MPI_DOUBLE, out[3], counts, disps, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Iscatter(in, n, MPI_DOUBLE, out[4], n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[4]);
    MPI_Iscatterv(in, counts, disps, MPI_DOUBLE, out[5], n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[5]);
    MPI_Iallgather(in, n, MPI_DOUBLE, out[6], n, MPI_DOUBLE, MPI_COMM_WORLD, &r[6]);
    MPI_Iallgatherv(in, n, MPI_DOUBLE, out[7], counts, disps, MPI_DOUBLE, MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 8; ++k)
        free(out[k]);
    free(in);
    free(mine);
    free(all);
    free(counts);
    free(disps);
}

/* Whether this rank sends in op's zip path (root 0). */
static int sends(int op, int rank)
{
    switch (op) {
    case BCAST:
    case SCATTER:
    case SCATTERV:
    case ISCATTER:
    case ISCATTERV:
        return rank == 0;
    case GATHER:
    case IGATHER:
    case IGATHERV:
        return rank != 0;
    default:
        return 1;
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!zt_zip_counters_expected(argc, argv, "pvars")) {
        MPI_T_finalize();
        MPI_Finalize();
        return 0;
    }
    MPI_T_pvar_session session;
    MPI_T_pvar_session_create(&session);

    MPI_T_pvar_handle handle[NOPS][NVARS];
    int have[NOPS][NVARS], found = 1, all_found = 0;
    for (int op = 0; op < NOPS; ++op)
        for (int v = 0; v < NVARS; ++v) {
            char name[64];
            snprintf(name, sizeof name, "coll_zip_%s_%s", ops[op], counters[v]);
            found &= have[op][v] = zt_counter_handle(session, name, &handle[op][v], rank);
        }
    MPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (all_found) {
        run_ops(rank, size, 50000);
        for (int op = 0; op < NOPS; ++op) {
            unsigned long long value[NVARS] = {0};
            for (int v = 0; v < NVARS; ++v)
                MPI_T_pvar_read(session, handle[op][v], &value[v]);
            zt_checkf(1 == value[CALLS], rank, "coll_zip_%s_calls is %llu after one call", ops[op],
                      value[CALLS]);
            if (sends(op, rank)) {
                zt_checkf(value[BYTES_OUT] > 0 && value[BYTES_OUT] < value[BYTES_IN], rank,
                          "coll_zip_%s_bytes_out %llu not below bytes_in %llu", ops[op],
                          value[BYTES_OUT], value[BYTES_IN]);
            }
        }
    }
    for (int op = 0; op < NOPS; ++op)
        for (int v = 0; v < NVARS; ++v)
            if (have[op][v])
                MPI_T_pvar_handle_free(session, &handle[op][v]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize(); /* before MPI_Finalize: the other order crashes Open MPI 4.1.4 */
    return zt_finish("pvars");
}
