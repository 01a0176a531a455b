/*
 * Blocks of more than INT_MAX bytes (a legal int count of doubles): MPI_Gatherv and
 * MPI_Alltoallv with one such block, and MPI_Bcast of such a buffer, on 2 ranks. The PML takes
 * an int count, so zip moves these blocks as the user's own count of the user's datatype and
 * the bcast in segments; the results are bit-exact. Needs about 5 GB of memory; without it the
 * test says SKIP.
 */
#include "zt_common.h"

#include <sys/mman.h>

/* Just over INT_MAX bytes of doubles. */
static const size_t big_count = (size_t)INT32_MAX / sizeof(double) + 4099;

static double big_value(size_t i, int owner)
{
    return 0.25 * (double)i + (double)owner; /* exact, and compressible */
}

/* Huge pages where the kernel gives them on request (THP "madvise", Debian's default): on a VM
 * each 4 KiB page's first touch traps to the hypervisor, and faulting in 13 GB of 4 KiB pages
 * took 60-70 s of this test's 75 (stock and zip alike); the blocks' size is what it tests. */
static double *big_buffer(size_t n, int owner)
{
    const size_t huge = (size_t)2 << 20;
    const size_t len = (n * sizeof(double) + huge - 1) & ~(huge - 1);
    double *b = NULL; /* posix_memalign leaves it so where it fails */
    if (0 == posix_memalign((void **)&b, huge, len))
        (void)madvise(b, len, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
    if (NULL == b) {
        fprintf(stderr, "test_large_block: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (owner >= 0)
        for (size_t i = 0; i < n; ++i)
            b[i] = big_value(i, owner);
    return b;
}

static int big_matches(const double *b, size_t n, int owner)
{
    for (size_t i = 0; i < n; ++i) {
        const double want = big_value(i, owner);
        if (0 != memcmp(&b[i], &want, sizeof want))
            return 0;
    }
    return 1;
}

static long available_mib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (1 == sscanf(line, "MemAvailable: %ld kB", &kib))
            break;
    if (f)
        fclose(f);
    return kib / 1024;
}

/* Rank 1 sends the big block to root 0, which receives it after a gap; rank 0's own is empty. */
static void gatherv_big(int rank)
{
    int counts[2] = {0, (int)big_count}, disps[2] = {0, 3};
    if (1 == rank) {
        double *s = big_buffer(big_count, 1);
        zt_call(MPI_Gatherv(s, (int)big_count, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0,
                            MPI_COMM_WORLD),
                "MPI_Gatherv", rank);
        free(s);
        return;
    }
    double *r = big_buffer(big_count + 3, -1);
    zt_call(MPI_Gatherv(NULL, 0, MPI_DOUBLE, r, counts, disps, MPI_DOUBLE, 0, MPI_COMM_WORLD),
            "MPI_Gatherv", rank);
    zt_check(big_matches(r + 3, big_count, 1), "gatherv of a block over INT_MAX bytes", rank);
    free(r);
}

/* Rank 0 sends the big block to rank 1, which sends back a small one. */
static void alltoallv_big(int rank)
{
    const int small = 5000;
    int sc[2] = {0, 0}, sd[2] = {0, 0}, rc[2] = {0, 0}, rd[2] = {0, 0};
    double *s, *r;
    if (0 == rank) {
        sc[1] = (int)big_count;
        rc[1] = small;
        s = big_buffer(big_count, 0);
        r = big_buffer(small, -1);
    } else {
        sc[0] = small;
        rc[0] = (int)big_count;
        s = big_buffer(small, 1);
        r = big_buffer(big_count, -1);
    }
    zt_call(MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, r, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD),
            "MPI_Alltoallv", rank);
    if (0 == rank)
        zt_check(big_matches(r, small, 1), "alltoallv small block next to a big one", rank);
    else
        zt_check(big_matches(r, big_count, 0), "alltoallv block over INT_MAX bytes", rank);
    free(s);
    free(r);
}

static void bcast_big(int rank)
{
    double *b = big_buffer(big_count, 0 == rank ? 0 : -1);
    zt_call(MPI_Bcast(b, (int)big_count, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast", rank);
    zt_check(big_matches(b, big_count, 0), "bcast of over INT_MAX bytes", rank);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Two ranks on one machine hold two big buffers at a time: 4.3 GB, plus headroom. */
    long mib = 0 == rank ? available_mib() : 0;
    MPI_Bcast(&mib, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (2 != size || mib < 6 * 1024) {
        if (0 == rank)
            printf("SKIP: large_block (needs 2 ranks and 6 GiB available; %d ranks, %ld MiB)\n",
                   size, mib);
        MPI_Finalize();
        return 0;
    }
    gatherv_big(rank);
    alltoallv_big(rank);
    bcast_big(rank);
    return zt_finish("large_block");
}
