/*
 * MPI_Bcast: payloads of at least `threshold` bytes take the compressed pipeline, when the
 * policy finds that compressing can pay on this communicator's link (coll_zip_policy.c);
 * other calls go to the previous component untouched. count * type size and the policy's
 * agreed speeds are the same on every rank, so every rank takes the same branch.
 */
#include "ompi_config.h"

#include <limits.h>
#include <stdlib.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* How a bcast zip takes runs: the forced topology or the cost model's, and the chain's segment,
 * from the speeds, ranks per node and locality every rank agreed on and the ratio the last
 * blocking bcasts of the element type achieved (the same on every rank). */
static zip_bcast_plan_t bcast_plan(const mca_coll_zip_module_t *m, const zip_algo_policy_t *policy,
                                   size_t bytes, int elem_type, struct ompi_communicator_t *comm)
{
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const int size = ompi_comm_size(comm);
    const double seen = m->agreed ? zip_algo_seen_ratio(&m->bcast_seen[elem_type]) : 0.0;
    /* Policy always agrees no speeds: coll_zip_link_gbps_remote then stands for the link. */
    const zip_bcast_plan_t plan = zip_bcast_route_seen(
        z->bcast_algorithm, policy, m->agreed ? &m->speeds : NULL, z->link_gbps_remote * 1e9 / 8.0,
        z->bcast_latency_us * 1e-6, bytes, size, z->segment_size, INT_MAX, seen);
    opal_output_verbose(10, z->output,
                        "coll:zip: MPI_Bcast of %zu bytes on %s: topology %d, chain segment %zu "
                        "(the rule's %zu), scatter %s, ratio seen %.2f",
                        bytes, mca_coll_zip_comm_name(comm), plan.topology, plan.chain_segment,
                        zip_bcast_segment_bytes(bytes, size, z->segment_size,
                                                m->agreed ? m->speeds.ranks_per_core : 0.0),
                        plan.sag_tree ? "tree" : "flat", seen);
    return plan;
}

/* The payload's bytes when zip takes this bcast (of `op`: blocking or not), and its plan; else 0:
 * below the threshold, handed on by the policy, or by the plan (counted either way). */
static size_t bcast_takes(mca_coll_zip_module_t *m, int op, void *buff, int count,
                          struct ompi_datatype_t *datatype, int root,
                          struct ompi_communicator_t *comm, zip_bcast_plan_t *plan)
{
    size_t type_size = 0;
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    ompi_datatype_type_size(datatype, &type_size);
    const size_t bytes = type_size * (size_t)(count > 0 ? count : 0);
    const bool is_root = ompi_comm_rank(comm) == root;
    if (!mca_coll_zip_policy_takes_known(m, comm, op, bytes, is_root ? buff : NULL, count, datatype,
                                         is_root ? bytes : 0)) {
        return 0;
    }
    *plan = bcast_plan(m, &m->call_policy, bytes, mca_coll_zip_elem_type(datatype), comm);
    if (plan->hand_on) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_LINK_FASTER, 0.0, 0);
        return 0;
    }
    return bytes;
}

int mca_coll_zip_bcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    zip_bcast_plan_t plan = {0};
    const size_t bytes =
        bcast_takes(m, COLL_ZIP_OP_BCAST, buff, count, datatype, root, comm, &plan);
    if (0 == bytes) {
        return m->previous_bcast(buff, count, datatype, root, comm, m->previous_bcast_module);
    }
    const int rank = ompi_comm_rank(comm);
    mca_coll_zip_view_t view;
    mca_coll_zip_view_describe(&view, buff, count, datatype);
    int rc = mca_coll_zip_view_bytes(&view, rank == root);
    if (OMPI_SUCCESS != rc) {
        mca_coll_zip_view_free(&view);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Bcast", comm);
    }

    const zip_bcast_args_t args = {
        .buf = view.bytes,
        .bytes = bytes,
        .root = root,
        .tag = MCA_COLL_BASE_TAG_BCAST,
        .elem_type = mca_coll_zip_elem_type(datatype),
        .try_compress = 1,
        .segment_bytes = z->segment_size,
        .chain_segment = plan.chain_segment,
        .sag_chunk = plan.sag_chunk,
        .sag_tree = plan.sag_tree,
        .topology = plan.topology,
        .policy = &m->call_policy,
    };
    zip_algo_result_t result;
    rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_BCAST, root, &args, &result);
    if (OMPI_SUCCESS == rc) {
        /* Only blocking calls record: each has ended on every rank before the next starts. */
        zip_algo_seen_record(&m->bcast_seen[args.elem_type], &result);
    }
    if (OMPI_SUCCESS == rc && rank != root) {
        rc = mca_coll_zip_view_deliver(&view);
    }
    mca_coll_zip_view_free(&view);
    return rc;
}

/* MPI_Ibcast: the same pipeline, advanced by Open MPI's progress engine (coll_zip_nb.h). */
typedef struct ibcast {
    mca_coll_zip_nb_t nb; /* first: released as a whole */
    mca_coll_zip_view_t view;
    bool deliver; /* a receiver whose datatype was packed */
    zip_bcast_args_t args;
} ibcast_t;

static int ibcast_complete(mca_coll_zip_nb_t *nb)
{
    ibcast_t *c = (ibcast_t *)nb;
    return c->deliver ? mca_coll_zip_view_deliver(&c->view) : OMPI_SUCCESS;
}

static void ibcast_release(mca_coll_zip_nb_t *nb)
{
    ibcast_t *c = (ibcast_t *)nb;
    mca_coll_zip_view_free(&c->view);
    free(c);
}

int mca_coll_zip_ibcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                        struct ompi_communicator_t *comm, struct ompi_request_t **request,
                        mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    zip_bcast_plan_t plan = {0};
    const size_t bytes =
        bcast_takes(m, COLL_ZIP_OP_IBCAST, buff, count, datatype, root, comm, &plan);
    if (0 == bytes) {
        return m->previous_ibcast(buff, count, datatype, root, comm, request,
                                  m->previous_ibcast_module);
    }
    const int rank = ompi_comm_rank(comm);
    ibcast_t *c = calloc(1, sizeof(*c));
    if (NULL == c) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Ibcast", comm);
    }
    c->nb.release = ibcast_release;
    c->nb.complete = ibcast_complete;
    int rc = mca_coll_zip_nb_begin(&c->nb, m, comm, COLL_ZIP_OP_IBCAST);
    if (OMPI_SUCCESS == rc) {
        mca_coll_zip_view_describe(&c->view, buff, count, datatype);
        rc = mca_coll_zip_view_bytes(&c->view, rank == root);
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_zip_nb_release(&c->nb);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Ibcast", comm);
    }
    c->deliver = rank != root;
    c->args = (zip_bcast_args_t){
        .buf = c->view.bytes,
        .bytes = bytes,
        .root = root,
        .tag = c->nb.tag,
        .elem_type = mca_coll_zip_elem_type(datatype),
        .try_compress = 1,
        .segment_bytes = z->segment_size,
        .chain_segment = plan.chain_segment,
        .sag_chunk = plan.sag_chunk,
        .sag_tree = plan.sag_tree,
        .topology = plan.topology,
        .policy = &c->nb.policy,
    };
    zip_algo_call_t *call =
        zip_algo_ibcast(&c->nb.transport, &c->nb.codec, &c->args, &c->nb.result);
    rc = mca_coll_zip_nb_start(&c->nb, call, request);
    return OMPI_SUCCESS == rc ? rc
                              : mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Ibcast", comm);
}
