/*
 * A communicator whose large collectives are all non-blocking still comes to compress them
 * under policy auto: its first blocking call of any size agrees on the speeds. On
 * MPI_COMM_WORLD, a duplicate and a split: two MPI_Ialltoall of 2 MiB of smooth doubles (no
 * speeds agreed: a start must not wait for the other ranks, so they are handed on), a one-int
 * MPI_Bcast (too small for zip, but blocking: the ranks agree there), and two more
 * MPI_Ialltoall, which compress over a slow link. Every result is checked bit-exact; the run
 * script counts the compressed calls in the statistics (two per rank of each communicator of
 * two ranks or more; none before this rule).
 */
#include "zt_common.h"

static void ialltoall_checked(MPI_Comm comm, uint64_t salt, int world_rank)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int block = (1 << 18) / p; /* 2 MiB of doubles in all */
    double *sbuf = malloc(sizeof(double) * (size_t)block * (size_t)p);
    double *rbuf = malloc(sizeof(double) * (size_t)block * (size_t)p);
    zt_fill(sbuf, (size_t)block * (size_t)p, ZT_SMOOTH, rank, salt);
    memset(rbuf, 0, sizeof(double) * (size_t)block * (size_t)p);
    MPI_Request req;
    zt_call(MPI_Ialltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, comm, &req),
            "MPI_Ialltoall", world_rank);
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", world_rank);
    int ok = 1;
    for (int from = 0; from < p; ++from) {
        /* From rank `from`: its block for this rank, elements rank * block onwards. */
        for (int i = 0; i < block && ok; ++i) {
            const double want = zt_value(ZT_SMOOTH, from, salt, (size_t)rank * block + i);
            ok = 0 == memcmp(&want, &rbuf[(size_t)from * block + i], sizeof want);
        }
    }
    zt_checkf(ok, world_rank, "ialltoall on %d ranks, salt %llu", p, (unsigned long long)salt);
    free(sbuf);
    free(rbuf);
}

static void run(MPI_Comm comm)
{
    int p, world_rank;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (p < 2)
        return;
    static uint64_t salt = 0;
    for (int i = 0; i < 2; ++i)
        ialltoall_checked(comm, ++salt, world_rank);
    int flag = 0 == world_rank ? 42 : 0;
    zt_call(MPI_Bcast(&flag, 1, MPI_INT, 0, comm), "MPI_Bcast", world_rank);
    for (int i = 0; i < 2; ++i)
        ialltoall_checked(comm, ++salt, world_rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run);
    return zt_finish("nb_agree");
}
