/*
 * pml/zip under MPI_THREAD_MULTIPLE: THREADS threads per rank exchange messages with the
 * partner rank at the same time, each thread on its own tag and communicator-wide, mixing
 * compressed doubles, small doubles and ints, blocking and nonblocking, and one thread probing.
 * Completions of different threads' requests run on whichever thread progresses.
 */
#include <pthread.h>

#include "p2p_common.h"

#define THREADS 4
#define ITERS 20
#define N 60000

static int peer;

static void *worker(void *arg)
{
    const int id = (int)(intptr_t)arg;
    double *s = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double));
    double *ref = malloc(N * sizeof(double));
    int failures = 0;
    for (int it = 0; it < ITERS; ++it) {
        const int n = (it % 3 == 0) ? 100 : N - it;
        const int tag = id * 1000 + it;
        pt_fill_f64(s, n, pt_seed(pt_rank, peer, tag, it));
        pt_fill_f64(ref, n, pt_seed(peer, pt_rank, tag, it));
        MPI_Status st;
        int c = -1;
        if (id == 0 && (it & 1)) {
            /* Probe-based receive on this thread's tag. */
            MPI_Request sr;
            MPI_Isend(s, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &sr);
            MPI_Message m;
            MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &m, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &c);
            failures += (c != n);
            MPI_Mrecv(r, c, MPI_DOUBLE, &m, &st);
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
        } else if (it & 1) {
            MPI_Sendrecv(s, n, MPI_DOUBLE, peer, tag, r, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD,
                         &st);
        } else {
            MPI_Request q[2];
            MPI_Irecv(r, N, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(s, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            st.MPI_SOURCE = peer;
        }
        if (!pt_same(r, ref, n * sizeof(double))) {
            ++failures;
            fprintf(stderr, "rank %d thread %d iter %d: data mismatch\n", pt_rank, id, it);
        }
        int iv = tag, ir = -1;
        MPI_Sendrecv(&iv, 1, MPI_INT, peer, tag + 500, &ir, 1, MPI_INT, peer, tag + 500,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        failures += (ir != tag);
    }
    free(s);
    free(r);
    free(ref);
    return (void *)(intptr_t)failures;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pt_size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (0 == pt_rank)
            printf("SKIP: p2p_threads (no MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 0;
    }
    peer = pt_rank ^ 1;
    if (peer < pt_size) {
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; ++i)
            pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
        for (int i = 0; i < THREADS; ++i) {
            void *ret;
            pthread_join(th[i], &ret);
            pt_failures += (int)(intptr_t)ret;
        }
    }
    return pt_finish("p2p_threads");
}
