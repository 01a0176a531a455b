/*
 * pml_selfmsg: what one message costs the PML, counted in instructions rather than timed (this
 * machine's timings swing 1.5-3x from job to job; callgrind's counts do not). One rank posts
 * MPI_Irecv from itself, then sends (MPI_Isend, or MPI_Send with --blocking) and waits, N times;
 * perftest/pml-instructions.sh runs it under callgrind with stock Open MPI and with pml/zip and
 * prints the instructions per message pair spent in msg_loop. --persistent makes one
 * MPI_Recv_init / MPI_Send_init pair before the loop and starts both (MPI_Startall) each time,
 * as halo exchanges do. --threads asks for
 * MPI_THREAD_MULTIPLE (one thread still does everything; the PMLs then take their locks, and
 * pml/zip its paths for threaded programs).
 *
 *   pml_selfmsg [N [BYTES [--blocking | --persistent] [--threads]]]     (defaults: 10000 8)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum send_kind { ISEND, SEND, PERSISTENT };
static const char *const send_name[] = {"MPI_Isend", "MPI_Send", "MPI_Startall"};

/* The persistent pair, made before the timed loop (not counted). */
static MPI_Request persistent_pair[2];

__attribute__((noinline)) static void msg_loop(int n, int bytes, enum send_kind kind, char *a,
                                               char *b)
{
    MPI_Request r[2];
    if (kind == PERSISTENT) {
        for (int i = 0; i < n; ++i) {
            MPI_Startall(2, persistent_pair);
            MPI_Waitall(2, persistent_pair, MPI_STATUSES_IGNORE);
        }
        return;
    }
    for (int i = 0; i < n; ++i) {
        MPI_Irecv(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[0]);
        if (kind == SEND) {
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
    int threads = 0, provided;
    enum send_kind kind = ISEND;
    for (int i = 3; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--blocking"))
            kind = SEND;
        if (0 == strcmp(argv[i], "--persistent"))
            kind = PERSISTENT;
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
        fprintf(stderr, "usage: pml_selfmsg [N [BYTES [--blocking | --persistent] [--threads]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Recv_init(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &persistent_pair[0]);
    MPI_Send_init(a, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &persistent_pair[1]);
    msg_loop(100, bytes, kind, a, b); /* warm-up: pools, first-touch, link estimates */
    const double t = MPI_Wtime();
    msg_loop(n, bytes, kind, a, b);
    printf("%d messages of %d bytes (%s): %.3f us each\n", n, bytes, send_name[kind],
           (MPI_Wtime() - t) / (n ? n : 1) * 1e6);
    MPI_Request_free(&persistent_pair[0]);
    MPI_Request_free(&persistent_pair[1]);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
