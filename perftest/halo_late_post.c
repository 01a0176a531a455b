/*
 * What a split message costs a halo exchange when the receiver computes between exchanges
 * (docs/performance.md, "Envelopes only where a rate is asked"). Two ranks run CloverLeaf's
 * 2-rank exchange sequence (halos of 38,600, 7,720, 7,720, 61,760, 92,640 and 92,640 bytes, each
 * Isend + Irecv + Waitall, the application's order) with COMPUTE_US of busy work after each
 * exchange (rank 1 computes a tenth longer, so the ranks arrive at different times, as real
 * ranks do). Without zip it reproduces what pml/zip's envelope + payload costs:
 *
 *   mpicc -O2 -o halo_late_post perftest/halo_late_post.c
 *   perftest/netemu run -- -np 2 ./halo_late_post MODE [STEPS [COMPUTE_US]]
 *
 * MODE: one    every halo one message (stock's shape);
 *       split  a 14-byte message, then the halo on another tag, both receives posted at once;
 *       late   the same, the halo's receive posted only once the 14-byte message is in (the
 *              order in which zip's receiver learns that a payload follows).
 * Prints the seconds spent in the exchanges (the slower rank's) and in the whole loop.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static void compute(double us)
{
    const double t0 = MPI_Wtime();
    double x = 1.0;
    while ((MPI_Wtime() - t0) * 1e6 < us) {
        for (int i = 0; i < 1000; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "one";
    const int steps = argc > 2 ? atoi(argv[2]) : 87;
    const double compute_us = argc > 3 ? atof(argv[3]) : 2000.0;
    const int split = 0 == strcmp(mode, "split"), late = 0 == strcmp(mode, "late");
    if (2 != size || (!split && !late && 0 != strcmp(mode, "one"))) {
        if (0 == rank) {
            fprintf(stderr, "usage: 2 ranks, halo_late_post one|split|late [STEPS [COMPUTE_US]]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const int halo_bytes[] = {38600, 7720, 7720, 61760, 92640, 92640};
    const int n_halos = (int)(sizeof(halo_bytes) / sizeof(halo_bytes[0]));
    const size_t most = 92640;
    double *out = malloc(most), *in = malloc(most);
    for (size_t i = 0; i < most / sizeof(double); ++i) {
        out[i] = (double)rand() / RAND_MAX;
    }
    const int peer = 1 - rank;
    char head_out[14] = {0}, head_in[14];
    double in_exchanges = 0.0;
    const double loop_start = MPI_Wtime();
    for (int step = 0; step < steps; ++step) {
        for (int h = 0; h < n_halos; ++h) {
            const int count = halo_bytes[h] / (int)sizeof(double);
            MPI_Request req[4];
            const double t0 = MPI_Wtime();
            if (!split && !late) {
                MPI_Isend(out, count, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[0]);
                MPI_Irecv(in, count, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[1]);
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            } else {
                MPI_Isend(head_out, 14, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(out, count, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[1]);
                MPI_Irecv(head_in, 14, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[2]);
                if (late) {
                    MPI_Wait(&req[2], MPI_STATUS_IGNORE);
                }
                MPI_Irecv(in, count, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[3]);
                MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            }
            in_exchanges += MPI_Wtime() - t0;
            compute(compute_us * (rank ? 1.1 : 1.0));
        }
    }
    const double loop = MPI_Wtime() - loop_start;
    double worst_exchanges, worst_loop;
    MPI_Reduce(&in_exchanges, &worst_exchanges, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&loop, &worst_loop, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("%s exchanges_s %.4f loop_s %.4f\n", mode, worst_exchanges, worst_loop);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
