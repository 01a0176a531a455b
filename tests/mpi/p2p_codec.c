/*
 * What pml_zip_codec changes: rank 0 sends rank 1 the same two messages whatever the codec
 * (1 MiB of smooth doubles, 1 MiB of random values in [0, 1)), so that the harness can compare
 * the wire bytes of pml_zip_stats between codecs.
 * Usage: p2p_codec exact|lossy
 *   exact: every value must arrive bit for bit (lossless codecs);
 *   lossy: within a relative error of 1e-6 (trunc:20 keeps 32 mantissa bits, f32 24).
 * Ranks beyond 1 only join the final reduction.
 */
#include <math.h>

#include "p2p_common.h"

#define N (1 << 17)

static void check(const double *got, const double *ref, size_t n, int exact, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (exact ? 0 != memcmp(&got[i], &ref[i], sizeof(double))
                  : !(fabs(got[i] - ref[i]) <= 1e-6 * fabs(ref[i]))) {
            ++bad;
        }
    }
    pt_check(0 == bad, what);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    if (argc != 2 || (0 != strcmp(argv[1], "exact") && 0 != strcmp(argv[1], "lossy"))) {
        if (0 == pt_rank)
            fprintf(stderr, "usage: p2p_codec exact|lossy\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int exact = 0 == strcmp(argv[1], "exact");
    const char *sets[2] = {"gauss-512", "random-unit"};
    double *ref = malloc(N * sizeof(double)), *buf = malloc(N * sizeof(double));

    for (int s = 0; s < 2 && pt_rank < 2; ++s) {
        if (ZIPDATA_OK != zipdata_fill(sets[s], ref, N, 7)) {
            fprintf(stderr, "zipdata_fill %s failed\n", sets[s]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (0 == pt_rank) {
            pt_call(MPI_Send(ref, N, MPI_DOUBLE, 1, s, MPI_COMM_WORLD), sets[s]);
        } else {
            memset(buf, 0, N * sizeof(double));
            pt_call(MPI_Recv(buf, N, MPI_DOUBLE, 0, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE), sets[s]);
            check(buf, ref, N, exact, sets[s]);
        }
    }
    free(ref);
    free(buf);
    return pt_finish("p2p_codec");
}
