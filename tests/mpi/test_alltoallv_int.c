/* MPI_Alltoallv of integer payloads (issue 11): sorted 32-bit indices, 64-bit ids with gaps and
 * random 64-bit keys, sent as MPI_INT, MPI_UNSIGNED, MPI_INT64_T and MPI_LONG_LONG. coll/zip
 * hands them to the codecs as ZIP_TYPE_I32/I64 (common/zip_ompi_datatype.c); every received
 * element must be bit for bit what its sender computed. run-mpi-tests.sh also checks in the
 * stats summary that the calls were compressed. */
#include "zt_common.h"

enum int_kind { INDICES = 0, IDS = 1, KEYS = 2, INT_KINDS = 3 };
static const char *const int_kind_name[INT_KINDS] = {"indices", "ids", "keys"};

/* Element i of the block `owner` sends to `to`: the same function on both sides. */
static uint64_t int_value(int kind, int owner, int to, size_t i)
{
    const uint64_t base = (uint64_t)(owner * 131 + to) << 20;
    switch (kind) {
    case INDICES: /* a stencil's column indices: ascending, small steps */
        return base + 27 * (i / 27) + (i % 27) * 64;
    case IDS: /* particle ids: ascending, a gap every ~40 */
        return (base << 12) + i + 1000 * (i / 40);
    default: /* random keys: incompressible */
        return zt_mix(base + i);
    }
}

static int count_for(int from, int to)
{
    return 6000 + 1000 * ((from + 2 * to) % 3);
}

static void exchange(MPI_Comm comm, int kind, MPI_Datatype type, size_t width, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int stotal = 0, rtotal = 0;
    for (int p = 0; p < size; ++p) {
        sc[p] = count_for(rank, p);
        sd[p] = stotal;
        stotal += sc[p];
        rc[p] = count_for(p, rank);
        rd[p] = rtotal;
        rtotal += rc[p];
    }
    unsigned char *sbuf = malloc((size_t)stotal * width), *rbuf = calloc(rtotal, width);
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < sc[p]; ++i) {
            const uint64_t v = int_value(kind, rank, p, (size_t)i);
            memcpy(sbuf + ((size_t)sd[p] + i) * width, &v, width); /* little-endian low bytes */
        }
    zt_call(MPI_Alltoallv(sbuf, sc, sd, type, rbuf, rc, rd, type, comm), "MPI_Alltoallv", rank);
    for (int p = 0; p < size; ++p) {
        int ok = 1;
        for (int i = 0; i < rc[p] && ok; ++i) {
            const uint64_t v = int_value(kind, p, rank, (size_t)i);
            ok = 0 == memcmp(rbuf + ((size_t)rd[p] + i) * width, &v, width);
        }
        zt_checkf(ok, rank, "alltoallv %s as %s from %d count %d", int_kind_name[kind], name, p,
                  rc[p]);
    }
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static void run_all(MPI_Comm comm)
{
    for (int kind = 0; kind < INT_KINDS; ++kind) {
        exchange(comm, kind, MPI_INT, 4, "MPI_INT");
        exchange(comm, kind, MPI_UNSIGNED, 4, "MPI_UNSIGNED");
        exchange(comm, kind, MPI_INT64_T, 8, "MPI_INT64_T");
        exchange(comm, kind, MPI_LONG_LONG, 8, "MPI_LONG_LONG");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("alltoallv_int");
}
