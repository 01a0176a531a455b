/*
 * What Open MPI's TCP BTL serialises (docs/scale.md, "What the TCP BTL serialises"): traffic
 * patterns timed on perftest/netemu, best and median of REPS after one warm-up.
 *
 *   mpicc -O2 -o tcp_btl_patterns perftest/tcp_btl_patterns.c
 *   [NETEMU_TCP_LINKS=2] perftest/netemu run -- -np P ./tcp_btl_patterns PATTERN BYTES [COUNT
 * [REPS]]
 *
 * Every message is BYTES; the pattern repeats COUNT times in the timed region (small BYTES with
 * a large COUNT: eager messages). Patterns:
 *   oneway   rank 0 -> 1 only
 *   pair     ranks 2i <-> 2i+1 both ways at once (Irecv + Isend), every pair at once
 *   pair1    only ranks 0 <-> 1 both ways (the others idle)
 *   ring     every rank sends to r+1 while it receives from r-1 (no pair both ways)
 *   ringr    the ring with each rank's send and receive one after the other (the bound if a
 *            process could not send and receive at once)
 *   fanout   rank 0 sends BYTES to each of the others at once
 *   fanin    every other rank sends BYTES to rank 0 at once
 *   linear   alltoall: every rank posts all receives, then all sends (tuned's algorithm 1)
 *   pairwise alltoall in P-1 steps: step k sends to r+k, receives from r-k (tuned's algorithm 2)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 3) {
        if (r == 0)
            fprintf(stderr, "usage: pat PATTERN BYTES [COUNT] [REPS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pat = argv[1];
    size_t n = strtoull(argv[2], NULL, 0);
    int count = argc > 3 ? atoi(argv[3]) : 1, reps = argc > 4 ? atoi(argv[4]) : 7;
    char *sb = malloc(n * p), *rb = malloc(n * p);
    memset(sb, r + 1, n * p);
    MPI_Request *q = malloc(sizeof(MPI_Request) * 2 * p);
    double *t = malloc(sizeof(double) * reps);
    for (int it = -1; it < reps; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int c = 0; c < count; ++c) {
            int nq = 0;
            if (!strcmp(pat, "oneway")) {
                if (r == 0)
                    MPI_Send(sb, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                else if (r == 1)
                    MPI_Recv(rb, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (!strcmp(pat, "pair") || (!strcmp(pat, "pair1") && r < 2)) {
                int peer = r ^ 1;
                if (peer < p) {
                    MPI_Irecv(rb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &q[nq++]);
                    MPI_Isend(sb, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &q[nq++]);
                }
            } else if (!strcmp(pat, "ring")) {
                MPI_Irecv(rb, n, MPI_BYTE, (r + p - 1) % p, 0, MPI_COMM_WORLD, &q[nq++]);
                MPI_Isend(sb, n, MPI_BYTE, (r + 1) % p, 0, MPI_COMM_WORLD, &q[nq++]);
            } else if (!strcmp(pat, "ringr")) {
                if (r % 2 == 0) {
                    MPI_Send(sb, n, MPI_BYTE, (r + 1) % p, 0, MPI_COMM_WORLD);
                    MPI_Recv(rb, n, MPI_BYTE, (r + p - 1) % p, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rb, n, MPI_BYTE, (r + p - 1) % p, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPI_Send(sb, n, MPI_BYTE, (r + 1) % p, 0, MPI_COMM_WORLD);
                }
            } else if (!strcmp(pat, "fanout")) {
                if (r == 0)
                    for (int k = 1; k < p; ++k)
                        MPI_Isend(sb + k * n, n, MPI_BYTE, k, 0, MPI_COMM_WORLD, &q[nq++]);
                else
                    MPI_Irecv(rb, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q[nq++]);
            } else if (!strcmp(pat, "fanin")) {
                if (r == 0)
                    for (int k = 1; k < p; ++k)
                        MPI_Irecv(rb + k * n, n, MPI_BYTE, k, 0, MPI_COMM_WORLD, &q[nq++]);
                else
                    MPI_Isend(sb, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q[nq++]);
            } else if (!strcmp(pat, "linear")) {
                for (int k = 1; k < p; ++k) {
                    int src = (r + p - k) % p;
                    MPI_Irecv(rb + src * n, n, MPI_BYTE, src, 0, MPI_COMM_WORLD, &q[nq++]);
                }
                for (int k = 1; k < p; ++k) {
                    int dst = (r + k) % p;
                    MPI_Isend(sb + dst * n, n, MPI_BYTE, dst, 0, MPI_COMM_WORLD, &q[nq++]);
                }
            } else if (!strcmp(pat, "pairwise")) {
                for (int k = 1; k < p; ++k) {
                    int dst = (r + k) % p, src = (r + p - k) % p;
                    MPI_Sendrecv(sb + dst * n, n, MPI_BYTE, dst, 0, rb + src * n, n, MPI_BYTE, src,
                                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            }
            MPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (it >= 0)
            t[it] = MPI_Wtime() - t0;
    }
    qsort(t, reps, sizeof(double), cmp);
    if (r == 0)
        printf("%-8s P=%d bytes=%zu count=%d: best %.2f ms median %.2f ms\n", pat, p, n, count,
               t[0] * 1e3, t[reps / 2] * 1e3);
    MPI_Finalize();
    return 0;
}
