/*
 * MPI_Allgather and MPI_Iallgather: allgatherv's schedules with equal blocks
 * (coll_zip_allgatherv.c). Every rank knows the block size, so a call of small blocks goes to the
 * previous component whole.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

int mca_coll_zip_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                           int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_iallgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL, module);
}

int mca_coll_zip_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, struct ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_ALLGATHER : COLL_ZIP_OP_IALLGATHER;
    const mca_coll_zip_layout_t mine = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    int algorithm = ZIP_ALLGATHERV_RING;
    if (mca_coll_zip_allgather_takes(m, comm, op, &mine, &rcv, mca_coll_zip_layout_bytes(&rcv, 0),
                                     &algorithm)) {
        return mca_coll_zip_allgatherv_run(m, comm, op, &mine, &rcv, algorithm, request);
    }
    return COLL_ZIP_HAND_ON(m, request, allgather, sbuf, scount, sdtype, rbuf, rcount, rdtype,
                            comm);
}
