/*
 * MPI_Cancel through pml/zip: receives that no message will match (double and int, plain and
 * persistent, specific and wildcard) are cancelled and report MPI_Test_cancelled; traffic
 * afterwards is intact, including a message with the tag the cancelled receive waited for.
 */
#include "p2p_common.h"

#define N 80000

static void cancel_one(MPI_Request *req, const char *what)
{
    MPI_Status st;
    int flag = 0;
    pt_call(MPI_Cancel(req), "cancel");
    pt_call(MPI_Wait(req, &st), "wait cancelled");
    MPI_Test_cancelled(&st, &flag);
    pt_check(flag, what);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    int peer = pt_rank ^ 1;
    double *d = malloc(N * sizeof(double)), *ref = malloc(N * sizeof(double));
    int iv[4];

    if (peer < pt_size) {
        MPI_Request req;
        MPI_Irecv(d, N, MPI_DOUBLE, peer, 500, MPI_COMM_WORLD, &req);
        cancel_one(&req, "double irecv cancelled");
        MPI_Irecv(d, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        cancel_one(&req, "wildcard double irecv cancelled");
        MPI_Irecv(iv, 4, MPI_INT, peer, 501, MPI_COMM_WORLD, &req);
        cancel_one(&req, "int irecv cancelled");
        MPI_Recv_init(d, N, MPI_DOUBLE, peer, 502, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 2; ++i) {
            MPI_Start(&req);
            cancel_one(&req, "persistent double receive cancelled");
        }
        MPI_Request_free(&req);

        /* The tag a cancelled receive waited for now carries a real message. */
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t seed = pt_seed(pt_rank, peer, 500, 0);
        pt_fill_f64(d, N, seed);
        MPI_Request sr;
        MPI_Isend(d, N, MPI_DOUBLE, peer, 500, MPI_COMM_WORLD, &sr);
        double *r = malloc(N * sizeof(double));
        MPI_Status st;
        int c = -1;
        pt_call(MPI_Recv(r, N, MPI_DOUBLE, peer, 500, MPI_COMM_WORLD, &st), "recv after cancel");
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        pt_fill_f64(ref, N, pt_seed(peer, pt_rank, 500, 0));
        pt_check(c == N && pt_same(r, ref, N * sizeof(double)), "traffic after cancel");
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        free(r);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(d);
    free(ref);
    return pt_finish("p2p_cancel");
}
