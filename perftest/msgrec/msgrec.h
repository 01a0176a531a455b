/*
 * msgrec: an LD_PRELOAD library that records the payloads an MPI application sends (the message
 * corpus of codecbench --files). The C wrappers (msgrec_c.c) and the Fortran ones
 * (msgrec_fortran.c) translate their arguments and call the operations below, which decide what
 * each call puts on the wire and hand every payload to the writer (msgrec_writer.c). The file
 * format is described in README.md next to this file.
 */
#ifndef MSGREC_H
#define MSGREC_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Element type of a payload, from the datatype's type signature (msgrec_types.c). */
typedef enum msgrec_elem {
    MSGREC_BYTES = 0, /* anything else: chars, shorts, mixed structs, long double */
    MSGREC_F64,
    MSGREC_F32,
    MSGREC_I32,
    MSGREC_I64
} msgrec_elem_t;

/* The name the index uses for an element type ("f64", ...). */
const char *msgrec_elem_name(msgrec_elem_t elem);

/* The element type of data of `type`: all basic types of its signature alike, else bytes. */
msgrec_elem_t msgrec_classify(MPI_Datatype type);

/* ---- msgrec_writer.c: one data file and one index per rank ---- */

/* A new call number: every wrapped call takes one, its messages share it. */
uint64_t msgrec_next_call(void);

/*
 * Records count x type at buf (MPI_BOTTOM allowed for absolute datatypes), sent by call `call`
 * of operation `op` to `peer` (a rank of comm, -1 for all ranks of comm; MPI_PROC_NULL records
 * nothing) with `tag` (-1 for collectives). Named datatypes are recorded in place, derived ones
 * as MPI_Pack packs them. Payloads below MSGREC_MIN_BYTES, beyond MSGREC_MAX_BYTES or skipped
 * by MSGREC_SKIP / MSGREC_EVERY are only counted.
 */
void msgrec_record(uint64_t call, const char *op, const void *buf, int count, MPI_Datatype type,
                   MPI_Comm comm, int peer, int tag);

/* Writes the summary line and closes the files (MPI_Finalize; also at exit if never called). */
void msgrec_finish(void);

/* ---- msgrec_ops.c: what each operation sends ---- */

/* Point-to-point sends, including the send half of Sendrecv(_replace). */
void msgrec_send(const char *op, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm);
void msgrec_bcast(const char *op, const void *buf, int count, MPI_Datatype type, int root,
                  MPI_Comm comm);
/* Allreduce (root -1) and Reduce: the send buffer, or recvbuf when sendbuf is MPI_IN_PLACE. */
void msgrec_reduce(const char *op, const void *sendbuf, const void *recvbuf, int count,
                   MPI_Datatype type, int root, MPI_Comm comm);
/* Alltoall(v): one message per other rank. Counts and displacements NULL for Alltoall. */
void msgrec_alltoall(const char *op, const void *sendbuf, int sendcount, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                     const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                     MPI_Comm comm);
/* Allgather(v) (root -1) and Gather(v): each rank's contribution (displs NULL for the non-v). */
void msgrec_gather(const char *op, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   const void *recvbuf, int recvcount, const int *recvcounts, const int *displs,
                   MPI_Datatype recvtype, int root, MPI_Comm comm);
/* Scatter(v): the root's block for every other rank (counts and displs NULL for Scatter). */
void msgrec_scatter(const char *op, const void *sendbuf, int sendcount, const int *sendcounts,
                    const int *displs, MPI_Datatype sendtype, int root, MPI_Comm comm);

/* ---- msgrec_persistent.c: persistent sends, recorded at each start ---- */

/* Remembers a persistent send request (Send_init and kin). */
void msgrec_persistent_add(MPI_Request req, const char *op, const void *buf, int count,
                           MPI_Datatype type, int dest, int tag, MPI_Comm comm);
/* Forgets req (freed, or reused by a persistent receive). */
void msgrec_persistent_forget(MPI_Request req);
/* Records the payload of req if it is a remembered persistent send (MPI_Start, MPI_Startall). */
void msgrec_persistent_start(MPI_Request req);

#endif /* MSGREC_H */
