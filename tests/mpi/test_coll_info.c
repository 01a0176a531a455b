/*
 * The MPI_Info key zip_coll: a communicator created with zip_coll=false (MPI_Comm_dup_with_info,
 * MPI_Comm_split_type) gets no coll/zip module, so its MPI_Bcast, Alltoallv and Gatherv are
 * stock Open MPI's: the results are right and zip's MPI_T counters coll_zip_<op>_calls do not
 * move, while a plain duplicate in the same job, one with zip_coll=true or a value zip does not
 * know, and a plain duplicate of a zip_coll=false one count every call. Run with zip on
 * (run-mpi-tests.sh: --require-zip); SKIP without coll/zip loaded.
 */
#include "zt_counters.h"

enum { BCAST, ALLTOALLV, GATHERV, NOPS };
static const char *const ops[NOPS] = {"bcast", "alltoallv", "gatherv"};
static const char *const counters[] = {"calls"};

/* Doubles in each block: above coll_zip_threshold, so a zip module would take the calls. */
enum { N = 20000 };

/* Whether count doubles at got are elements first.. of what owner contributes (zt_value). */
static int matches_from(const double *got, int count, int owner, uint64_t salt, size_t first)
{
    int ok = 1;
    for (int i = 0; i < count; ++i) {
        const double want = zt_value(ZT_SMOOTH, owner, salt, first + (size_t)i);
        ok &= 0 == memcmp(&got[i], &want, sizeof want);
    }
    return ok;
}

/* One MPI_Bcast, MPI_Alltoallv and MPI_Gatherv on comm (root 0), each result checked. Rank r
 * sends elements [p * N, (p + 1) * N) of its data to rank p, and its first N to the gather. */
static void run_ops(MPI_Comm comm, const char *label, uint64_t salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    zt_blocks_t b;
    zt_blocks_init(&b, N, size, ZT_SMOOTH, rank, salt);
    double *buf = malloc(N * sizeof(double));
    if (0 == rank)
        zt_fill(buf, N, ZT_SMOOTH, 0, salt);
    else
        for (int i = 0; i < N; ++i)
            buf[i] = -9.0;
    zt_call(MPI_Bcast(buf, N, MPI_DOUBLE, 0, comm), "MPI_Bcast", rank);
    zt_checkf(matches_from(buf, N, 0, salt, 0), rank, "%s: bcast delivered wrong data", label);

    zt_call(MPI_Alltoallv(b.mine, b.counts, b.disps, MPI_DOUBLE, b.all, b.counts, b.disps,
                          MPI_DOUBLE, comm),
            "MPI_Alltoallv", rank);
    for (int p = 0; p < size; ++p)
        zt_checkf(matches_from(&b.all[(size_t)p * N], N, p, salt, (size_t)rank * N), rank,
                  "%s: alltoallv block from %d is wrong", label, p);

    for (size_t i = 0; i < (size_t)N * size; ++i)
        b.all[i] = -9.0;
    zt_call(MPI_Gatherv(b.mine, N, MPI_DOUBLE, b.all, b.counts, b.disps, MPI_DOUBLE, 0, comm),
            "MPI_Gatherv", rank);
    for (int p = 0; 0 == rank && p < size; ++p)
        zt_checkf(matches_from(&b.all[(size_t)p * N], N, p, salt, 0), rank,
                  "%s: gatherv block from %d is wrong", label, p);
    free(buf);
    zt_blocks_free(&b);
}

static MPI_Info info_with(const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "zip_coll", value);
    return info;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!zt_counters_init(&argc, &argv, "coll_info", &rank, &size))
        return 0;
    zt_counters_t t;
    if (zt_counters_open(&t, ops, NOPS, counters, 1, rank)) {
        MPI_Info off = info_with("false"), on = info_with("true"), odd = info_with("maybe"),
                 upper = info_with("FALSE");
        struct {
            const char *label;
            MPI_Comm comm;
            int zip; /* whether coll/zip must count the calls */
        } cases[] = {{"plain dup", MPI_COMM_NULL, 1},
                     {"dup_with_info zip_coll=false", MPI_COMM_NULL, 0},
                     {"dup_with_info zip_coll=FALSE", MPI_COMM_NULL, 0},
                     {"split_type zip_coll=false", MPI_COMM_NULL, 0},
                     {"dup_with_info zip_coll=true", MPI_COMM_NULL, 1},
                     {"dup_with_info zip_coll=maybe", MPI_COMM_NULL, 1},
                     /* Open MPI 4.1's MPI_Comm_dup copies no info (docs/deployment.md) */
                     {"plain dup of the zip_coll=false dup", MPI_COMM_NULL, 1}};
        MPI_Comm_dup(MPI_COMM_WORLD, &cases[0].comm);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, off, &cases[1].comm);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, upper, &cases[2].comm);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, off, &cases[3].comm);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, on, &cases[4].comm);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, odd, &cases[5].comm);
        MPI_Comm_dup(cases[1].comm, &cases[6].comm);
        const int ncases = (int)(sizeof cases / sizeof cases[0]);
        for (int c = 0; c < ncases; ++c) {
            unsigned long long before[NOPS], after[NOPS];
            MPI_Comm_set_errhandler(cases[c].comm, MPI_ERRORS_RETURN);
            zt_counters_read(&t, before);
            run_ops(cases[c].comm, cases[c].label, (uint64_t)c + 1);
            zt_counters_read(&t, after);
            for (int op = 0; op < NOPS; ++op)
                zt_checkf(after[op] - before[op] == (unsigned long long)cases[c].zip, rank,
                          "%s: coll/zip counted %llu %s calls, want %d", cases[c].label,
                          after[op] - before[op], ops[op], cases[c].zip);
            MPI_Comm_free(&cases[c].comm);
        }
        MPI_Info_free(&off);
        MPI_Info_free(&on);
        MPI_Info_free(&odd);
        MPI_Info_free(&upper);
    }
    zt_counters_close(&t);
    return zt_finish("coll_info");
}
