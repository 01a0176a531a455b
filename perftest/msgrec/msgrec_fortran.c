/*
 * The Fortran entry points of mpif.h and `use mpi`. Open MPI 4.1's Fortran bindings
 * (libmpi_mpifh: mpi_send_ and its aliases mpi_send, mpi_send__, MPI_SEND) call the C layer's
 * PMPI_ functions directly, so the C wrappers never see Fortran traffic; these wrappers take the
 * Fortran symbols, translate handles and sentinels (MPI_IN_PLACE, MPI_BOTTOM are addresses of
 * Open MPI's common blocks in Fortran), record, and call the Fortran profiling entry (pmpi_x_).
 * The mpi_f08 module reaches ompi_*_f directly and is not wrapped.
 */
#include "msgrec.h"

#include <dlfcn.h>
#include <pthread.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran count arrays are read as int arrays");

/* The library is built with hidden visibility; the wrappers are what it exports. */
#define EXPORT __attribute__((visibility("default")))

/* The three other spellings compilers use for the Fortran symbol lower_. */
#define FORTRAN_ALIASES(lower, upper, params)                                                      \
    EXPORT void lower params __attribute__((alias(#lower "_")));                                   \
    EXPORT void lower##__ params __attribute__((alias(#lower "_")));                               \
    EXPORT void upper params __attribute__((alias(#lower "_")));

/* ---- Fortran's MPI_IN_PLACE and MPI_BOTTOM ---- */

static const void *fortran_in_place, *fortran_bottom;
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

static const void *first_symbol(const char *const *names)
{
    for (; *names; ++names) {
        const void *p = dlsym(RTLD_DEFAULT, *names);
        if (p)
            return p;
    }
    return NULL;
}

static void find_sentinels(void)
{
    static const char *const in_place[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                           "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE", NULL};
    static const char *const bottom[] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                         "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM", NULL};
    fortran_in_place = first_symbol(in_place);
    fortran_bottom = first_symbol(bottom);
}

/* The C buffer argument for a Fortran one. */
static const void *cbuf(const char *buf)
{
    pthread_once(&sentinels_once, find_sentinels);
    if (fortran_in_place && buf == fortran_in_place)
        return MPI_IN_PLACE;
    if (fortran_bottom && buf == fortran_bottom)
        return MPI_BOTTOM;
    return buf;
}

/* ---- the Fortran profiling entries called after recording ---- */

#define SEND_PARAMS                                                                                \
    (char *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,    \
     MPI_Fint *ierr)
#define ISEND_PARAMS                                                                               \
    (char *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,    \
     MPI_Fint *req, MPI_Fint *ierr)
#define REDUCE_PARAMS                                                                              \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,  \
     MPI_Fint *ierr)
#define IREDUCE_PARAMS                                                                             \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,  \
     MPI_Fint *req, MPI_Fint *ierr)
#define ROOTED_REDUCE_PARAMS                                                                       \
    (char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,  \
     MPI_Fint *comm, MPI_Fint *ierr)
#define BCAST_PARAMS                                                                               \
    (char *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define IBCAST_PARAMS                                                                              \
    (char *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req,    \
     MPI_Fint *ierr)
#define ALLTOALL_PARAMS                                                                            \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define IALLTOALL_PARAMS                                                                           \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
#define ALLTOALLV_PARAMS                                                                           \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, char *recvbuf,    \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define IALLTOALLV_PARAMS                                                                          \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, char *recvbuf,    \
     MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *req,   \
     MPI_Fint *ierr)
#define GATHER_PARAMS                                                                              \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount,   \
     MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define GATHERV_PARAMS                                                                             \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define ALLGATHERV_PARAMS                                                                          \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,  \
     MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
#define SCATTERV_PARAMS                                                                            \
    (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, char *recvbuf,     \
     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
#define SENDRECV_PARAMS                                                                            \
    (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest, MPI_Fint *sendtag,    \
     char *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source, MPI_Fint *recvtag,  \
     MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
#define SENDRECV_REPLACE_PARAMS                                                                    \
    (char *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *sendtag,                \
     MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)

void pmpi_send_ SEND_PARAMS;
void pmpi_ssend_ SEND_PARAMS;
void pmpi_rsend_ SEND_PARAMS;
void pmpi_bsend_ SEND_PARAMS;
void pmpi_isend_ ISEND_PARAMS;
void pmpi_issend_ ISEND_PARAMS;
void pmpi_irsend_ ISEND_PARAMS;
void pmpi_ibsend_ ISEND_PARAMS;
void pmpi_send_init_ ISEND_PARAMS;
void pmpi_ssend_init_ ISEND_PARAMS;
void pmpi_rsend_init_ ISEND_PARAMS;
void pmpi_bsend_init_ ISEND_PARAMS;
void pmpi_recv_init_ ISEND_PARAMS;
void pmpi_start_(MPI_Fint *req, MPI_Fint *ierr);
void pmpi_startall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr);
void pmpi_request_free_(MPI_Fint *req, MPI_Fint *ierr);
void pmpi_sendrecv_ SENDRECV_PARAMS;
void pmpi_sendrecv_replace_ SENDRECV_REPLACE_PARAMS;
void pmpi_bcast_ BCAST_PARAMS;
void pmpi_ibcast_ IBCAST_PARAMS;
void pmpi_allreduce_ REDUCE_PARAMS;
void pmpi_iallreduce_ IREDUCE_PARAMS;
void pmpi_reduce_ ROOTED_REDUCE_PARAMS;
void pmpi_alltoall_ ALLTOALL_PARAMS;
void pmpi_ialltoall_ IALLTOALL_PARAMS;
void pmpi_alltoallv_ ALLTOALLV_PARAMS;
void pmpi_ialltoallv_ IALLTOALLV_PARAMS;
void pmpi_allgather_ ALLTOALL_PARAMS;
void pmpi_allgatherv_ ALLGATHERV_PARAMS;
void pmpi_gather_ GATHER_PARAMS;
void pmpi_gatherv_ GATHERV_PARAMS;
void pmpi_scatter_ GATHER_PARAMS;
void pmpi_scatterv_ SCATTERV_PARAMS;
void pmpi_finalize_(MPI_Fint *ierr);

/* ---- point to point ---- */

#define FWRAP_SEND(lower, upper, op)                                                               \
    EXPORT void lower##_ SEND_PARAMS                                                               \
    {                                                                                              \
        msgrec_send(op, cbuf(buf), *count, PMPI_Type_f2c(*type), *dest, *tag,                      \
                    PMPI_Comm_f2c(*comm));                                                         \
        p##lower##_(buf, count, type, dest, tag, comm, ierr);                                      \
    }                                                                                              \
    FORTRAN_ALIASES(lower, upper, SEND_PARAMS)
#define FWRAP_ISEND(lower, upper, op)                                                              \
    EXPORT void lower##_ ISEND_PARAMS                                                              \
    {                                                                                              \
        msgrec_send(op, cbuf(buf), *count, PMPI_Type_f2c(*type), *dest, *tag,                      \
                    PMPI_Comm_f2c(*comm));                                                         \
        p##lower##_(buf, count, type, dest, tag, comm, req, ierr);                                 \
    }                                                                                              \
    FORTRAN_ALIASES(lower, upper, ISEND_PARAMS)
#define FWRAP_SEND_INIT(lower, upper, op)                                                          \
    EXPORT void lower##_ ISEND_PARAMS                                                              \
    {                                                                                              \
        p##lower##_(buf, count, type, dest, tag, comm, req, ierr);                                 \
        if (*ierr == MPI_SUCCESS)                                                                  \
            msgrec_persistent_add(PMPI_Request_f2c(*req), op, cbuf(buf), *count,                   \
                                  PMPI_Type_f2c(*type), *dest, *tag, PMPI_Comm_f2c(*comm));        \
    }                                                                                              \
    FORTRAN_ALIASES(lower, upper, ISEND_PARAMS)

FWRAP_SEND(mpi_send, MPI_SEND, "send")
FWRAP_SEND(mpi_ssend, MPI_SSEND, "ssend")
FWRAP_SEND(mpi_rsend, MPI_RSEND, "rsend")
FWRAP_SEND(mpi_bsend, MPI_BSEND, "bsend")
FWRAP_ISEND(mpi_isend, MPI_ISEND, "isend")
FWRAP_ISEND(mpi_issend, MPI_ISSEND, "issend")
FWRAP_ISEND(mpi_irsend, MPI_IRSEND, "irsend")
FWRAP_ISEND(mpi_ibsend, MPI_IBSEND, "ibsend")
FWRAP_SEND_INIT(mpi_send_init, MPI_SEND_INIT, "send_init")
FWRAP_SEND_INIT(mpi_ssend_init, MPI_SSEND_INIT, "ssend_init")
FWRAP_SEND_INIT(mpi_rsend_init, MPI_RSEND_INIT, "rsend_init")
FWRAP_SEND_INIT(mpi_bsend_init, MPI_BSEND_INIT, "bsend_init")

EXPORT void mpi_recv_init_ ISEND_PARAMS
{
    pmpi_recv_init_(buf, count, type, dest, tag, comm, req, ierr);
    if (*ierr == MPI_SUCCESS)
        msgrec_persistent_forget(PMPI_Request_f2c(*req));
}
FORTRAN_ALIASES(mpi_recv_init, MPI_RECV_INIT, ISEND_PARAMS)

EXPORT void mpi_start_(MPI_Fint *req, MPI_Fint *ierr)
{
    msgrec_persistent_start(PMPI_Request_f2c(*req));
    pmpi_start_(req, ierr);
}
FORTRAN_ALIASES(mpi_start, MPI_START, (MPI_Fint * req, MPI_Fint *ierr))

EXPORT void mpi_startall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr)
{
    for (MPI_Fint i = 0; i < *count; ++i)
        msgrec_persistent_start(PMPI_Request_f2c(reqs[i]));
    pmpi_startall_(count, reqs, ierr);
}
FORTRAN_ALIASES(mpi_startall, MPI_STARTALL, (MPI_Fint * count, MPI_Fint *reqs, MPI_Fint *ierr))

EXPORT void mpi_request_free_(MPI_Fint *req, MPI_Fint *ierr)
{
    msgrec_persistent_forget(PMPI_Request_f2c(*req));
    pmpi_request_free_(req, ierr);
}
FORTRAN_ALIASES(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint * req, MPI_Fint *ierr))

EXPORT void mpi_sendrecv_ SENDRECV_PARAMS
{
    msgrec_send("sendrecv", cbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), *dest, *sendtag,
                PMPI_Comm_f2c(*comm));
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                   source, recvtag, comm, status, ierr);
}
FORTRAN_ALIASES(mpi_sendrecv, MPI_SENDRECV, SENDRECV_PARAMS)

