/*
 * coll/zip's side of the speed-aware policy (zip.h, docs/design.md "The cost model").
 *
 * Whether a call takes zip's path or goes to the previous component must be the same on every
 * rank, or the ranks would run different algorithms. So that answer uses only values all ranks
 * agreed on (coll_zip_agree.c: the fastest link and the slowest codec seen, the largest number of
 * ranks sharing a node). Calls are then handed back when, with those speeds, no plausible ratio
 * could pay ("link faster than codec"). Inside zip's path the sender's sample decides locally
 * with the same speeds; receivers learn the outcome from lengths. After the codec's speed is
 * agreed again (at fixed blocking call counts), the routes are found anew.
 */
#include "ompi_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/info_subscriber.h"
#include "opal/util/output.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/coll_policy.h"
#include "algo/zip_algo.h"

/* ---- the per-communicator Info key zip_policy ---- */

static char *policy_key_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    /* The subscriber object is the communicator's first member. */
    ompi_communicator_t *comm = (ompi_communicator_t *)obj;
    zip_coll_policy_set(comm->c_contextid, zip_policy_mode_parse(value));
    return value;
}

void mca_coll_zip_policy_subscribe(struct ompi_communicator_t *comm)
{
    zip_coll_policy_set(comm->c_contextid, -1); /* a reused context id starts unset */
    (void)opal_infosubscribe_subscribe(&comm->super, "zip_policy", "default", policy_key_changed);
}

zip_policy_mode_t mca_coll_zip_policy_mode(struct ompi_communicator_t *comm)
{
    const int mode = zip_coll_policy_get(comm->c_contextid);
    return (zip_policy_mode_t)(mode >= 0 ? mode : mca_coll_zip_component.policy);
}

void mca_coll_zip_policy_fini(void)
{
    zip_coll_policy_clear();
}

/* ---- routing ---- */

static inline bool needs_agreement(zip_policy_mode_t mode)
{
    return ZIP_POLICY_AUTO == mode || ZIP_POLICY_OBSERVE == mode;
}

void mca_coll_zip_policy_count_call(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                    int op)
{
    if (zip_coll_op_blocking(op) != op) {
        return;
    }
    ++m->blocking_calls;
    if (m->agreement_wanted) {
        /* A communicator whose large calls are all non-blocking agrees at its first blocking
         * call, however small (a dot product's allreduce, a flag's bcast). */
        m->agreement_wanted = false;
        mca_coll_zip_policy_agree_now(m, comm);
    }
    const int period = mca_coll_zip_component.codec_agree_period; /* below 0: as 0 */
    /* m->agreed and the mode are the same on every rank: both change only at calls all make. */
    if (period > 0 && m->agreed && needs_agreement(mca_coll_zip_policy_mode(comm)) &&
        zip_codec_meter_agree_at(m->blocking_calls, (uint64_t)period)) {
        mca_coll_zip_agree_on_codec(m, comm);
    }
}

void mca_coll_zip_policy_agree_now(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    if (m->agreed || !needs_agreement(mca_coll_zip_policy_mode(comm))) {
        return;
    }
    mca_coll_zip_agree_take_early(m, comm);
    if (m->agreed) {
        return;
    }
    const int rc = mca_coll_zip_agree(m, comm);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(1, mca_coll_zip_component.output,
                            "coll:zip: %s: could not agree on speeds (%d): handing calls on",
                            mca_coll_zip_comm_name(comm), rc);
    }
}

/* The route of a call of `op` under `mode` when m->routes has none for that mode: agrees on the
 * speeds first if the mode needs them and keeps what zip_algo_route finds. Without agreed speeds
 * the call is handed on (as stock Open MPI) and nothing is kept, so the next call tries again. */
static const mca_coll_zip_route_t *find_route(mca_coll_zip_module_t *m,
                                              struct ompi_communicator_t *comm, int op,
                                              zip_policy_mode_t mode)
{
    static const mca_coll_zip_route_t unknown = {.mode = -1, .verdict = ZIP_VERDICT_UNAGREED};
    const bool needs_speeds = needs_agreement(mode);
    const zip_algo_flow_t flow = zip_coll_op_flow(op);
    if (needs_speeds && !m->agreed) {
        /* The agreement waits for every rank. A non-blocking start must not: a correct program
         * may start one and then block on a message that another rank sends before its own
         * start (tests/mpi/test_nb_start.c hung here). It may only complete the agreement every
         * rank started as comm was made; without that, such a call is handed on until a
         * blocking call has agreed: MPI_Barrier, and since this call, any other. */
        const bool blocking = zip_coll_op_blocking(op) == op;
        if (blocking) {
            mca_coll_zip_policy_agree_now(m, comm);
        } else {
            mca_coll_zip_agree_take_early(m, comm);
        }
        if (!m->agreed) {
            if (!blocking) {
                m->agreement_wanted = true;
            }
            return &unknown;
        }
    }
    mca_coll_zip_route_t *r = &m->routes[op];
    r->verdict = zip_algo_route(mode, flow, ompi_comm_size(comm), needs_speeds ? &m->speeds : NULL,
                                NULL == m->peer_on_node, &r->policy);
    r->mode = (int)mode;
    opal_output_verbose(10, mca_coll_zip_component.output, "coll:zip: %s on %s under policy %s: %s",
                        zip_coll_op_calls[op], mca_coll_zip_comm_name(comm),
                        zip_policy_mode_name(mode), zip_verdict_name(r->verdict));
    return r;
}

/* The route of a call of `op`: m->routes' for the communicator's mode, found at the first call
 * under that mode. */
