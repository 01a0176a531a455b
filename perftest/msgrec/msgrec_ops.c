/*
 * What each wrapped operation sends, as payloads for the writer. Every call takes one call
 * number. Collectives record the data each rank contributes, as an application-level message:
 * one per destination where the operation sends each rank its own block (Alltoall(v), Scatter(v)),
 * else one with peer -1 (Bcast, Allreduce, Allgather(v)) or the root (Reduce, Gather(v)); how
 * Open MPI's algorithms then split or forward the data is not the application's payload. A root
 * keeps its own block, so nothing is recorded for it; MPI_IN_PLACE takes the data from the
 * receive buffer where the contribution lives there.
 */
#include "msgrec.h"

static int rank_in(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

static int size_of(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

/* Block j of a buffer laid out as blocks of `count` elements, or at displs[j] elements. */
static const void *block(const void *base, int j, int count, const int *displs, MPI_Datatype type)
{
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    MPI_Aint at = (displs ? (MPI_Aint)displs[j] : (MPI_Aint)j * count) * extent;
    return (const char *)base + at;
}

void msgrec_send(const char *op, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm)
{
    msgrec_record(msgrec_next_call(), op, buf, count, type, comm, dest, tag);
}

void msgrec_bcast(const char *op, const void *buf, int count, MPI_Datatype type, int root,
                  MPI_Comm comm)
{
    uint64_t call = msgrec_next_call();
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter ? root == MPI_ROOT : rank_in(comm) == root)
        msgrec_record(call, op, buf, count, type, comm, -1, -1);
}

void msgrec_reduce(const char *op, const void *sendbuf, const void *recvbuf, int count,
                   MPI_Datatype type, int root, MPI_Comm comm)
{
    uint64_t call = msgrec_next_call();
    if (root >= 0 && rank_in(comm) == root)
        return;
    const void *data = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    msgrec_record(call, op, data, count, type, comm, root, -1);
}

void msgrec_alltoall(const char *op, const void *sendbuf, int sendcount, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                     const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                     MPI_Comm comm)
{
    uint64_t call = msgrec_next_call();
    if (sendbuf == MPI_IN_PLACE) { /* the data to send sit in the receive buffer */
        sendbuf = recvbuf;
        sendcount = recvcount;
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendtype = recvtype;
    }
    const int rank = rank_in(comm), size = size_of(comm);
    for (int j = 0; j < size; ++j)
        if (j != rank)
            msgrec_record(call, op, block(sendbuf, j, sendcount, sdispls, sendtype),
                          sendcounts ? sendcounts[j] : sendcount, sendtype, comm, j, -1);
}

void msgrec_gather(const char *op, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   const void *recvbuf, int recvcount, const int *recvcounts, const int *displs,
                   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    uint64_t call = msgrec_next_call();
    const int rank = rank_in(comm);
    if (root >= 0 && rank == root)
        return;
    if (sendbuf == MPI_IN_PLACE) /* Allgather(v): this rank's block of the receive buffer */
        msgrec_record(call, op, block(recvbuf, rank, recvcount, displs, recvtype),
                      recvcounts ? recvcounts[rank] : recvcount, recvtype, comm, root, -1);
    else
        msgrec_record(call, op, sendbuf, sendcount, sendtype, comm, root, -1);
}

void msgrec_scatter(const char *op, const void *sendbuf, int sendcount, const int *sendcounts,
                    const int *displs, MPI_Datatype sendtype, int root, MPI_Comm comm)
{
    uint64_t call = msgrec_next_call();
    const int rank = rank_in(comm), size = size_of(comm);
    if (rank != root)
        return;
    for (int j = 0; j < size; ++j)
        if (j != root)
            msgrec_record(call, op, block(sendbuf, j, sendcount, displs, sendtype),
                          sendcounts ? sendcounts[j] : sendcount, sendtype, comm, j, -1);
}
