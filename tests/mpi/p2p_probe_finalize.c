/*
 * A probed message that is never received must not crash MPI_Finalize. Every rank sends
 * messages to itself: an MPI_Isend of 1000 doubles and an MPI_Issend of 10 ints on
 * MPI_COMM_WORLD, and an MPI_Isend of 300000 doubles on a duplicate that it then frees (MPI lets
 * MPI_Comm_free come before pending communication completes). It probes each (MPI_Probe must
 * match it), never posts a receive, frees the send requests with MPI_Request_free (legal on an
 * active request: the program gives up waiting for it) and calls MPI_Finalize. Strictly MPI wants
 * every message received before MPI_Finalize; this is the shape applications get wrong, and stock
 * ob1 and ucx finalize cleanly. Rank 0 prints PASS after MPI_Finalize returns; a hang fails through
 * alarm().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static const char timeout_line[] = "FAIL: p2p_probe_finalize (timeout)\n";

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(STDOUT_FILENO, timeout_line, sizeof timeout_line - 1);
    (void)w;
    _exit(3);
}

/* Send buffers stay valid until the process ends: the freed sends may still read them. */
static double doubles[1000], large[300000];
static int ints[10];

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    alarm(8);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, failures = 0, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 1000; ++i)
        doubles[i] = 1.0 + 0.001 * i;
    for (int i = 0; i < 300000; ++i)
        large[i] = 2.0 + 0.0001 * i;
    for (int i = 0; i < 10; ++i)
        ints[i] = 100 + i;

    MPI_Request rq[3];
    MPI_Status st;
    int count = -1;
    failures +=
        MPI_SUCCESS != MPI_Isend(doubles, 1000, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &rq[0]);
    failures += MPI_SUCCESS != MPI_Probe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    failures += st.MPI_SOURCE != rank || 1000 != count;
    failures += MPI_SUCCESS != MPI_Issend(ints, 10, MPI_INT, rank, 2, MPI_COMM_WORLD, &rq[1]);
    failures += MPI_SUCCESS != MPI_Probe(rank, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    failures += st.MPI_SOURCE != rank || 2 != st.MPI_TAG || 10 != count;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    failures += MPI_SUCCESS != MPI_Isend(large, 300000, MPI_DOUBLE, rank, 3, dup, &rq[2]);
    failures += MPI_SUCCESS != MPI_Probe(rank, 3, dup, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    failures += 300000 != count;
    for (int i = 0; i < 3; ++i)
        failures += MPI_SUCCESS != MPI_Request_free(&rq[i]);
    MPI_Comm_free(&dup);
    if (failures)
        fprintf(stderr, "rank %d: %d failed checks before MPI_Finalize\n", rank, failures);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    if (MPI_SUCCESS != MPI_Finalize()) {
        fprintf(stderr, "rank %d: MPI_Finalize failed\n", rank);
        total += 1;
    }
    alarm(0);
    if (0 == rank)
        printf("%s: p2p_probe_finalize (%d failed checks)\n", total ? "FAIL" : "PASS", total);
    return total ? 1 : 0;
}
