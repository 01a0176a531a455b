/*
 * Many communicator create/free cycles with zip enabled: each cycle dups or splits, runs a
 * compressed bcast, alltoallv and gatherv, and frees. Must neither crash nor grow: the
 * resident set after the last cycle is compared with the one after the first few.
 */
#include "zt_common.h"

static long resident_kib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (NULL != f) {
        if (2 != fscanf(f, "%ld %ld", &pages, &rss))
            rss = 0;
        fclose(f);
    }
    return rss * 4;
}

static void one_cycle(int cycle, double *buf, double *ref, int n)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm comm;
    if (cycle % 2)
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    else
        MPI_Comm_split(MPI_COMM_WORLD, (wrank + cycle) % 2, wrank, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    const int root = cycle % size;
    zt_fill(ref, n, ZT_SMOOTH, root, cycle);
    if (rank == root)
        memcpy(buf, ref, n * sizeof(double));
    else
        memset(buf, 0, n * sizeof(double));
    zt_call(MPI_Bcast(buf, n, MPI_DOUBLE, root, comm), "MPI_Bcast", wrank);
    zt_check(0 == memcmp(buf, ref, n * sizeof(double)), "bcast in cycle", wrank);

    const int per = n / (size > 0 ? size : 1);
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        c[p] = per;
        d[p] = p * per;
    }
    double *out = malloc((size_t)per * size * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(buf + d[p], per, ZT_SMOOTH, rank, p + cycle);
    zt_call(MPI_Alltoallv(buf, c, d, MPI_DOUBLE, out, c, d, MPI_DOUBLE, comm), "MPI_Alltoallv",
            wrank);
    int ok = 1;
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < per; ++i) {
            const double want = zt_value(ZT_SMOOTH, p, rank + cycle, i);
            ok &= 0 == memcmp(&out[d[p] + i], &want, sizeof want);
        }
    zt_check(ok, "alltoallv in cycle", wrank);

    zt_call(MPI_Gatherv(buf, per, MPI_DOUBLE, out, c, d, MPI_DOUBLE, root, comm), "MPI_Gatherv",
            wrank);
    free(out);
    free(c);
    free(d);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 24000, cycles = 300;
    double *buf = malloc(n * sizeof(double)), *ref = malloc(n * sizeof(double));
    long early = 0;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        one_cycle(cycle, buf, ref, n);
        if (cycle == 20)
            early = resident_kib();
    }
    const long late = resident_kib();
    /* A leak of even one small object per cycle would show; allocator noise stays below. */
    char what[128];
    snprintf(what, sizeof what, "resident set grew from %ld to %ld KiB", early, late);
    zt_check(late - early < 4096, what, rank);
    free(buf);
    free(ref);
    return zt_finish("comm_cycles");
}
