/*
 * A non-blocking collective's start must not wait for the other ranks. Rank 0 starts each call
 * and then sends a token to rank 1, which receives it before it starts its own: a correct MPI
 * program that hangs if a start waits (coll/zip's first call under policy auto agreed on speeds
 * there). Before and after an MPI_Barrier (where zip may agree), on world, a duplicate and a
 * split; every result checked.
 */
#include "zt_common.h"

enum { IBCAST, IALLREDUCE, IALLTOALL, OPS };
static const char *const op_name[OPS] = {"ibcast", "iallreduce", "ialltoall"};

/* Integer-valued, so that a sum is exact in any order. */
static double integral(int owner, size_t i)
{
    return (double)((i * 7 + (size_t)owner * 13) % 1000);
}

static void start(int op, MPI_Comm comm, double *sbuf, double *rbuf, int n, MPI_Request *req)
{
    int p;
    MPI_Comm_size(comm, &p);
    if (IBCAST == op)
        MPI_Ibcast(rbuf, n, MPI_DOUBLE, 0, comm, req);
    else if (IALLREDUCE == op)
        MPI_Iallreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, comm, req);
    else
        MPI_Ialltoall(sbuf, n / p, MPI_DOUBLE, rbuf, n / p, MPI_DOUBLE, comm, req);
}

static int result_ok(int op, const double *rbuf, int n, int rank, int p, int salt)
{
    for (int i = 0; i < n; ++i) {
        double want;
        if (IBCAST == op) {
            want = zt_value(ZT_SMOOTH, 0, (uint64_t)salt, (size_t)i);
        } else if (IALLREDUCE == op) {
            want = 0.0;
            for (int q = 0; q < p; ++q)
                want += integral(q, (size_t)i);
        } else {
            const int block = n / p;
            if (i >= block * p)
                break;
            /* Block i / block came from that rank: its block for `rank`. */
            const int from = i / block;
            want = zt_value(ZT_SMOOTH, from, (uint64_t)salt, (size_t)(rank * block + i % block));
        }
        if (memcmp(&want, &rbuf[i], sizeof want) != 0)
            return 0;
    }
    return 1;
}

static void start_then_send(MPI_Comm comm, int op, int salt, const char *phase)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int n = 1 << 18; /* 2 MiB of doubles */
    double *sbuf = malloc((size_t)n * sizeof(double)), *rbuf = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i) {
        sbuf[i] = IALLREDUCE == op ? integral(rank, (size_t)i)
                                   : zt_value(ZT_SMOOTH, rank, (uint64_t)salt, (size_t)i);
        rbuf[i] = IBCAST == op && 0 == rank ? sbuf[i] : -1.0;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int token = salt;
    if (0 == rank) {
        start(op, comm, sbuf, rbuf, n, &req);
        zt_call(MPI_Send(&token, 1, MPI_INT, 1, 77, comm), "MPI_Send", rank);
    } else {
        if (1 == rank)
            zt_call(MPI_Recv(&token, 1, MPI_INT, 0, 77, comm, MPI_STATUS_IGNORE), "MPI_Recv", rank);
        start(op, comm, sbuf, rbuf, n, &req);
    }
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
    zt_checkf(token == salt && result_ok(op, rbuf, n, rank, p, salt), rank, "%s %s, %d ranks",
              op_name[op], phase, p);
    free(sbuf);
    free(rbuf);
}

static void run(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    if (p < 2)
        return;
    static int salt = 0;
    for (int op = 0; op < OPS; ++op)
        start_then_send(comm, op, ++salt, "before any blocking call");
    MPI_Barrier(comm);
    for (int op = 0; op < OPS; ++op)
        start_then_send(comm, op, ++salt, "after a barrier");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run);
    return zt_finish("nb_start");
}
