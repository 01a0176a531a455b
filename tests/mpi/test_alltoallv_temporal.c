/* MPI_Alltoallv over many steps of data that change little between steps, as a time-stepping
 * code sends them (coll_zip_alltoallv_temporal): drifting doubles (with a NaN payload and -0.0)
 * and 64-bit integer keys of which one in 32 changes per step, counts that change every few
 * steps, go to zero or below the threshold and come back, a strided (derived) receive type, and
 * communicators freed and made again (Open MPI reuses their context ids). Every element must be
 * bit for bit what its sender computed, with zip off, on, and on with temporal coding.
 * MPI_Alltoall takes the same path. run-mpi-tests.sh also compares the bytes zip sent with
 * temporal coding on and off. "--short": fewer steps; "--info V": only on a communicator made
 * with the MPI_Info key zip_alltoallv_temporal=V. */
#include "zt_common.h"

enum { DRIFT = 0, KEYS = 1 };

static int steps = 12;

/* Element i of the block `owner` sends to `to` at `step`, as 64 bits. */
static uint64_t element(int kind, int owner, int to, int step, size_t i)
{
    const uint64_t pair = (uint64_t)owner * 131 + (uint64_t)to;
    if (KEYS == kind)
        return zt_mix(pair << 40 ^ (uint64_t)i << 8 ^ (((uint64_t)step + i) / 32));
    if (3 == i)
        return 0x7ff8000000000123ull; /* a NaN payload */
    if (5 == i)
        return 0x8000000000000000ull; /* -0.0 */
    const double v =
        100.0 * sin(1e-3 * (double)i + (double)pair) + 1e-7 * (double)(((uint64_t)step + i) / 16);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* Elements from `from` to `to` at `step`: 2-4 Ki, changing every third step, now and then
 * none or 100 (below the default threshold of 16 KiB). */
static int count_for(int from, int to, int step)
{
    const int phase = from + 2 * to + step / 3;
    if (phase % 7 == 3)
        return 0;
    if (phase % 7 == 5)
        return 100;
    return 2048 + 1024 * (phase % 3);
}

static void exchange(MPI_Comm comm, int kind, int step, int strided_recv)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *layout = malloc(4 * (size_t)size * sizeof(int)); /* sc, sd, rc, rd */
    int *sc = layout, *sd = layout + size, *rc = layout + 2 * size, *rd = layout + 3 * size;
    int stotal, rtotal;
    zt_alltoallv_layout(size, rank, count_for, step, sc, sd, rc, rd, &stotal, &rtotal);
    const int stride = strided_recv ? 2 : 1;
    uint64_t *sbuf = malloc(((size_t)stotal + 1) * 8);
    uint64_t *rbuf = calloc((size_t)rtotal * stride + 1, 8);
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < sc[p]; ++i)
            sbuf[sd[p] + i] = element(kind, rank, p, step, (size_t)i);
    MPI_Datatype stype = KEYS == kind ? MPI_INT64_T : MPI_DOUBLE;
    MPI_Datatype rtype = strided_recv ? zt_strided_double() : stype;
    zt_call(MPI_Alltoallv(sbuf, sc, sd, stype, rbuf, rc, rd, rtype, comm), "MPI_Alltoallv", rank);
    for (int p = 0; p < size; ++p) {
        int ok = 1;
        for (int i = 0; i < rc[p] && ok; ++i) {
            const uint64_t want = element(kind, p, rank, step, (size_t)i);
            ok = 0 == memcmp(&rbuf[((size_t)rd[p] + i) * stride], &want, 8);
        }
        zt_checkf(ok, rank, "step %d %s strided=%d from %d count %d", step,
                  KEYS == kind ? "keys" : "doubles", strided_recv, p, rc[p]);
    }
    if (strided_recv)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
    free(layout);
}

/* MPI_Alltoall takes the same path: 2 Ki drifting doubles per peer. */
static void exchange_equal(MPI_Comm comm, int step)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int count = 2048;
    uint64_t *sbuf = malloc((size_t)size * count * 8), *rbuf = calloc((size_t)size * count, 8);
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < count; ++i)
            sbuf[(size_t)p * count + i] = element(DRIFT, rank, p, step, (size_t)i);
    zt_call(MPI_Alltoall(sbuf, count, MPI_DOUBLE, rbuf, count, MPI_DOUBLE, comm), "MPI_Alltoall",
            rank);
    for (int p = 0; p < size; ++p) {
        int ok = 1;
        for (int i = 0; i < count && ok; ++i) {
            const uint64_t want = element(DRIFT, p, rank, step, (size_t)i);
            ok = 0 == memcmp(&rbuf[(size_t)p * count + i], &want, 8);
        }
        zt_checkf(ok, rank, "alltoall step %d from %d", step, p);
    }
    free(sbuf);
    free(rbuf);
}

/* --info V: the Info the communicators of the test are made with (MPI_Comm_dup alone does not
 * pass the key on to zip in Open MPI 4.1). */
static MPI_Info made_with = MPI_INFO_NULL;

static MPI_Comm dup_of(MPI_Comm comm)
{
    MPI_Comm c;
    if (MPI_INFO_NULL != made_with)
        MPI_Comm_dup_with_info(comm, made_with, &c);
    else
        MPI_Comm_dup(comm, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* A stream is the previous block between two ranks on one communicator, so each kind of
 * exchange gets its own communicator, as docs/user-guide.md advises; on `comm` itself the
 * three kinds interleave, which must stay exact (each block codes against another kind). */
static void run_steps(MPI_Comm comm)
{
    MPI_Comm doubles = dup_of(comm), keys = dup_of(comm), equal = dup_of(comm);
    for (int step = 0; step < steps; ++step) {
        exchange(doubles, DRIFT, step, 0);
        exchange(keys, KEYS, step, 0);
        exchange_equal(equal, step);
    }
    /* A derived receive type (zip packs and unpacks) continues the doubles' streams. */
    for (int step = steps; step < steps + 3; ++step)
        exchange(doubles, DRIFT, step, 1);
    for (int step = 0; step < 3; ++step) {
        exchange(comm, DRIFT, step, 0);
        exchange(comm, KEYS, step, 0);
        exchange_equal(comm, step);
    }
    MPI_Comm_free(&doubles);
    MPI_Comm_free(&keys);
    MPI_Comm_free(&equal);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *info_value = NULL;
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--short"))
            steps = 4;
        if (0 == strcmp(argv[i], "--info") && i + 1 < argc)
            info_value = argv[++i];
    }
    if (NULL != info_value) {
        /* "--info V": only on communicators made with zip_alltoallv_temporal=V. */
        MPI_Info_create(&made_with);
        MPI_Info_set(made_with, "zip_alltoallv_temporal", info_value);
        MPI_Comm c = dup_of(MPI_COMM_WORLD);
        run_steps(c);
        MPI_Comm_free(&c);
        MPI_Info_free(&made_with);
        return zt_finish("alltoallv_temporal");
    }
    zt_on_world_dup_split(run_steps);
    /* Communicators freed and made again: a new one may get the old one's context id, and
     * must start without its streams. */
    for (int round = 0; round < 3; ++round) {
        MPI_Comm c = dup_of(MPI_COMM_WORLD);
        for (int step = 0; step < 3; ++step)
            exchange(c, DRIFT, step + round * 5, 0);
        MPI_Comm_free(&c);
    }
    return zt_finish("alltoallv_temporal");
}
