/*
 * pml/zip under MPI_THREAD_MULTIPLE: THREADS threads per rank exchange messages with the
 * partner rank at the same time, each thread on its own tag and communicator-wide, mixing
 * compressed doubles, small doubles and ints, blocking and nonblocking, and one thread probing.
 * Completions of different threads' requests run on whichever thread progresses.
 *
 * `p2p_threads shared_buffer`: THREADS threads of the odd rank receive one tag into ONE buffer
 * (erroneous, as the data are then undefined, but MPICH's threads test and message-rate
 * benchmarks do it), blocking and in windows of MPI_Irecv, while the even rank's threads send.
 * Every receive must complete with its own source, tag and count: a receive that took another
 * one's envelope would wait for ever (the run's timeout).
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

#define SHARED_LOOPS 1500
#define SHARED_WINDOW 16
#define SHARED_TAG 7
static char shared_rbuf[4096];
static const int shared_sizes[] = {16, 100, 1024, 4096};
static pthread_barrier_t phase_barrier;

/* Every thread of both ranks is done with a phase before any starts the next: messages of one
 * size are never taken by receives posted for another. */
static void shared_phase_end(int id)
{
    pthread_barrier_wait(&phase_barrier);
    if (0 == id)
        MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&phase_barrier);
}

static void *shared_worker(void *arg)
{
    const int id = (int)(intptr_t)arg;
    static const char sbuf[4096];
    MPI_Request q[SHARED_WINDOW];
    MPI_Status st[SHARED_WINDOW];
    int failures = 0;
    for (size_t k = 0; k < sizeof(shared_sizes) / sizeof(shared_sizes[0]); ++k) {
        const int n = shared_sizes[k];
        for (int blocking = 1; blocking >= 0; --blocking) {
            for (int it = 0; it < SHARED_LOOPS; ++it) {
                for (int j = 0; j < SHARED_WINDOW; ++j) {
                    if (0 == (pt_rank & 1) && blocking)
                        MPI_Send(sbuf, n, MPI_CHAR, peer, SHARED_TAG, MPI_COMM_WORLD);
                    else if (0 == (pt_rank & 1))
                        MPI_Isend(sbuf, n, MPI_CHAR, peer, SHARED_TAG, MPI_COMM_WORLD, &q[j]);
                    else if (blocking)
                        MPI_Recv(shared_rbuf, n, MPI_CHAR, peer, SHARED_TAG, MPI_COMM_WORLD,
                                 &st[j]);
                    else
                        MPI_Irecv(shared_rbuf, n, MPI_CHAR, peer, SHARED_TAG, MPI_COMM_WORLD,
                                  &q[j]);
                }
                if (!blocking)
                    MPI_Waitall(SHARED_WINDOW, q, st);
                for (int j = 0; (pt_rank & 1) && j < SHARED_WINDOW; ++j) {
                    int c = -1;
                    MPI_Get_count(&st[j], MPI_CHAR, &c);
                    if (st[j].MPI_SOURCE != peer || st[j].MPI_TAG != SHARED_TAG || c != n) {
                        if (++failures < 5)
                            fprintf(stderr, "rank %d: %d bytes from %d tag %d, expected %d\n",
                                    pt_rank, c, st[j].MPI_SOURCE, st[j].MPI_TAG, n);
                    }
                }
            }
            shared_phase_end(id);
        }
    }
    return (void *)(intptr_t)failures;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; ++i)
        pthread_create(&th[i], NULL, fn, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; ++i) {
        void *ret;
        pthread_join(th[i], &ret);
        pt_failures += (int)(intptr_t)ret;
    }
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
    const int shared = argc > 1 && 0 == strcmp(argv[1], "shared_buffer");
    pthread_barrier_init(&phase_barrier, NULL, THREADS);
    if (peer < pt_size)
        run_threads(shared ? shared_worker : worker);
    pthread_barrier_destroy(&phase_barrier);
    return pt_finish(shared ? "p2p_threads shared_buffer" : "p2p_threads");
}
