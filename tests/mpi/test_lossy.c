/*
 * Lossy mode (run with --mca coll_zip_lossy rel:1e-4): receivers get every double within the
 * relative bound, integers stay exact, and the lossy stage really ran (some value differs).
 */
#include "zt_common.h"

static const double bound = 1e-4;

static int within(const double *got, const double *want, size_t n, int *differs)
{
    int ok = 1;
    for (size_t i = 0; i < n; ++i) {
        ok &= fabs(got[i] - want[i]) <= bound * fabs(want[i]);
        *differs |= got[i] != want[i];
    }
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, differs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 100000;
    double *buf = malloc(n * sizeof(double)), *ref = malloc(n * sizeof(double));
    int *ints = malloc(n * sizeof(int)), *iref = malloc(n * sizeof(int));

    for (int root = 0; root < size; ++root) {
        zt_fill(ref, n, ZT_SMOOTH, root, 21);
        for (int i = 0; i < n; ++i)
            iref[i] = i / 7 + root;
        if (rank == root) {
            memcpy(buf, ref, n * sizeof(double));
            memcpy(ints, iref, n * sizeof(int));
        } else {
            memset(buf, 0, n * sizeof(double));
            memset(ints, 0, n * sizeof(int));
        }
        zt_call(MPI_Bcast(buf, n, MPI_DOUBLE, root, MPI_COMM_WORLD), "MPI_Bcast", rank);
        zt_call(MPI_Bcast(ints, n, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast int", rank);
        zt_check(within(buf, ref, n, &differs), "lossy bcast out of bound", rank);
        zt_check(0 == memcmp(ints, iref, n * sizeof(int)), "ints changed by lossy mode", rank);
    }

    /* Gatherv: each rank's n/size smooth doubles, bounded at the root. */
    const int per = n / size;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        counts[p] = per;
        displs[p] = p * per;
    }
    zt_fill(ref, per, ZT_SMOOTH, rank, 22);
    zt_call(MPI_Gatherv(ref, per, MPI_DOUBLE, buf, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD),
            "MPI_Gatherv", rank);
    if (0 == rank) {
        for (int p = 1; p < size; ++p) {
            zt_fill(ref, per, ZT_SMOOTH, p, 22);
            zt_check(within(buf + displs[p], ref, per, &differs), "lossy gatherv out of bound",
                     rank);
        }
    }
    int any = 0;
    MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    zt_check(any, "no value changed: the lossy stage did not run", rank);
    free(buf);
    free(ref);
    free(ints);
    free(iref);
    free(counts);
    free(displs);
    return zt_finish("lossy");
}
