/*
 * Collectives on inter-communicators with coll/zip loaded: zip steps aside for them (the
 * previous component runs them), and the intra-communicator MPI_Intercomm_merge makes of one
 * gets zip again. Over an inter-communicator of the even world ranks against the odd ones:
 * MPI_Bcast from each group's rank 0 (MPI_ROOT / MPI_PROC_NULL), MPI_Allgather,
 * MPI_Alltoallv, MPI_Gatherv to a root of the other group, MPI_Allreduce; then the merged
 * communicator's MPI_Bcast, MPI_Alltoallv and MPI_Gatherv of compressible data, which zip
 * compresses (run-mpi-tests.sh checks the stats), and with the argument "spawn" the same on
 * the communicator merged with two spawned children. Every result is compared bit for bit.
 */
#include "zt_common.h"

#define N 40000 /* doubles per block: above zip's thresholds */

/* Block `owner` (a world rank) gives in case `salt`; smooth so that zip would compress it. */
static void fill(double *buf, int owner, uint64_t salt, int n)
{
    zt_fill(buf, (size_t)n, ZT_SMOOTH, owner, salt);
}

static int matches(const double *buf, int owner, uint64_t salt, int n)
{
    return zt_block_matches(buf, 1, (size_t)n, ZT_SMOOTH, owner, salt);
}

/* World rank of rank r of a group: the even ranks form group 0, the odd ones group 1. */
static int world_of(int group, int r)
{
    return 2 * r + group;
}

static void on_intercomm(MPI_Comm inter, int group, int rank)
{
    int lsize, rsize, wrank;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    const int other = 1 - group;
    double *a = malloc(sizeof(double) * N * (size_t)(lsize > rsize ? lsize : rsize));
    double *b = malloc(sizeof(double) * N * (size_t)(lsize > rsize ? lsize : rsize));

    /* Bcast, each group's rank 0 the root in turn. */
    for (int rg = 0; rg < 2; ++rg) {
        const uint64_t salt = 10 + (uint64_t)rg;
        int root;
        if (group == rg) {
            root = 0 == rank ? MPI_ROOT : MPI_PROC_NULL;
            if (0 == rank)
                fill(a, wrank, salt, N);
        } else {
            root = 0;
        }
        zt_check(MPI_SUCCESS == MPI_Bcast(a, N, MPI_DOUBLE, root, inter), "bcast returns", wrank);
        if (group != rg)
            zt_check(matches(a, world_of(rg, 0), salt, N), "bcast across groups", wrank);
    }

    /* Allgather: every rank gets the other group's blocks. */
    fill(a, wrank, 20, N);
    zt_check(MPI_SUCCESS == MPI_Allgather(a, N, MPI_DOUBLE, b, N, MPI_DOUBLE, inter),
             "allgather returns", wrank);
    for (int p = 0; p < rsize; ++p)
        zt_check(matches(b + (size_t)p * N, world_of(other, p), 20, N), "allgather block", wrank);

    /* Alltoallv: block to remote rank p of p + 1 thousand doubles. */
    {
        int *sc = malloc(sizeof(int) * (size_t)rsize), *sd = malloc(sizeof(int) * (size_t)rsize);
        int *rc = malloc(sizeof(int) * (size_t)rsize), *rd = malloc(sizeof(int) * (size_t)rsize);
        int off = 0;
        for (int p = 0; p < rsize; ++p) {
            sc[p] = 1000 * (p + 1);
            sd[p] = off;
            fill(a + off, wrank, 30 + (uint64_t)p, sc[p]);
            off += sc[p];
        }
        for (int p = 0; p < rsize; ++p) {
            rc[p] = 1000 * (rank + 1);
            rd[p] = p * N;
        }
        zt_check(MPI_SUCCESS == MPI_Alltoallv(a, sc, sd, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE, inter),
                 "alltoallv returns", wrank);
        for (int p = 0; p < rsize; ++p)
            zt_check(matches(b + (size_t)p * N, world_of(other, p), 30 + (uint64_t)rank, rc[p]),
                     "alltoallv block", wrank);
        free(sc);
        free(sd);
        free(rc);
        free(rd);
    }

    /* Gatherv into group 0's rank 0 from every rank of group 1. */
    {
        int *counts = malloc(sizeof(int) * (size_t)rsize),
            *displs = malloc(sizeof(int) * (size_t)rsize);
        for (int p = 0; p < rsize; ++p) {
            counts[p] = N - 7 * p;
            displs[p] = p * N;
        }
        int rc;
        if (0 == group) {
            rc = MPI_Gatherv(NULL, 0, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE,
                             0 == rank ? MPI_ROOT : MPI_PROC_NULL, inter);
            if (0 == rank)
                for (int p = 0; p < rsize; ++p)
                    zt_check(matches(b + (size_t)p * N, world_of(1, p), 40, counts[p]),
                             "gatherv block", wrank);
        } else {
            fill(a, wrank, 40, N - 7 * rank);
            rc = MPI_Gatherv(a, N - 7 * rank, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, inter);
        }
        zt_check(MPI_SUCCESS == rc, "gatherv returns", wrank);
        free(counts);
        free(displs);
    }

    /* Allreduce: each group gets the sum over the other group (integer-valued: exact). */
    for (int i = 0; i < N; ++i)
        a[i] = (double)(wrank * 1000 + i % 997);
    zt_check(MPI_SUCCESS == MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, inter), "allreduce returns",
             wrank);
    int bad = 0;
    for (int i = 0; i < N; ++i) {
        double want = 0.0;
        for (int p = 0; p < rsize; ++p)
            want += (double)(world_of(other, p) * 1000 + i % 997);
        bad += b[i] != want;
    }
    zt_check(0 == bad, "allreduce sums", wrank);
    free(a);
    free(b);
}

