/*
 * The C entry points (the MPI profiling interface): each records what the call sends, then calls
 * the PMPI_ function. Open MPI's Fortran bindings call PMPI_ functions directly, so Fortran
 * traffic never passes here: msgrec_fortran.c wraps it.
 */
#include "msgrec.h"

/* The eight send modes share one signature each for blocking and non-blocking calls. */
#define WRAP_SEND(Name, op)                                                                        \
    int Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)      \
    {                                                                                              \
        msgrec_send(op, buf, count, type, dest, tag, comm);                                        \
        return P##Name(buf, count, type, dest, tag, comm);                                         \
    }
#define WRAP_ISEND(Name, op)                                                                       \
    int Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,      \
             MPI_Request *req)                                                                     \
    {                                                                                              \
        msgrec_send(op, buf, count, type, dest, tag, comm);                                        \
        return P##Name(buf, count, type, dest, tag, comm, req);                                    \
    }
/* Persistent sends are recorded at each start, from what the init remembered. */
#define WRAP_SEND_INIT(Name, op)                                                                   \
    int Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,      \
             MPI_Request *req)                                                                     \
    {                                                                                              \
        int rc = P##Name(buf, count, type, dest, tag, comm, req);                                  \
        if (rc == MPI_SUCCESS)                                                                     \
            msgrec_persistent_add(*req, op, buf, count, type, dest, tag, comm);                    \
        return rc;                                                                                 \
    }

WRAP_SEND(MPI_Send, "send")
WRAP_SEND(MPI_Ssend, "ssend")
WRAP_SEND(MPI_Rsend, "rsend")
WRAP_SEND(MPI_Bsend, "bsend")
WRAP_ISEND(MPI_Isend, "isend")
WRAP_ISEND(MPI_Issend, "issend")
WRAP_ISEND(MPI_Irsend, "irsend")
WRAP_ISEND(MPI_Ibsend, "ibsend")
WRAP_SEND_INIT(MPI_Send_init, "send_init")
WRAP_SEND_INIT(MPI_Ssend_init, "ssend_init")
WRAP_SEND_INIT(MPI_Rsend_init, "rsend_init")
WRAP_SEND_INIT(MPI_Bsend_init, "bsend_init")

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    msgrec_send("sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm);
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    msgrec_send("sendrecv_replace", buf, count, type, dest, sendtag, comm);
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
    if (rc == MPI_SUCCESS) /* the handle of a freed persistent send may come back as this one */
        msgrec_persistent_forget(*req);
    return rc;
}

int MPI_Start(MPI_Request *req)
{
    msgrec_persistent_start(*req);
    return PMPI_Start(req);
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; ++i)
        msgrec_persistent_start(reqs[i]);
    return PMPI_Startall(count, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    msgrec_persistent_forget(*req);
    return PMPI_Request_free(req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    msgrec_bcast("bcast", buf, count, type, root, comm);
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    msgrec_bcast("ibcast", buf, count, type, root, comm);
    return PMPI_Ibcast(buf, count, type, root, comm, req);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    msgrec_reduce("allreduce", sendbuf, recvbuf, count, type, -1, comm);
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    msgrec_reduce("iallreduce", sendbuf, recvbuf, count, type, -1, comm);
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, req);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    msgrec_reduce("reduce", sendbuf, recvbuf, count, type, root, comm);
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    msgrec_alltoall("alltoall", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL,
                    NULL, recvtype, comm);
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    msgrec_alltoall("ialltoall", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL,
                    NULL, recvtype, comm);
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    msgrec_alltoall("alltoallv", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts,
                    rdispls, recvtype, comm);
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    msgrec_alltoall("ialltoallv", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts,
                    rdispls, recvtype, comm);
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, req);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    msgrec_gather("allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, -1, comm);
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    msgrec_gather("allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                  recvtype, -1, comm);
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    msgrec_gather("gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype,
                  root, comm);
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    msgrec_gather("gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype,
                  root, comm);
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    msgrec_scatter("scatter", sendbuf, sendcount, NULL, NULL, sendtype, root, comm);
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    msgrec_scatter("scatterv", sendbuf, 0, sendcounts, displs, sendtype, root, comm);
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
}

int MPI_Finalize(void)
{
    msgrec_finish();
    return PMPI_Finalize();
}
