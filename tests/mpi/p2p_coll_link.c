/*
 * A halo exchange as stencil codes write it (MPI_Irecv, MPI_Isend, MPI_Waitall of 32 KiB smooth
 * messages, below the size pml/zip times arrivals at) after one MPI_Barrier (no argument, or
 * "barrier"), or with "allreduce" after one 4-byte MPI_Allreduce instead, or with "none" after
 * no collective at all: pml/zip never learns the link from these messages, but coll/zip's ranks
 * agree on it at either call (or inside MPI_Init, with the rates given), and pml/zip takes that
 * rate (docs/p2p.md, "Where the link rate comes from"). The run script reads rank 0's
 * statistics: with coll/zip on and told of a slow link, the halos are compressed at coll/zip's
 * rate; without coll/zip they go raw (no rate). Every halo is checked bit for bit.
 */
#include "p2p_common.h"

enum { STEPS = 12, DOUBLES = 4096, HALO_TAG = 3 };

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    double *out[2], *in[2], *want = malloc(DOUBLES * sizeof(double));
    for (int s = 0; s < 2; ++s) {
        out[s] = malloc(DOUBLES * sizeof(double));
        in[s] = malloc(DOUBLES * sizeof(double));
    }
    const int right = (pt_rank + 1) % pt_size, left = (pt_rank + pt_size - 1) % pt_size;
    const int peer[2] = {left, right};
    /* "allreduce" as the argument: a code with no barrier, only a small allreduce (coll/zip
     * agrees at the first blocking one on MPI_COMM_WORLD). */
    if (argc > 1 && 0 == strcmp(argv[1], "allreduce")) {
        int one = 1, all = 0;
        pt_call(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        pt_check(all == pt_size, "small allreduce");
    } else if (argc < 2 || 0 != strcmp(argv[1], "none")) {
        pt_call(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    }
    for (int step = 0; step < STEPS && pt_size >= 2; ++step) {
        MPI_Request r[4];
        for (int s = 0; s < 2; ++s) {
            pt_call(
                MPI_Irecv(in[s], DOUBLES, MPI_DOUBLE, peer[s], HALO_TAG + s, MPI_COMM_WORLD, &r[s]),
                "MPI_Irecv");
        }
        for (int s = 0; s < 2; ++s) {
            /* tag HALO_TAG + s arrives at the peer as its receive from the other side */
            pt_fill_f64(out[s], DOUBLES, pt_seed(pt_rank, peer[1 - s], step, 2 * s));
            pt_call(MPI_Isend(out[s], DOUBLES, MPI_DOUBLE, peer[1 - s], HALO_TAG + s,
                              MPI_COMM_WORLD, &r[2 + s]),
                    "MPI_Isend");
        }
        pt_call(MPI_Waitall(4, r, MPI_STATUSES_IGNORE), "MPI_Waitall");
        for (int s = 0; s < 2; ++s) {
            pt_fill_f64(want, DOUBLES, pt_seed(peer[s], pt_rank, step, 2 * s));
            pt_check(pt_same(in[s], want, DOUBLES * sizeof(double)), "halo arrived bit-exact");
        }
    }
    for (int s = 0; s < 2; ++s) {
        free(out[s]);
        free(in[s]);
    }
    free(want);
    return pt_finish("p2p_coll_link");
}