EXPORT void mpi_sendrecv_replace_ SENDRECV_REPLACE_PARAMS
{
    msgrec_send("sendrecv_replace", cbuf(buf), *count, PMPI_Type_f2c(*type), *dest, *sendtag,
                PMPI_Comm_f2c(*comm));
    pmpi_sendrecv_replace_(buf, count, type, dest, sendtag, source, recvtag, comm, status, ierr);
}
FORTRAN_ALIASES(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, SENDRECV_REPLACE_PARAMS)

/* ---- collectives ---- */

EXPORT void mpi_bcast_ BCAST_PARAMS
{
    msgrec_bcast("bcast", cbuf(buf), *count, PMPI_Type_f2c(*type), *root, PMPI_Comm_f2c(*comm));
    pmpi_bcast_(buf, count, type, root, comm, ierr);
}
FORTRAN_ALIASES(mpi_bcast, MPI_BCAST, BCAST_PARAMS)

EXPORT void mpi_ibcast_ IBCAST_PARAMS
{
    msgrec_bcast("ibcast", cbuf(buf), *count, PMPI_Type_f2c(*type), *root, PMPI_Comm_f2c(*comm));
    pmpi_ibcast_(buf, count, type, root, comm, req, ierr);
}
FORTRAN_ALIASES(mpi_ibcast, MPI_IBCAST, IBCAST_PARAMS)

