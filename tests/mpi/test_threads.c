/*
 * MPI_THREAD_MULTIPLE: two threads run compressed collectives at the same time, each on its
 * own communicator (MPI forbids concurrent collectives on one communicator).
 */
#include <pthread.h>

#include "zt_common.h"

typedef struct worker {
    MPI_Comm comm;
    int id;
    int failures;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    int rank, size;
    MPI_Comm_rank(w->comm, &rank);
    MPI_Comm_size(w->comm, &size);
    const int n = 40000;
    double *buf = malloc(n * sizeof(double)), *ref = malloc(n * sizeof(double));
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    const int per = n / size;
    for (int p = 0; p < size; ++p) {
        c[p] = per;
        d[p] = p * per;
    }
    double *out = malloc((size_t)per * size * sizeof(double));

    for (int iter = 0; iter < 40; ++iter) {
        const int root = (iter + w->id) % size;
        const uint64_t salt = (uint64_t)(iter * 2 + w->id);
        zt_fill(ref, n, iter % 2, root, salt);
        if (rank == root)
            memcpy(buf, ref, n * sizeof(double));
        else
            memset(buf, 0, n * sizeof(double));
        if (MPI_SUCCESS != MPI_Bcast(buf, n, MPI_DOUBLE, root, w->comm))
            w->failures++;
        if (0 != memcmp(buf, ref, n * sizeof(double)))
            w->failures++;

        for (int p = 0; p < size; ++p)
            zt_fill(buf + d[p], per, ZT_SMOOTH, rank, salt + p);
        if (MPI_SUCCESS != MPI_Alltoallv(buf, c, d, MPI_DOUBLE, out, c, d, MPI_DOUBLE, w->comm))
            w->failures++;
        for (int p = 0; p < size; ++p)
            for (int i = 0; i < per; ++i) {
                const double want = zt_value(ZT_SMOOTH, p, salt + rank, i);
                if (0 != memcmp(&out[d[p] + i], &want, sizeof want)) {
                    w->failures++;
                    break;
                }
            }
    }
    free(buf);
    free(ref);
    free(c);
    free(d);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (0 == rank)
            printf("SKIP: threads (MPI_THREAD_MULTIPLE not provided)\n");
        MPI_Finalize();
        return 0;
    }
    worker_t w[2];
    pthread_t th[2];
    for (int i = 0; i < 2; ++i) {
        w[i].id = i;
        w[i].failures = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
        MPI_Comm_set_errhandler(w[i].comm, MPI_ERRORS_RETURN);
    }
    for (int i = 0; i < 2; ++i)
        pthread_create(&th[i], NULL, work, &w[i]);
    for (int i = 0; i < 2; ++i)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; ++i) {
        zt_check(0 == w[i].failures, i ? "thread 1" : "thread 0", rank);
        MPI_Comm_free(&w[i].comm);
    }
    return zt_finish("threads");
}