/* The merged communicator: zip's own bcast, alltoallv and gatherv. wrank: this process's id
 * as the owner of its blocks (its world rank; spawned children add 1000). */
static void on_merged(MPI_Comm comm, int wrank)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *a = malloc(sizeof(double) * N * (size_t)size);
    double *b = malloc(sizeof(double) * N * (size_t)size);
    /* The merged ranks' world ranks, for the owners of the blocks. */
    int *owner = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&wrank, 1, MPI_INT, owner, 1, MPI_INT, comm);

    const int root = size - 1;
    if (rank == root)
        fill(a, wrank, 50, N);
    zt_check(MPI_SUCCESS == MPI_Bcast(a, N, MPI_DOUBLE, root, comm), "merged bcast returns", wrank);
    zt_check(matches(a, owner[root], 50, N), "merged bcast", wrank);

    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int p = 0; p < size; ++p) {
        counts[p] = N;
        displs[p] = p * N;
        fill(a + (size_t)p * N, wrank, 60 + (uint64_t)p, N);
    }
    zt_check(MPI_SUCCESS ==
                 MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, comm),
             "merged alltoallv returns", wrank);
    for (int p = 0; p < size; ++p)
        zt_check(matches(b + (size_t)p * N, owner[p], 60 + (uint64_t)rank, N),
                 "merged alltoallv block", wrank);

    fill(a, wrank, 70, N);
    zt_check(MPI_SUCCESS == MPI_Gatherv(a, N, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, comm),
             "merged gatherv returns", wrank);
    if (0 == rank)
        for (int p = 0; p < size; ++p)
            zt_check(matches(b + (size_t)p * N, owner[p], 70, N), "merged gatherv block", wrank);
    free(counts);
    free(displs);
    free(owner);
    free(a);
    free(b);
}

/* With "spawn": the parents spawn two children running this program, and the communicator
 * merged from the parent-child one runs on_merged (zip's own algorithms across processes that
 * joined later). The children send their failed checks to the parents' rank 0. */
static void with_children(const char *program)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm child, merged;
    int errs[2];
    zt_check(MPI_SUCCESS == MPI_Comm_spawn(program, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                           MPI_COMM_WORLD, &child, errs),
             "comm_spawn", wrank);
    MPI_Intercomm_merge(child, 0, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    on_merged(merged, wrank);
    int none = 0, theirs = 0; /* the parents add nothing: only the children's count */
    MPI_Reduce(&none, &theirs, 1, MPI_INT, MPI_SUM, 0, merged);
    if (0 == wrank)
        zt_check(0 == theirs, "the spawned children's checks", wrank);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&child);
}

static int as_child(MPI_Comm parent)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm merged;
    MPI_Intercomm_merge(parent, 1, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    on_merged(merged, 1000 + wrank);
    MPI_Reduce(&zt_failures, NULL, 1, MPI_INT, MPI_SUM, 0, merged);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (MPI_COMM_NULL != parent)
        return as_child(parent);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (0 == wrank)
            fprintf(stderr, "FAIL: intercomm needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int group = wrank % 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, group, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, 5, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(inter, &rank);
    on_intercomm(inter, group, rank);
    /* A duplicate of an inter-communicator is one too. */
    MPI_Comm dup;
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    on_intercomm(dup, group, rank);
    MPI_Comm_free(&dup);
    /* Group 1 first in the merged order: its ranks are not the world's. */
    MPI_Intercomm_merge(inter, 0 == group, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    on_merged(merged, wrank);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (argc > 1 && 0 == strcmp(argv[1], "spawn")) {
        with_children(argv[0]);
        return zt_finish("intercomm (spawn)");
    }
    return zt_finish("intercomm");
}
