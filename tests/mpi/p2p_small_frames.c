/*
 * Messages too small for pml/zip's sample (under 16 KiB; only with pml_zip_threshold lowered):
 * rank 0 sends rank 1 32 messages of 8 KiB of doubles, whose kind the argument names, and
 * rank 1 checks every value bit for bit.
 *   weak:   random doubles of one sign and exponent range (their top byte fixed): a frame
 *           barely shorter than the data (ratio about 1.14), which over a 1 Gbit/s link costs
 *           more to code and decode than it saves;
 *   smooth: steps of equal values, which shrink many times over.
 * The harness reads pml_zip_stats for what was compressed. Ranks beyond 1 only join the final
 * reduction.
 */
#include "p2p_common.h"

#define N 1024
#define MESSAGES 32

static void fill(double *v, int weak, int round)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(round + 1);
    for (int i = 0; i < N; ++i) {
        if (weak) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            const uint64_t bits = (0x3full << 56) | (x >> 8);
            memcpy(&v[i], &bits, sizeof bits);
        } else {
            v[i] = (double)(i / 16) * 0.5 + round;
        }
    }
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    if (argc != 2 || (0 != strcmp(argv[1], "weak") && 0 != strcmp(argv[1], "smooth"))) {
        if (0 == pt_rank)
            fprintf(stderr, "usage: p2p_small_frames weak|smooth\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int weak = 0 == strcmp(argv[1], "weak");
    double *ref = malloc(N * sizeof(double)), *buf = malloc(N * sizeof(double));
    for (int round = 0; round < MESSAGES && pt_rank < 2; ++round) {
        fill(ref, weak, round);
        if (0 == pt_rank) {
            pt_call(MPI_Send(ref, N, MPI_DOUBLE, 1, round, MPI_COMM_WORLD), "MPI_Send");
        } else {
            memset(buf, 0, N * sizeof(double));
            pt_call(MPI_Recv(buf, N, MPI_DOUBLE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv");
            pt_check(0 == memcmp(buf, ref, N * sizeof(double)), "message arrives bit for bit");
        }
    }
    free(ref);
    free(buf);
    return pt_finish("small_frames");
}
