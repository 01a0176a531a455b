/*
 * coll/zip: compresses the payload of MPI_Bcast, MPI_Alltoallv and MPI_Gatherv and hands
 * every other collective, and every call it cannot help, to the component selected before it.
 */
#ifndef MCA_COLL_ZIP_EXPORT_H
#define MCA_COLL_ZIP_EXPORT_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"

#include "zip/zip.h"

BEGIN_C_DECLS

/* Per-process counters of one collective; updated atomically because communicators on
 * different threads run collectives concurrently. */
typedef struct mca_coll_zip_op_stats_t {
    uint64_t calls;            /* calls that reached zip */
    uint64_t calls_fallback;   /* of those, handed on, or with only below-threshold blocks */
    uint64_t calls_compressed; /* of those, sent or received at least one frame */
    uint64_t bytes_in;         /* raw bytes this process sent in zip's own path */
    uint64_t bytes_out;        /* bytes it actually sent */
    uint64_t codec_ns;         /* time spent compressing and decompressing */
} mca_coll_zip_op_stats_t;

enum { COLL_ZIP_OP_BCAST, COLL_ZIP_OP_ALLTOALLV, COLL_ZIP_OP_GATHERV, COLL_ZIP_OP_COUNT };

typedef struct mca_coll_zip_component_t {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters */
    int priority;
    char *codec;
    char *lossy;
    size_t threshold;
    size_t block_size;
    size_t segment_size;
    size_t alltoallv_window;
    int verbose;
    int stats;
    bool force_local;
    int inject_corruption; /* testing: corrupt every Nth frame this process sends (0: never) */

    int output;       /* opal_output stream, verbosity from `verbose` */
    char *codec_spec; /* lossless codec, or lossy stage + "+" + lossless codec */

    mca_coll_zip_op_stats_t op_stats[COLL_ZIP_OP_COUNT];
} mca_coll_zip_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_zip_component_t mca_coll_zip_component;

typedef struct mca_coll_zip_module_t {
    mca_coll_base_module_t super;

    /* The functions this module stands in front of, retained at enable time. */
    mca_coll_base_module_bcast_fn_t previous_bcast;
    mca_coll_base_module_t *previous_bcast_module;
    mca_coll_base_module_alltoallv_fn_t previous_alltoallv;
    mca_coll_base_module_t *previous_alltoallv_module;
    mca_coll_base_module_gatherv_fn_t previous_gatherv;
    mca_coll_base_module_t *previous_gatherv_module;

    /* One codec context per communicator: MPI forbids concurrent collectives on one
     * communicator, so the context is never used by two threads at once. */
    zip_ctx_t *codec;

    /* Requests of the plainly moved blocks of one call (coll_zip_plain.c), with the bytes each
     * receive must bring and room for its status; kept between calls for the same reason. */
    /* peer_on_node[p]: rank p shares this rank's node (blocks to and from it move plainly);
     * NULL with force_local. Fixed at enable time so that every call decides alike. */
    bool *peer_on_node;
    ompi_request_t **plain_reqs;
    size_t *plain_expect;
    ompi_status_public_t *plain_statuses;
    int plain_capacity;
} mca_coll_zip_module_t;

OBJ_CLASS_DECLARATION(mca_coll_zip_module_t);

/* coll_zip_module.c */
int mca_coll_zip_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_zip_comm_query(struct ompi_communicator_t *comm, int *priority);

/* coll_zip_pvars.c */
void mca_coll_zip_pvars_register(void);

/* coll_zip_stats.c */
void mca_coll_zip_stats_set_rank(int world_rank);
void mca_coll_zip_stats_add(int op, int fallback, int compressed, uint64_t bytes_in,
                            uint64_t bytes_out, uint64_t codec_ns);
void mca_coll_zip_stats_report(void);
/* Called on every zip call on MPI_COMM_WORLD: the first one, which all ranks make together,
 * arranges for the job-wide sum at MPI_Finalize. */
void mca_coll_zip_stats_arm_finalize_summary(void);

struct zip_transport;
struct zip_codec_ops;

/* coll_zip_transport.c: the algorithms' transport on the PML */
void mca_coll_zip_transport_init(struct zip_transport *t, struct ompi_communicator_t *comm);

/* coll_zip_codec.c: the algorithms' codec on libzipcodec, timed for the statistics */
typedef struct mca_coll_zip_codec_binding_t {
    mca_coll_zip_module_t *module;
    uint64_t codec_ns;
} mca_coll_zip_codec_binding_t;
void mca_coll_zip_codec_init(struct zip_codec_ops *ops, mca_coll_zip_codec_binding_t *binding,
                             mca_coll_zip_module_t *module);
int mca_coll_zip_elem_type(struct ompi_datatype_t *dtype);

/* coll_zip_stats.c: maps an algorithm result to an MPI error code, reporting failures */
int mca_coll_zip_algo_error(int algo_rc, const char *op, struct ompi_communicator_t *comm);

/* The collectives */
int mca_coll_zip_bcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_zip_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm,
                         mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_ZIP_EXPORT_H */