static inline const mca_coll_zip_route_t *route(mca_coll_zip_module_t *m,
                                                struct ompi_communicator_t *comm, int op)
{
    const zip_policy_mode_t mode = mca_coll_zip_policy_mode(comm);
    const mca_coll_zip_route_t *r = &m->routes[op];
    return OPAL_LIKELY(r->mode == (int)mode) ? r : find_route(m, comm, op, mode);
}

/* Whether the route r takes the call into zip's path. Otherwise it may still be observed: auto
 * would have compressed it (the caller then judges a sample). */
static inline bool route_takes(const mca_coll_zip_route_t *r)
{
    return ZIP_VERDICT_COMPRESS == r->verdict && ZIP_POLICY_OBSERVE != r->policy.mode;
}
static inline bool route_observes(const mca_coll_zip_route_t *r)
{
    return ZIP_VERDICT_COMPRESS == r->verdict && ZIP_POLICY_OBSERVE == r->policy.mode;
}

/* Whether a call route r hands on samples its data for the meter: of those handed on because
 * the link looked faster than the codec, the ones zip_codec_meter_probe_at names, each or, where
 * this rank has no sample of its own there, the next that has one; so that a later agreement
 * may find otherwise on the data's own speed. */
static bool probe_due(mca_coll_zip_module_t *m, const mca_coll_zip_route_t *r)
{
    if (ZIP_VERDICT_LINK_FASTER != r->verdict) {
        return false;
    }
    if (zip_codec_meter_probe_at(++m->link_faster_calls)) {
        m->probe_pending = true;
    }
    return m->probe_pending;
}

/* Counts a call route r hands on; under observe with the saving compressing this rank's
 * my_bytes would have brought, judged on sample_count x dtype at sample, which the meter also
 * times where `probes`. */
static void hand_on(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                    const mca_coll_zip_route_t *r, bool probes, const void *sample,
                    int sample_count, struct ompi_datatype_t *dtype, size_t my_bytes)
{
    double saving = 0.0;
    size_t tsize = 0;
    const bool observes = route_observes(r);
    zip_ctx_t *ctx = NULL;
    if ((observes || probes) && NULL != sample && sample_count > 0 && NULL != dtype &&
        OMPI_SUCCESS == ompi_datatype_type_size(dtype, &tsize) &&
        ompi_datatype_is_contiguous_memory_layout(dtype, sample_count) &&
        my_bytes >= mca_coll_zip_component.threshold && NULL != (ctx = mca_coll_zip_codec_take())) {
        zip_algo_codec_binding_t binding = {.codec = ctx, .meter = &m->meter};
        zip_codec_ops_t codec;
        zip_algo_codec_bind(&codec, &binding);
        const char *at = (const char *)sample + dtype->super.true_lb;
        const int elem_type = mca_coll_zip_elem_type(dtype);
        if (observes) {
            saving = zip_algo_observe_saving(&codec, &r->policy, elem_type, at,
                                             tsize * (size_t)sample_count, my_bytes);
            saving *= zip_algo_observe_share(zip_coll_op_flow(op), ompi_comm_size(comm));
        }
        if (probes) {
            zip_algo_codec_binding_t unmetered = {.codec = ctx};
            zip_codec_ops_t plain;
            zip_algo_codec_bind(&plain, &unmetered);
            (void)zip_codec_meter_probe(&m->meter, &plain, elem_type, at,
                                        tsize * (size_t)sample_count, my_bytes);
            m->probe_pending = false;
        }
        mca_coll_zip_codec_give(ctx);
    }
    mca_coll_zip_stats_handed_on(op, r->verdict, saving, my_bytes);
}

bool mca_coll_zip_policy_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const void *sample, int sample_count, struct ompi_datatype_t *dtype,
                               size_t my_bytes)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    hand_on(m, comm, op, r, probe_due(m, r), sample, sample_count, dtype, my_bytes);
    return false;
}

bool mca_coll_zip_policy_link_faster(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (ZIP_VERDICT_LINK_FASTER != r->verdict || ZIP_POLICY_AUTO != r->policy.mode) {
        return false;
    }
    m->call_policy = r->policy;
    return true;
}

bool mca_coll_zip_policy_route_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    return false;
}

bool mca_coll_zip_policy_route_takes_counted(mca_coll_zip_module_t *m,
                                             struct ompi_communicator_t *comm, int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    mca_coll_zip_stats_handed_on(op, r->verdict, 0.0, 0);
    return false;
}

bool mca_coll_zip_policy_takes_known(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op, size_t block, const void *sample, int sample_count,
                                     struct ompi_datatype_t *dtype, size_t my_bytes)
{
    if (0 == block || block < mca_coll_zip_component.threshold) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    return mca_coll_zip_policy_takes(m, comm, op, sample, sample_count, dtype, my_bytes);
}

bool mca_coll_zip_policy_takes_blocks(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                      int op, const mca_coll_zip_layout_t *mine, int skip)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    const bool probes = probe_due(m, r);
    if (!route_observes(r) && !probes) {
        mca_coll_zip_stats_handed_on(op, r->verdict, 0.0, 0);
        return false;
    }
    /* Observed or sampled: this rank's blocks at or above the threshold (but block `skip`) are its
     * payload, the largest of them its sample. */
    const size_t threshold = mca_coll_zip_component.threshold;
    size_t total = 0, largest = 0;
    int sample = -1;
    for (int p = 0; p < ompi_comm_size(comm); ++p) {
        const size_t b = mca_coll_zip_layout_bytes(mine, p);
        if (p != skip && b >= threshold) {
            total += b;
            if (b > largest) {
                largest = b;
                sample = p;
            }
        }
    }
    int count = 0;
    const char *at = sample >= 0 ? mca_coll_zip_layout_block(mine, sample, &count) : NULL;
    hand_on(m, comm, op, r, probes, at, count,
            sample >= 0 ? mca_coll_zip_layout_type(mine, sample) : NULL, total);
    return false;
}
