/*
 * The coll/zip counters are readable through MPI_T, for every collective zip takes (the
 * non-blocking ones included). Counters
 * count from the moment their handle is allocated (MPI_T counter semantics), so handles are made
 * before one compressible call of each collective below and read after it: one call each, and
 * where this rank sent in zip's path, fewer bytes out than in. Prints SKIP only when coll/zip is
 * not loaded at all (and not --require-zip); a loaded zip without these counters fails.
 */
#include "zt_counters.h"

enum { CALLS, BYTES_IN, BYTES_OUT, NVARS };
static const char *const counters[NVARS] = {"calls", "bytes_in", "bytes_out"};
enum { BCAST, ALLTOALL, GATHER, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, NBLOCKING };
enum { NOPS = NBLOCKING + ZT_NB_OPS }; /* then the non-blocking ones, in zt_nb_op_name's order */
static const char *const blocking[NBLOCKING] = {"bcast",    "alltoall",  "gather",    "scatter",
                                                "scatterv", "allgather", "allgatherv"};

/* One call of each op with n smooth doubles a block, root 0. */
static void run_ops(int rank, int size, int n)
{
    zt_blocks_t blocks;
    zt_blocks_init(&blocks, n, size, ZT_SMOOTH, rank, 1);
    double *mine = blocks.mine, *all = blocks.all;
    int *counts = blocks.counts, *disps = blocks.disps;
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
    zt_blocks_free(&blocks);
}

/* Whether this rank sends in op's zip path (root 0). */
static int sends(int op, int rank)
{
    switch (op) {
    case BCAST:
    case SCATTER:
    case SCATTERV:
    case NBLOCKING + ZT_ISCATTER:
    case NBLOCKING + ZT_ISCATTERV:
        return rank == 0;
    case GATHER:
    case NBLOCKING + ZT_IGATHER:
    case NBLOCKING + ZT_IGATHERV:
        return rank != 0;
    default:
        return 1;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!zt_counters_init(&argc, &argv, "pvars", &rank, &size))
        return 0;
    const char *ops[NOPS];
    for (int op = 0; op < NOPS; ++op)
        ops[op] = op < NBLOCKING ? blocking[op] : zt_nb_op_name[op - NBLOCKING];
    zt_counters_t t;
    if (zt_counters_open(&t, ops, NOPS, counters, NVARS, rank)) {
        run_ops(rank, size, 50000);
        unsigned long long all[NOPS][NVARS] = {{0}};
        zt_counters_read(&t, &all[0][0]);
        for (int op = 0; op < NOPS; ++op) {
            const unsigned long long *value = all[op];
            zt_checkf(1 == value[CALLS], rank, "coll_zip_%s_calls is %llu after one call", ops[op],
                      value[CALLS]);
            if (sends(op, rank)) {
                zt_checkf(value[BYTES_OUT] > 0 && value[BYTES_OUT] < value[BYTES_IN], rank,
                          "coll_zip_%s_bytes_out %llu not below bytes_in %llu", ops[op],
                          value[BYTES_OUT], value[BYTES_IN]);
            }
        }
    }
    zt_counters_close(&t);
    return zt_finish("pvars");
}
