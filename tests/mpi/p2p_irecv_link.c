/*
 * Large messages received through MPI_Irecv give pml/zip a link rate when the receiver waits
 * for them, and none when it computes while they travel (pml_zip_arrival_clock.c). Rank 0
 * sends 12 smooth 4 MiB messages to rank 1 with MPI_Send. Rank 1 receives each with MPI_Irecv
 * and then, with "wait", MPI_Wait; with "compute", MPI_Test every 5 ms of computation until it
 * completes. The run script reads rank 1's statistics: timed on arrivals after "wait", no rate
 * after "compute" (a transport that moves data only when polled, such as the TCP BTL, would
 * otherwise show the rate of the tests, not of the link).
 * Usage: p2p_irecv_link wait|compute
 */
#include <time.h>

#include "p2p_common.h"

enum { MESSAGES = 12, DOUBLES = 1 << 19, DATA_TAG = 7 };

/* Computation that does not enter MPI for `seconds`. */
static void compute_for(double seconds)
{
    const double end = MPI_Wtime() + seconds;
    volatile double x = 1.0;
    while (MPI_Wtime() < end)
        for (int i = 0; i < 1000; ++i)
            x = x * 1.0000001 + 1e-9;
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    const int compute = argc > 1 && 0 == strcmp(argv[1], "compute");
    double *msg = malloc(DOUBLES * sizeof(double));
    double *want = malloc(DOUBLES * sizeof(double));
    for (int m = 0; m < MESSAGES && pt_size >= 2; ++m) {
        const uint64_t seed = pt_seed(0, 1, DATA_TAG, 2 * m); /* even: smooth */
        if (0 == pt_rank) {
            pt_fill_f64(msg, DOUBLES, seed);
            pt_call(MPI_Send(msg, DOUBLES, MPI_DOUBLE, 1, DATA_TAG, MPI_COMM_WORLD), "MPI_Send");
        } else if (1 == pt_rank) {
            MPI_Request req;
            pt_call(MPI_Irecv(msg, DOUBLES, MPI_DOUBLE, 0, DATA_TAG, MPI_COMM_WORLD, &req),
                    "MPI_Irecv");
            if (compute) {
                int done = 0;
                while (!done) {
                    pt_call(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
                    if (!done)
                        compute_for(5e-3);
                }
            } else {
                pt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
            }
            pt_fill_f64(want, DOUBLES, seed);
            pt_check(pt_same(msg, want, DOUBLES * sizeof(double)), "message arrives bit-exact");
        }
    }
    free(msg);
    free(want);
    return pt_finish(compute
                         ? "irecv link: a receiver that computes while data travels times nothing"
                         : "irecv link: a waiting receiver times its MPI_Irecv arrivals");
}