EXPORT void mpi_allreduce_ REDUCE_PARAMS
{
    msgrec_reduce("allreduce", cbuf(sendbuf), cbuf(recvbuf), *count, PMPI_Type_f2c(*type), -1,
                  PMPI_Comm_f2c(*comm));
    pmpi_allreduce_(sendbuf, recvbuf, count, type, op, comm, ierr);
}
FORTRAN_ALIASES(mpi_allreduce, MPI_ALLREDUCE, REDUCE_PARAMS)

EXPORT void mpi_iallreduce_ IREDUCE_PARAMS
{
    msgrec_reduce("iallreduce", cbuf(sendbuf), cbuf(recvbuf), *count, PMPI_Type_f2c(*type), -1,
                  PMPI_Comm_f2c(*comm));
    pmpi_iallreduce_(sendbuf, recvbuf, count, type, op, comm, req, ierr);
}
FORTRAN_ALIASES(mpi_iallreduce, MPI_IALLREDUCE, IREDUCE_PARAMS)

EXPORT void mpi_reduce_ ROOTED_REDUCE_PARAMS
{
    msgrec_reduce("reduce", cbuf(sendbuf), cbuf(recvbuf), *count, PMPI_Type_f2c(*type), *root,
                  PMPI_Comm_f2c(*comm));
    pmpi_reduce_(sendbuf, recvbuf, count, type, op, root, comm, ierr);
}
FORTRAN_ALIASES(mpi_reduce, MPI_REDUCE, ROOTED_REDUCE_PARAMS)

EXPORT void mpi_alltoall_ ALLTOALL_PARAMS
{
    msgrec_alltoall("alltoall", cbuf(sendbuf), *sendcount, NULL, NULL, PMPI_Type_f2c(*sendtype),
                    cbuf(recvbuf), *recvcount, NULL, NULL, PMPI_Type_f2c(*recvtype),
                    PMPI_Comm_f2c(*comm));
    pmpi_alltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
}
FORTRAN_ALIASES(mpi_alltoall, MPI_ALLTOALL, ALLTOALL_PARAMS)

