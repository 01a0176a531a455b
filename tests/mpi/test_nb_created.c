/*
 * A communicator made after its ranks know the link rates routes its first non-blocking call as
 * agreed: every rank started a small agreement inside the call that made it (coll/zip's
 * coll_zip_agree_early), and that first call completes it. In order, each call checked
 * bit-exact:
 *   - `early`, a duplicate of MPI_COMM_WORLD made before any collective: one MPI_Ialltoall;
 *   - a one-double MPI_Allreduce on MPI_COMM_WORLD (where its ranks agree on the rates);
 *   - twenty duplicates made and freed unused (their agreements complete as they are freed);
 *   - `late`, a duplicate made now: rank 0 starts an MPI_Ibcast and then sends to rank 1, which
 *     receives before it starts its own (the start that completes the agreement must not wait
 *     for a rank that has not made the communicator: all have);
 *   - `idup`, made by MPI_Comm_idup: one MPI_Ialltoall, then MPI_Comm_idup of it while an
 *     MPI_Ialltoall runs on it.
 * The run script reads the statistics: the call on `early` is handed on unagreed where the rates
 * are measured (its ranks knew none when it was made) and routed as agreed where they are given
 * (MPI_COMM_WORLD's ranks agreed inside MPI_Init then); the later ones are routed as agreed.
 */
#include "zt_common.h"

enum { N = 1 << 18 }; /* 2 MiB of doubles */

/* Whether rbuf holds, from each of p ranks, its smooth elements rank * block onwards. */
static int alltoall_ok(const double *rbuf, int block, int p, int rank, uint64_t salt)
{
    for (int from = 0; from < p; ++from)
        for (int i = 0; i < block; ++i) {
            const double want = zt_value(ZT_SMOOTH, from, salt, (size_t)rank * block + i);
            if (0 != memcmp(&want, &rbuf[(size_t)from * block + i], sizeof want))
                return 0;
        }
    return 1;
}

static void ialltoall_checked(MPI_Comm comm, uint64_t salt, int world_rank)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int block = N / p;
    double *sbuf = malloc(sizeof(double) * N), *rbuf = malloc(sizeof(double) * N);
    zt_fill(sbuf, (size_t)block * (size_t)p, ZT_SMOOTH, rank, salt);
    MPI_Request req;
    zt_call(MPI_Ialltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, comm, &req),
            "MPI_Ialltoall", world_rank);
    zt_compute_until_done(1, &req, world_rank);
    zt_checkf(alltoall_ok(rbuf, block, p, rank, salt), world_rank,
              "ialltoall on %d ranks, salt %llu", p, (unsigned long long)salt);
    free(sbuf);
    free(rbuf);
}

static void ibcast_start_then_send(MPI_Comm comm, uint64_t salt, int world_rank)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    double *buf = malloc(sizeof(double) * N);
    if (0 == rank)
        zt_fill(buf, N, ZT_SMOOTH, 0, salt);
    MPI_Request req;
    int token = (int)salt;
    if (0 == rank) {
        zt_call(MPI_Ibcast(buf, N, MPI_DOUBLE, 0, comm, &req), "MPI_Ibcast", world_rank);
        zt_call(MPI_Send(&token, 1, MPI_INT, 1, 78, comm), "MPI_Send", world_rank);
    } else {
        if (1 == rank)
            zt_call(MPI_Recv(&token, 1, MPI_INT, 0, 78, comm, MPI_STATUS_IGNORE), "MPI_Recv",
                    world_rank);
        zt_call(MPI_Ibcast(buf, N, MPI_DOUBLE, 0, comm, &req), "MPI_Ibcast", world_rank);
    }
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", world_rank);
    zt_checkf(token == (int)salt && zt_block_matches(buf, 1, N, ZT_SMOOTH, 0, salt), world_rank,
              "ibcast, salt %llu", (unsigned long long)salt);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        fprintf(stderr, "nb_created needs 2 ranks or more\n");
        MPI_Finalize();
        return 1;
    }

    MPI_Comm early, late, idup, idup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &early);
    MPI_Comm_set_errhandler(early, MPI_ERRORS_RETURN);
    ialltoall_checked(early, 1, world_rank);

    double x = world_rank, sum = 0.0;
    zt_call(MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce",
            world_rank);
    zt_checkf(sum == size * (size - 1) / 2.0, world_rank, "allreduce of ranks: %g", sum);

    for (int i = 0; i < 20; ++i) {
        MPI_Comm unused;
        MPI_Comm_dup(MPI_COMM_WORLD, &unused);
        MPI_Comm_free(&unused);
    }

    MPI_Comm_dup(MPI_COMM_WORLD, &late);
    MPI_Comm_set_errhandler(late, MPI_ERRORS_RETURN);
    ibcast_start_then_send(late, 2, world_rank);

    MPI_Request made;
    zt_call(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &made), "MPI_Comm_idup", world_rank);
    zt_call(MPI_Wait(&made, MPI_STATUS_IGNORE), "MPI_Wait (idup)", world_rank);
    MPI_Comm_set_errhandler(idup, MPI_ERRORS_RETURN);
    ialltoall_checked(idup, 3, world_rank);
    /* A communicator made while a non-blocking call runs on its parent. */
    MPI_Request both[2];
    double *sbuf = malloc(sizeof(double) * N), *rbuf = malloc(sizeof(double) * N);
    const int block = N / size;
    zt_fill(sbuf, N, ZT_SMOOTH, world_rank, 4);
    zt_call(MPI_Ialltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, idup, &both[0]),
            "MPI_Ialltoall", world_rank);
    zt_call(MPI_Comm_idup(idup, &idup2, &both[1]), "MPI_Comm_idup", world_rank);
    zt_compute_until_done(2, both, world_rank);
    zt_checkf(alltoall_ok(rbuf, block, size, world_rank, 4), world_rank,
              "ialltoall beside MPI_Comm_idup");
    MPI_Comm_set_errhandler(idup2, MPI_ERRORS_RETURN);
    ialltoall_checked(idup2, 5, world_rank);
    free(sbuf);
    free(rbuf);

    MPI_Comm_free(&idup2);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&late);
    MPI_Comm_free(&early);
    return zt_finish("nb_created");
}
