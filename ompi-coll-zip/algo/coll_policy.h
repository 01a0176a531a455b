/*
 * The MPI-free state behind coll/zip's policy (coll_zip_policy.c): the Info key zip_policy per
 * communicator, and the values ranks reduce to agree on speeds.
 */
#ifndef ZIP_COLL_ALGO_COLL_POLICY_H
#define ZIP_COLL_ALGO_COLL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "zip_algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The zip_policy mode (a zip_policy_mode_t) set on the communicator with context id cid, or -1
 * (unset: coll_zip_policy applies). Set grows the table; without memory the key is ignored. */
void zip_coll_policy_set(uint32_t cid, int mode);
int zip_coll_policy_get(uint32_t cid);
void zip_coll_policy_clear(void);

/* What each rank contributes to agreeing on speeds; reduced with MPI_MAX over the ranks it
 * gives the fastest link per peer class, the slowest codec (negated speeds), the most ranks
 * sharing a node and the least chain_local_share (negated): every rank the same, and on the side
 * of sending raw when in doubt. */
#define ZIP_COLL_AGREE_VALUES 6
void zip_coll_agree_mine(const double link_Bps[2], double compress_Bps, double decompress_Bps,
                         int ranks_on_node, double chain_local_share,
                         double mine[ZIP_COLL_AGREE_VALUES]);
/* The agreed speeds from the reduced values (ranks_per_core 0: see zip_coll_ranks_per_core). */
zip_algo_agreed_t zip_coll_agree_result(const double all[ZIP_COLL_AGREE_VALUES]);

/* The most ranks per core any machine runs: machines[2 p] names rank p's machine (0: unknown)
 * and machines[2 p + 1] gives its online cores (0: unknown), for the size ranks of a
 * communicator; ranks that name one machine run on it, whatever node Open MPI puts them on.
 * Machines without a name or a core count do not count; 0 if none is left. */
double zip_coll_ranks_per_core(const uint64_t *machines, int size);

/* The ranks sharing this node, this one included: those of the size peers with
 * peer_on_node[p] (at least 1; NULL: 1). */
int zip_coll_ranks_on_node(const bool *peer_on_node, int size);

/* Of the ranks q on this rank's node (`rank` and those with peer_on_node[q]), the share whose
 * predecessor q - 1 (mod size) is on the node too: the pairs of consecutive ranks that one node
 * keeps, per rank of it. Over all nodes these pairs add up to at least the least share times
 * size, so the least share any rank reports bounds how many hops of the bcast chain (which
 * follows rank order) stay on a node. 0 without locality (peer_on_node NULL: every peer counts
 * as remote). */
double zip_coll_chain_local_share(const bool *peer_on_node, int rank, int size);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_COLL_ALGO_COLL_POLICY_H */
