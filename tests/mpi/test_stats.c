/*
 * The coll/zip counters count every operation the same way (docs/user-guide.md, Statistics):
 * bytes_in is the payload a rank sent in zip's path, bytes_out what it put on the wire for it.
 * Random doubles never compress, so after one MPI_Bcast, MPI_Alltoallv and MPI_Gatherv (root 0)
 * per block size (every block at or above the threshold), every rank must show bytes_in ==
 * bytes_out, no compressed and no fallback call; a gatherv sender its blocks, the gatherv root
 * nothing (it only receives), an alltoallv rank its size - 1 blocks; and summed over the job,
 * bytes_in must be the raw bytes that crossed between ranks: size - 1 blocks for gatherv and
 * bcast, size * (size - 1) for alltoallv. Read through MPI_T, whose counters count from the
 * allocation of a handle. Prints SKIP only when coll/zip is not loaded at all (and not
 * --require-zip); a loaded zip without these counters fails.
 */
#include "zt_counters.h"

enum { OP_BCAST, OP_ALLTOALLV, OP_GATHERV, NOPS };
enum { CALLS, FALLBACK, COMPRESSED, BYTES_IN, BYTES_OUT, NCOUNTERS };
static const char *const op_names[NOPS] = {"bcast", "alltoallv", "gatherv"};
static const char *const counter_names[NCOUNTERS] = {"calls", "calls_fallback", "calls_compressed",
                                                     "bytes_in", "bytes_out"};

/* Bytes per block: one below the 64 KiB sample (compressed whole, in vain), one above it. */
static const size_t block_bytes[] = {32768, 262144};
#define NBLOCKS (sizeof(block_bytes) / sizeof(block_bytes[0]))

static void run_ops(int rank, int size)
{
    for (size_t b = 0; b < NBLOCKS; ++b) {
        const int n = (int)(block_bytes[b] / sizeof(double));
        zt_blocks_t blocks;
        zt_blocks_init(&blocks, n, size, ZT_RANDOM, rank, b);
        double *mine = blocks.mine, *all = blocks.all;
        int *counts = blocks.counts, *disps = blocks.disps;
        zt_call(MPI_Bcast(mine, n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast", rank);
        zt_call(MPI_Alltoallv(mine, counts, disps, MPI_DOUBLE, all, counts, disps, MPI_DOUBLE,
                              MPI_COMM_WORLD),
                "MPI_Alltoallv", rank);
        zt_call(MPI_Gatherv(mine, n, MPI_DOUBLE, all, counts, disps, MPI_DOUBLE, 0, MPI_COMM_WORLD),
                "MPI_Gatherv", rank);
        zt_blocks_free(&blocks);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!zt_counters_init(&argc, &argv, "stats", &rank, &size))
        return 0;
    zt_counters_t t;
    if (zt_counters_open(&t, op_names, NOPS, counter_names, NCOUNTERS, rank)) {
        run_ops(rank, size);
        unsigned long long value[NOPS][NCOUNTERS] = {{0}}, sum[NOPS][NCOUNTERS] = {{0}};
        zt_counters_read(&t, &value[0][0]);
        MPI_Allreduce(value, sum, NOPS * NCOUNTERS, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                      MPI_COMM_WORLD);
        unsigned long long raw = 0;
        for (size_t b = 0; b < NBLOCKS; ++b)
            raw += block_bytes[b];
        const unsigned long long crossing[NOPS] = {
            [OP_BCAST] = (unsigned long long)(size - 1) * raw,
            [OP_ALLTOALLV] = (unsigned long long)size * (size - 1) * raw,
            [OP_GATHERV] = (unsigned long long)(size - 1) * raw,
        };
        const unsigned long long own[NOPS] = {
            [OP_ALLTOALLV] = (unsigned long long)(size - 1) * raw,
            [OP_GATHERV] = 0 == rank ? 0 : raw,
        };
        for (int op = OP_ALLTOALLV; op <= OP_GATHERV; ++op)
            zt_checkf(value[op][BYTES_IN] == own[op], rank, "%s: bytes_in %llu, want %llu",
                      op_names[op], value[op][BYTES_IN], own[op]);
        for (int op = 0; op < NOPS; ++op) {
            const unsigned long long *v = value[op];
            zt_checkf(NBLOCKS == v[CALLS] && 0 == v[FALLBACK] && 0 == v[COMPRESSED], rank,
                      "%s: calls %llu fallback %llu compressed %llu, want %zu 0 0", op_names[op],
                      v[CALLS], v[FALLBACK], v[COMPRESSED], NBLOCKS);
            zt_checkf(v[BYTES_IN] == v[BYTES_OUT], rank, "%s: bytes_in %llu, bytes_out %llu",
                      op_names[op], v[BYTES_IN], v[BYTES_OUT]);
            zt_checkf(sum[op][BYTES_IN] == crossing[op] && sum[op][BYTES_OUT] == crossing[op], rank,
                      "%s: job-wide bytes_in %llu, bytes_out %llu, want %llu", op_names[op],
                      sum[op][BYTES_IN], sum[op][BYTES_OUT], crossing[op]);
        }
        if (0 == rank) {
            for (int op = 0; op < NOPS; ++op)
                printf("%s: job-wide bytes_in %llu bytes_out %llu (raw bytes between ranks "
                       "%llu)\n",
                       op_names[op], sum[op][BYTES_IN], sum[op][BYTES_OUT], crossing[op]);
        }
    }
    zt_counters_close(&t);
    return zt_finish("stats");
}
