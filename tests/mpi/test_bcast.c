/*
 * MPI_Bcast through coll/zip: every root, sizes around the threshold and the segment size,
 * smooth and random doubles, floats, ints, a non-contiguous datatype, a root whose datatype
 * differs from the receivers', dup/split communicators, and MPI_Ibcast calls in flight together.
 * Bit-exact against local data.
 */
#include "zt_common.h"

static const size_t sizes[] = {0, 1, 100, 2047, 2048, 5000, 40000, 100003, 300000};

static void bcast_doubles(MPI_Comm comm, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t max = sizes[sizeof sizes / sizeof sizes[0] - 1];
    double *buf = malloc(max * sizeof(double)), *ref = malloc(max * sizeof(double));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (int kind = 0; kind < ZT_KINDS; ++kind) {
            for (int root = 0; root < size; ++root) {
                const size_t n = sizes[s];
                zt_fill(ref, n, kind, root, s);
                if (rank == root)
                    memcpy(buf, ref, n * sizeof(double));
                else
                    for (size_t i = 0; i < n; ++i)
                        buf[i] = -1.0 - (double)i;
                zt_call(MPI_Bcast(buf, (int)n, MPI_DOUBLE, root, comm), "MPI_Bcast", rank);
                zt_checkf(0 == memcmp(buf, ref, n * sizeof(double)), rank,
                          "%s double n=%zu %s root=%d", label, n, zt_kind_name[kind], root);
            }
        }
    }
    free(buf);
    free(ref);
}

static void bcast_floats_and_ints(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t n = 50001;
    float *f = malloc(n * sizeof(float)), *fref = malloc(n * sizeof(float));
    int *v = malloc(n * sizeof(int)), *vref = malloc(n * sizeof(int));
    for (int root = 0; root < size; ++root) {
        for (size_t i = 0; i < n; ++i) {
            fref[i] = (float)zt_value(ZT_SMOOTH, root, 7, i);
            vref[i] = (int)(i / 3) * (root + 1) + (int)(zt_mix(i) % 5);
        }
        if (rank == root) {
            memcpy(f, fref, n * sizeof(float));
            memcpy(v, vref, n * sizeof(int));
        } else {
            memset(f, 0, n * sizeof(float));
            memset(v, 0, n * sizeof(int));
        }
        zt_call(MPI_Bcast(f, (int)n, MPI_FLOAT, root, comm), "MPI_Bcast float", rank);
        zt_call(MPI_Bcast(v, (int)n, MPI_INT, root, comm), "MPI_Bcast int", rank);
        zt_check(0 == memcmp(f, fref, n * sizeof(float)), "float bcast", rank);
        zt_check(0 == memcmp(v, vref, n * sizeof(int)), "int bcast", rank);
    }
    free(f);
    free(fref);
    free(v);
    free(vref);
}

/* Every other double of a 2n array (vector type) on all ranks; the root alone describes its
 * data as n plain MPI_DOUBLE in a scratch copy, which MPI allows (same type signature). */
static void bcast_derived(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 30000;
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    double *buf = malloc(2 * n * sizeof(double)), *ref = malloc(n * sizeof(double));
    for (int root = 0; root < size; ++root) {
        for (int variant = 0; variant < 2; ++variant) {
            zt_fill(ref, n, ZT_SMOOTH, root, 11 + variant);
            for (int i = 0; i < 2 * n; ++i)
                buf[i] = -7.0;
            if (rank == root) {
                for (int i = 0; i < n; ++i)
                    buf[2 * i] = ref[i];
            }
            if (rank == root && variant == 1) {
                double *plain = malloc(n * sizeof(double));
                memcpy(plain, ref, n * sizeof(double));
                zt_call(MPI_Bcast(plain, n, MPI_DOUBLE, root, comm), "MPI_Bcast plain", rank);
                free(plain);
            } else {
                zt_call(MPI_Bcast(buf, 1, strided, root, comm), "MPI_Bcast strided", rank);
            }
            if (rank != root) {
                int ok = zt_block_matches(buf, 2, n, ZT_SMOOTH, root, 11 + variant);
                for (int i = 0; i < n; ++i)
                    ok &= buf[2 * i + 1] == -7.0; /* gaps untouched */
                zt_check(ok, variant ? "strided bcast, plain root" : "strided bcast", rank);
            }
        }
    }
    MPI_Type_free(&strided);
    free(buf);
    free(ref);
}

/* MPI_Ibcast: three calls in flight (smooth doubles from rank 0, random doubles from the last
 * rank, a strided datatype from rank 0) with a blocking bcast between them, driven by
 * MPI_Testall while the rank computes. */
static void ibcast(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 200000, m = 30000;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    double *c = malloc(2 * m * sizeof(double)), *d = malloc(m * sizeof(double));
    MPI_Datatype strided;
    MPI_Type_vector(m, 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    for (int i = 0; i < n; ++i)
        a[i] = b[i] = -1.0;
    for (int i = 0; i < 2 * m; ++i)
        c[i] = -7.0;
    if (rank == 0) {
        zt_fill(a, n, ZT_SMOOTH, 0, 21);
        for (int i = 0; i < m; ++i)
            c[2 * i] = zt_value(ZT_SMOOTH, 0, 23, (size_t)i);
    }
    if (rank == size - 1)
        zt_fill(b, n, ZT_RANDOM, size - 1, 22);
    MPI_Request req[3];
    zt_call(MPI_Ibcast(a, n, MPI_DOUBLE, 0, comm, &req[0]), "MPI_Ibcast", rank);
    zt_call(MPI_Ibcast(b, n, MPI_DOUBLE, size - 1, comm, &req[1]), "MPI_Ibcast", rank);
    zt_call(MPI_Ibcast(c, 1, strided, 0, comm, &req[2]), "MPI_Ibcast strided", rank);
    if (rank == 0)
        zt_fill(d, m, ZT_SMOOTH, 0, 24);
    zt_call(MPI_Bcast(d, m, MPI_DOUBLE, 0, comm), "MPI_Bcast between", rank);
    zt_compute_until_done(3, req, rank);
    int ok = zt_block_matches(a, 1, n, ZT_SMOOTH, 0, 21) &&
             zt_block_matches(b, 1, n, ZT_RANDOM, size - 1, 22) &&
             zt_block_matches(c, 2, m, ZT_SMOOTH, 0, 23) &&
             zt_block_matches(d, 1, m, ZT_SMOOTH, 0, 24);
    for (int i = 0; i < m; ++i)
        ok &= c[2 * i + 1] == -7.0; /* gaps untouched */
    zt_check(ok, "ibcast", rank);
    MPI_Type_free(&strided);
    free(a);
    free(b);
    free(c);
    free(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    bcast_doubles(MPI_COMM_WORLD, "world");
    bcast_floats_and_ints(MPI_COMM_WORLD);
    bcast_derived(MPI_COMM_WORLD);
    ibcast(MPI_COMM_WORLD);

    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    bcast_doubles(dup, "dup");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split); /* reversed order inside */
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    bcast_doubles(split, "split");
    bcast_derived(split);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    return zt_finish("bcast");
}
