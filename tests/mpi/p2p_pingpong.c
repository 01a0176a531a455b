/*
 * Ping-pong and streaming bandwidth between ranks 0 and 1, for measuring what pml/zip costs or
 * gains: the same program runs with and without zip (the mpirun options decide). Data: smooth
 * doubles (sincos-512, compressible), random doubles (incompressible) and the random bytes sent
 * as MPI_BYTE (never touched by zip: the raw path). Prints one line per point:
 *   data size_bytes pingpong_us_median bandwidth_MBps pingpong_us_min
 * (the minimum is the figure least disturbed by other load on a shared host)
 * Usage: p2p_pingpong [sizes...]   (bytes; default 8 1024 16384 65536 262144 1048576 4194304)
 */
#include <time.h>

#include "p2p_common.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int reps_for(size_t bytes)
{
    if (bytes <= 65536)
        return 200;
    if (bytes <= 1048576)
        return 30;
    return 10;
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    size_t sizes[32];
    int nsizes = 0;
    for (int i = 1; i < argc && nsizes < 32; ++i)
        sizes[nsizes++] = strtoull(argv[i], NULL, 10);
    if (0 == nsizes) {
        const size_t def[] = {8, 1024, 16384, 65536, 262144, 1048576, 4194304};
        for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); ++i)
            sizes[nsizes++] = def[i];
    }
    const char *names[3] = {"smooth-f64", "random-f64", "bytes"};
    if (0 == pt_rank)
        printf("# data size_bytes pingpong_us_median bandwidth_MBps pingpong_us_min\n");
    for (int d = 0; d < 3; ++d) {
        for (int s = 0; s < nsizes; ++s) {
            size_t bytes = sizes[s], n = bytes / 8;
            double *buf = malloc(bytes + 64), *back = malloc(bytes + 64);
            pt_fill_f64(buf, n, 1 == d ? 1 : 2); /* seed parity picks the data set */
            MPI_Datatype t = (2 == d) ? MPI_BYTE : MPI_DOUBLE;
            int count = (2 == d) ? (int)bytes : (int)n;
            const int reps = reps_for(bytes);
            double *rt = malloc(reps * sizeof(double));
            MPI_Barrier(MPI_COMM_WORLD);
            for (int r = -2; r < reps; ++r) { /* two warm-up rounds */
                double t0 = MPI_Wtime();
                if (0 == pt_rank) {
                    MPI_Send(buf, count, t, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(back, count, t, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (1 == pt_rank) {
                    MPI_Recv(back, count, t, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(back, count, t, 0, 1, MPI_COMM_WORLD);
                }
                if (r >= 0)
                    rt[r] = (MPI_Wtime() - t0) * 1e6;
            }
            qsort(rt, reps, sizeof(double), cmp_double);
            /* Bandwidth: a window of 8 messages in flight, then a 1-int acknowledgement. */
            const int window = 8, rounds = reps_for(bytes) / 4 + 2;
            MPI_Request req[8];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int r = 0; r < rounds; ++r) {
                int ack = 0;
                if (0 == pt_rank) {
                    for (int w = 0; w < window; ++w)
                        MPI_Isend(buf, count, t, 1, 2, MPI_COMM_WORLD, &req[w]);
                    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                    MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (1 == pt_rank) {
                    double *rb = malloc((bytes + 64) * window);
                    for (int w = 0; w < window; ++w)
                        MPI_Irecv((char *)rb + w * (bytes + 64), count, t, 0, 2, MPI_COMM_WORLD,
                                  &req[w]);
                    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                    MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
                    free(rb);
                }
            }
            double secs = MPI_Wtime() - t0;
            if (0 == pt_rank) {
                printf("%s %zu %.1f %.1f %.1f\n", names[d], bytes, rt[reps / 2],
                       (double)bytes * window * rounds / secs / 1e6, rt[0]);
                fflush(stdout);
            }
            pt_check(pt_same(buf, back, n * 8) || pt_rank > 1, "ping-pong data");
            free(rt);
            free(buf);
            free(back);
        }
    }
    return pt_finish("p2p_pingpong");
}
