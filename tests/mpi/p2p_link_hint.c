/*
 * A process that only sends large messages learns the link rate its receiver timed, from the
 * link hint in the headers of whatever the receiver sends back (docs/p2p.md, "The link
 * hint"). Rank 0 streams 16 smooth 512 KiB messages to rank 1; with "ack", rank 1 answers
 * each with a 4-byte message. Rank P2P_HINT_SLOW_RANK (from the environment) is told its
 * link to other nodes runs at 1 Gbit/s (pml_zip_link_gbps_remote, set here before MPI_Init
 * so that only that rank has it). The run script reads rank 0's statistics: with acks from a
 * slow rank 1, rank 0 compresses; without them it never hears of the slow link and, having no
 * rate of its own, sends raw.
 * Usage: p2p_link_hint ack|noack
 */
#include "p2p_common.h"

enum { MESSAGES = 16, DOUBLES = 65536, DATA_TAG = 5, ACK_TAG = 6 };

static void slow_link_for_one_rank(void)
{
    const char *slow = getenv("P2P_HINT_SLOW_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    if (NULL != slow && NULL != me && 0 == strcmp(slow, me))
        setenv("OMPI_MCA_pml_zip_link_gbps_remote", "1", 1);
}

int main(int argc, char **argv)
{
    slow_link_for_one_rank();
    pt_init(&argc, &argv);
    const int ack = argc > 1 && 0 == strcmp(argv[1], "ack");
    double *msg = malloc(DOUBLES * sizeof(double));
    double *want = malloc(DOUBLES * sizeof(double));
    int token = 0;
    for (int m = 0; m < MESSAGES && pt_size >= 2; ++m) {
        const uint64_t seed = pt_seed(0, 1, DATA_TAG, 2 * m); /* even: smooth */
        if (0 == pt_rank) {
            pt_fill_f64(msg, DOUBLES, seed);
            pt_call(MPI_Send(msg, DOUBLES, MPI_DOUBLE, 1, DATA_TAG, MPI_COMM_WORLD), "MPI_Send");
            if (ack)
                pt_call(MPI_Recv(&token, 1, MPI_INT, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                        "MPI_Recv ack");
        } else if (1 == pt_rank) {
            pt_call(
                MPI_Recv(msg, DOUBLES, MPI_DOUBLE, 0, DATA_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv");
            pt_fill_f64(want, DOUBLES, seed);
            pt_check(pt_same(msg, want, DOUBLES * sizeof(double)), "message arrives bit-exact");
            if (ack)
                pt_call(MPI_Send(&m, 1, MPI_INT, 0, ACK_TAG, MPI_COMM_WORLD), "MPI_Send ack");
        }
    }
    free(msg);
    free(want);
    return pt_finish(ack ? "link hint: a streaming sender hears its receiver's link rate"
                         : "link hint: a streaming sender without replies has no rate");
}
