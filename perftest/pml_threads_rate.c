/*
 * pml_threads_rate: message rate of threads under MPI_THREAD_MULTIPLE. Even ranks send to the
 * next odd rank; each of T threads per rank moves ROUNDS windows of W messages of one size,
 * blocking (MPI_Send / MPI_Recv, one at a time) or not (W MPI_Isend / MPI_Irecv, then
 * MPI_Waitall) or persistent (W MPI_Send_init / MPI_Recv_init made once per phase, then
 * MPI_Startall and MPI_Waitall each round, as halo exchanges do), all on one tag. Prints
 * microseconds per message, per thread, of the receivers' time. --shared receives every message
 * into one buffer, as MPICH's threads test and some message-rate benchmarks do (erroneous under
 * MPI: the data are undefined; zip must still complete every receive with its own status, which is
 * checked).
 *
 *   pml_threads_rate [--threads T] [--rounds N] [--window W] [--sizes B,B,...] [--shared]
 *                    [--mode blocking|nonblocking|persistent|both|all] [--level single|multiple]
 *                                                   (defaults: 1 3000 16 64,256,1024 both multiple)
 *
 * --level single asks MPI_Init_thread for MPI_THREAD_SINGLE (one thread only): the paths a
 * PML takes without threads.
 *
 * A first phase (nonblocking, the first size), printed apart, fills Open MPI's free lists: where
 * the receiver falls behind, unexpected messages pile up and the first phase runs slower than
 * the following ones.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define MAX_WINDOW 64
#define MAX_BYTES (1 << 20)
#define TAG 3

static int rank, peer, rounds = 3000, window = 16, shared, failures;
static pthread_barrier_t start_line;
static pthread_mutex_t failures_lock = PTHREAD_MUTEX_INITIALIZER;
static char *sbuf, *shared_rbuf;

enum kind { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const kind_name[] = {"blocking", "nonblocking", "persistent"};

struct phase {
    int bytes;
    enum kind kind;
};

static void check(const MPI_Status *st, int bytes)
{
    int n = -1;
    MPI_Get_count(st, MPI_CHAR, &n);
    if (st->MPI_SOURCE != peer || st->MPI_TAG != TAG || n != bytes) {
        pthread_mutex_lock(&failures_lock);
        if (failures++ < 5)
            fprintf(stderr, "rank %d: %d bytes from %d tag %d, expected %d bytes\n", rank, n,
                    st->MPI_SOURCE, st->MPI_TAG, bytes);
        pthread_mutex_unlock(&failures_lock);
    }
}

static void *run_phase(void *arg)
{
    const struct phase *p = arg;
    const int sender = 0 == (rank & 1);
    char *rbuf = shared ? shared_rbuf : malloc((size_t)window * (size_t)p->bytes + 1);
    MPI_Request req[MAX_WINDOW];
    MPI_Status st[MAX_WINDOW];
    if (p->kind == PERSISTENT) {
        for (int j = 0; j < window; ++j) {
            char *into = shared ? rbuf : rbuf + (size_t)j * (size_t)p->bytes;
            if (sender)
                MPI_Send_init(sbuf, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, &req[j]);
            else
                MPI_Recv_init(into, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, &req[j]);
        }
    }
    pthread_barrier_wait(&start_line);
    for (int r = 0; r < rounds; ++r) {
        for (int j = 0; p->kind != PERSISTENT && j < window; ++j) {
            char *into = shared ? rbuf : rbuf + (size_t)j * (size_t)p->bytes;
            if (p->kind == BLOCKING && sender) {
                MPI_Send(sbuf, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD);
            } else if (p->kind == BLOCKING) {
                MPI_Recv(into, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, &st[0]);
                check(&st[0], p->bytes);
            } else if (sender) {
                MPI_Isend(sbuf, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, &req[j]);
            } else {
                MPI_Irecv(into, p->bytes, MPI_CHAR, peer, TAG, MPI_COMM_WORLD, &req[j]);
            }
        }
        if (p->kind == PERSISTENT)
            MPI_Startall(window, req);
        if (p->kind != BLOCKING) {
            MPI_Waitall(window, req, st);
            for (int j = 0; !sender && j < window; ++j)
                check(&st[j], p->bytes);
        }
    }
    for (int j = 0; p->kind == PERSISTENT && j < window; ++j)
        MPI_Request_free(&req[j]);
    if (!shared)
        free(rbuf);
    return NULL;
}

/* One phase on every thread; returns the receivers' slowest time in seconds. */
static double phase(int threads, int bytes, enum kind kind)
{
    pthread_t th[MAX_THREADS];
    struct phase ph[MAX_THREADS];
    pthread_barrier_init(&start_line, NULL, (unsigned)threads);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < threads; ++i) {
        ph[i] = (struct phase){bytes, kind};
        if (i > 0)
            pthread_create(&th[i], NULL, run_phase, &ph[i]);
    }
    run_phase(&ph[0]);
    for (int i = 1; i < threads; ++i)
        pthread_join(th[i], NULL);
    double t = MPI_Wtime() - t0, slowest = 0.0;
    pthread_barrier_destroy(&start_line);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    int threads = 1, provided, nsizes = 0, sizes[32];
    const char *mode = "both", *size_list = "64,256,1024";
    int level = MPI_THREAD_MULTIPLE;
    for (int i = 1; i + 1 < argc; ++i)
        if (0 == strcmp(argv[i], "--level") && 0 == strcmp(argv[i + 1], "single"))
            level = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (0 == strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (0 == strcmp(argv[i], "--window") && i + 1 < argc)
            window = atoi(argv[++i]);
        else if (0 == strcmp(argv[i], "--sizes") && i + 1 < argc)
            size_list = argv[++i];
        else if (0 == strcmp(argv[i], "--mode") && i + 1 < argc)
            mode = argv[++i];
        else if (0 == strcmp(argv[i], "--level") && i + 1 < argc)
            ++i; /* read before MPI_Init_thread */
        else if (0 == strcmp(argv[i], "--shared"))
            shared = 1;
        else
            threads = -1;
    }
    for (const char *s = size_list; *s && nsizes < 32; s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
        sizes[nsizes++] = atoi(s);
    const int single = level == MPI_THREAD_SINGLE;
    int bad = (single ? threads != 1 : provided != MPI_THREAD_MULTIPLE) || nranks % 2 ||
              threads < 1 || threads > MAX_THREADS || window < 1 || window > MAX_WINDOW ||
              rounds < 1;
    for (int i = 0; i < nsizes; ++i)
        bad |= sizes[i] < 0 || sizes[i] > MAX_BYTES;
    if (bad) {
        if (0 == rank)
            fprintf(
                stderr,
                "usage: pml_threads_rate [--threads 1-16] [--rounds N] [--window "
                "1-64] [--sizes B,...] [--shared] [--mode blocking|nonblocking|persistent|both|all]"
                " [--level single|multiple] (an even number of ranks; "
                "MPI_THREAD_MULTIPLE, or one thread with --level single)\n");
        MPI_Finalize();
        return 2;
    }
    peer = rank ^ 1;
    sbuf = calloc(MAX_BYTES, 1);
    shared_rbuf = calloc(MAX_BYTES, 1);
    for (int i = 0; i < MAX_BYTES; ++i)
        sbuf[i] = (char)(i * 7);
    const double warm = phase(threads, sizes[0], NONBLOCKING);
    if (0 == rank)
        printf("warm-up, nonblocking %d bytes %d threads%s: %.3f us per message per thread "
               "(not a result: free lists grow)\n",
               sizes[0], threads, shared ? " shared" : "", warm * 1e6 / ((double)rounds * window));
    for (int k = BLOCKING; k <= PERSISTENT; ++k) {
        const int wanted = 0 == strcmp(mode, "all") || 0 == strcmp(mode, kind_name[k]) ||
                           (0 == strcmp(mode, "both") && k != PERSISTENT);
        for (int i = 0; wanted && i < nsizes; ++i) {
            const double t = phase(threads, sizes[i], (enum kind)k);
            if (0 == rank)
                printf("%s %d bytes %d threads%s: %.3f us per message per thread\n", kind_name[k],
                       sizes[i], threads, shared ? " shared" : "",
                       t * 1e6 / ((double)rounds * window));
        }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank)
        printf("%s: %d receives with a wrong status\n", total ? "FAIL" : "ok", total);
    free(sbuf);
    free(shared_rbuf);
    MPI_Finalize();
    return total ? 1 : 0;
}
