/*
 * What non-blocking calls cost the codec counts when the ranks next agree on its speed. After a
 * barrier (where policy auto agrees on the speeds the run was given), eight MPI_Ialltoall of
 * smooth doubles take zip's path and code their blocks; then blocking calls that code nothing
 * (one-int MPI_Bcast, below every threshold) reach the communicator's next agreement, which can
 * only learn the codec's speed from the non-blocking calls. The run script reads the agreed
 * speed from coll_zip_verbose. Every result checked.
 */
#include "zt_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int block = 1 << 16; /* 512 KiB of doubles per peer */
    double *sbuf = malloc(sizeof(double) * (size_t)block * size);
    double *rbuf = malloc(sizeof(double) * (size_t)block * size);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int call = 0; call < 8; ++call) {
        for (int p = 0; p < size; ++p)
            zt_fill(sbuf + (size_t)p * block, block, ZT_SMOOTH, rank, (uint64_t)(p * 8 + call));
        MPI_Request req;
        zt_call(
            MPI_Ialltoall(sbuf, block, MPI_DOUBLE, rbuf, block, MPI_DOUBLE, MPI_COMM_WORLD, &req),
            "MPI_Ialltoall", rank);
        zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
        int ok = 1;
        for (int p = 0; p < size; ++p)
            ok &= zt_block_matches(rbuf + (size_t)p * block, 1, block, ZT_SMOOTH, p,
                                   (uint64_t)(rank * 8 + call));
        zt_check(ok, "ialltoall", rank);
    }
    for (int call = 0; call < 16; ++call) {
        int token = rank == call % size ? 1000 + call : -1;
        zt_call(MPI_Bcast(&token, 1, MPI_INT, call % size, MPI_COMM_WORLD), "MPI_Bcast", rank);
        zt_check(token == 1000 + call, "bcast of one int", rank);
    }
    free(sbuf);
    free(rbuf);
    return zt_finish("nb_metered");
}
