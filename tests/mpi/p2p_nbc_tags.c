/*
 * pml/zip's payload tags keep clear of the non-blocking collectives' tags, wherever a
 * communicator's range of those stands. Each non-blocking collective takes the next tag of the
 * range (-27 down to about -2^30, and round again); a long job reaches, after some four million
 * calls on one communicator, the negative tags pml/zip's payloads travel on. Rather than make
 * millions of calls, this test puts the range there (Open MPI's counter, c_nbc_tag, set alike on
 * both ranks before any non-blocking call on a fresh duplicate), at the top of the window the
 * payloads once always took and at either end of each window they take now.
 *
 * Then rank 1 starts 256 MPI_Ibarrier (each posts a receive from rank 0 on its own tag of the
 * range) before it receives 8 messages of 32 KiB from rank 0, which sent them, every one as
 * an envelope and a payload (run with pml_zip_bare_max 0), before its own barriers. A payload on
 * a barrier's tag is taken by that barrier's receive: with the single window, the first
 * position did so on every run (the run script runs this test under pml/zip with every message
 * split). Every message is checked bit-exact, every call's return code too.
 */
#include "ompi_config.h"

#include "ompi/communicator/communicator.h"

#include "p2p_common.h"

enum { MESSAGES = 8, BARRIERS = 256, COUNT = 4096, TAG = 5 };

static void exchange_beside_barriers(int32_t nbc_tag, int round)
{
    MPI_Comm comm;
    pt_call(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    ((ompi_communicator_t *)comm)->c_nbc_tag = nbc_tag;
    double *msg = malloc(sizeof(double) * COUNT * MESSAGES);
    MPI_Request sends[MESSAGES], barriers[BARRIERS];
    if (0 == pt_rank) {
        for (int k = 0; k < MESSAGES; ++k) {
            pt_fill_f64(msg + (size_t)k * COUNT, COUNT, pt_seed(0, 1, TAG, round * MESSAGES + k));
            pt_call(MPI_Isend(msg + (size_t)k * COUNT, COUNT, MPI_DOUBLE, 1, TAG, comm, &sends[k]),
                    "MPI_Isend");
        }
        for (int b = 0; b < BARRIERS; ++b)
            pt_call(MPI_Ibarrier(comm, &barriers[b]), "MPI_Ibarrier");
        pt_call(MPI_Waitall(MESSAGES, sends, MPI_STATUSES_IGNORE), "MPI_Waitall (sends)");
    } else if (1 == pt_rank) {
        for (int b = 0; b < BARRIERS; ++b)
            pt_call(MPI_Ibarrier(comm, &barriers[b]), "MPI_Ibarrier");
        double *want = malloc(sizeof(double) * COUNT);
        for (int k = 0; k < MESSAGES; ++k) {
            MPI_Status st;
            pt_call(MPI_Recv(msg, COUNT, MPI_DOUBLE, 0, TAG, comm, &st), "MPI_Recv");
            pt_fill_f64(want, COUNT, pt_seed(0, 1, TAG, round * MESSAGES + k));
            char what[96];
            snprintf(what, sizeof what, "message %d with the range at %d", k, (int)nbc_tag);
            pt_check(pt_same(msg, want, sizeof(double) * COUNT), what);
        }
        free(want);
    } else {
        for (int b = 0; b < BARRIERS; ++b)
            pt_call(MPI_Ibarrier(comm, &barriers[b]), "MPI_Ibarrier");
    }
    pt_call(MPI_Waitall(BARRIERS, barriers, MPI_STATUSES_IGNORE), "MPI_Waitall (barriers)");
    free(msg);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    /* First (while this process's message numbers are small): the top of the single window
     * payloads took before, -2^22. Then either end of the two windows now (payload_tags.h), a
     * fresh communicator's -27, and beyond 24 bits. */
    const int32_t at[] = {
        -(1 << 22), -(1 << 23) + (1 << 21), -(1 << 23) + 300, -(1 << 21), -(1 << 22) + 300,
        -27,        -(1 << 24) - (1 << 22)};
    for (int i = 0; i < (int)(sizeof at / sizeof at[0]); ++i)
        exchange_beside_barriers(at[i], i);
    return pt_finish("p2p_nbc_tags");
}