EXPORT void mpi_ialltoall_ IALLTOALL_PARAMS
{
    msgrec_alltoall("ialltoall", cbuf(sendbuf), *sendcount, NULL, NULL, PMPI_Type_f2c(*sendtype),
                    cbuf(recvbuf), *recvcount, NULL, NULL, PMPI_Type_f2c(*recvtype),
                    PMPI_Comm_f2c(*comm));
    pmpi_ialltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req, ierr);
}
FORTRAN_ALIASES(mpi_ialltoall, MPI_IALLTOALL, IALLTOALL_PARAMS)

EXPORT void mpi_alltoallv_ ALLTOALLV_PARAMS
{
    msgrec_alltoall("alltoallv", cbuf(sendbuf), 0, sendcounts, sdispls, PMPI_Type_f2c(*sendtype),
                    cbuf(recvbuf), 0, recvcounts, rdispls, PMPI_Type_f2c(*recvtype),
                    PMPI_Comm_f2c(*comm));
    pmpi_alltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                    comm, ierr);
}
FORTRAN_ALIASES(mpi_alltoallv, MPI_ALLTOALLV, ALLTOALLV_PARAMS)

EXPORT void mpi_ialltoallv_ IALLTOALLV_PARAMS
{
    msgrec_alltoall("ialltoallv", cbuf(sendbuf), 0, sendcounts, sdispls, PMPI_Type_f2c(*sendtype),
                    cbuf(recvbuf), 0, recvcounts, rdispls, PMPI_Type_f2c(*recvtype),
                    PMPI_Comm_f2c(*comm));
    pmpi_ialltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                     comm, req, ierr);
}
FORTRAN_ALIASES(mpi_ialltoallv, MPI_IALLTOALLV, IALLTOALLV_PARAMS)

EXPORT void mpi_allgather_ ALLTOALL_PARAMS
{
    msgrec_gather("allgather", cbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), cbuf(recvbuf),
                  *recvcount, NULL, NULL, PMPI_Type_f2c(*recvtype), -1, PMPI_Comm_f2c(*comm));
    pmpi_allgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
}
FORTRAN_ALIASES(mpi_allgather, MPI_ALLGATHER, ALLTOALL_PARAMS)

EXPORT void mpi_allgatherv_ ALLGATHERV_PARAMS
{
    msgrec_gather("allgatherv", cbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), cbuf(recvbuf),
                  0, recvcounts, displs, PMPI_Type_f2c(*recvtype), -1, PMPI_Comm_f2c(*comm));
    pmpi_allgatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                     ierr);
}
FORTRAN_ALIASES(mpi_allgatherv, MPI_ALLGATHERV, ALLGATHERV_PARAMS)

EXPORT void mpi_gather_ GATHER_PARAMS
{
    msgrec_gather("gather", cbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), cbuf(recvbuf),
                  *recvcount, NULL, NULL, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    pmpi_gather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
}
FORTRAN_ALIASES(mpi_gather, MPI_GATHER, GATHER_PARAMS)

EXPORT void mpi_gatherv_ GATHERV_PARAMS
{
    msgrec_gather("gatherv", cbuf(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), cbuf(recvbuf), 0,
                  recvcounts, displs, PMPI_Type_f2c(*recvtype), *root, PMPI_Comm_f2c(*comm));
    pmpi_gatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                  ierr);
}
FORTRAN_ALIASES(mpi_gatherv, MPI_GATHERV, GATHERV_PARAMS)

EXPORT void mpi_scatter_ GATHER_PARAMS
{
    msgrec_scatter("scatter", cbuf(sendbuf), *sendcount, NULL, NULL, PMPI_Type_f2c(*sendtype),
                   *root, PMPI_Comm_f2c(*comm));
    pmpi_scatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
}
FORTRAN_ALIASES(mpi_scatter, MPI_SCATTER, GATHER_PARAMS)

EXPORT void mpi_scatterv_ SCATTERV_PARAMS
{
    msgrec_scatter("scatterv", cbuf(sendbuf), 0, sendcounts, displs, PMPI_Type_f2c(*sendtype),
                   *root, PMPI_Comm_f2c(*comm));
    pmpi_scatterv_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                   ierr);
}
FORTRAN_ALIASES(mpi_scatterv, MPI_SCATTERV, SCATTERV_PARAMS)

EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    msgrec_finish();
    pmpi_finalize_(ierr);
}
FORTRAN_ALIASES(mpi_finalize, MPI_FINALIZE, (MPI_Fint * ierr))
