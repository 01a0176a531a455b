/*
 * pml_selfmsg: what one message costs the PML, counted in instructions rather than timed (this
 * machine's timings swing 1.5-3x from job to job; callgrind's counts do not). One rank posts
 * MPI_Irecv from itself, then sends (MPI_Isend, or MPI_Send with --blocking) and waits, N times;
 * perftest/pml-instructions.sh runs it under callgrind with stock Open MPI and with pml/zip and
 * prints the instructions per message pair spent in msg_loop. --threads asks for
 * MPI_THREAD_MULTIPLE (one thread still does everything; the PMLs then take their locks, and
 * pml/zip its paths for threaded programs).
 *
 *   pml_selfmsg [N [BYTES [--blocking] [--threads]]]     (defaults: 10000 8)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void msg_loop(int n, int bytes, int blocking, char *a, char *b)
{
    MPI_Request r[2];
    for (int i = 0; i < n; ++i) {
        MPI_Irecv(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[0]);
        if (blocking) {
            MPI_Send(a, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Isend(a, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
    }
}

int main(int argc, char **argv)
{
    int blocking = 0, threads = 0, provided;
    for (int i = 3; i < argc; ++i) {
        blocking |= 0 == strcmp(argv[i], "--blocking");
        threads |= 0 == strcmp(argv[i], "--threads");
    }
    MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    if (threads && provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "pml_selfmsg: no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int n = argc > 1 ? atoi(argv[1]) : 10000;
    const int bytes = argc > 2 ? atoi(argv[2]) : 8;
    char *a = calloc((size_t)bytes + 16, 1), *b = calloc((size_t)bytes + 16, 1);
    if (n < 0 || bytes < 0 || NULL == a || NULL == b) {
        fprintf(stderr, "usage: pml_selfmsg [N [BYTES [--blocking] [--threads]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    msg_loop(100, bytes, blocking, a, b); /* warm-up: pools, first-touch, link estimates */
    const double t = MPI_Wtime();
    msg_loop(n, bytes, blocking, a, b);
    printf("%d messages of %d bytes (%s): %.3f us each\n", n, bytes,
           blocking ? "MPI_Send" : "MPI_Isend", (MPI_Wtime() - t) / (n ? n : 1) * 1e6);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
