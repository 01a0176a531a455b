/*
 * Persistent requests through pml/zip: MPI_Send_init/MPI_Ssend_init/MPI_Bsend_init/
 * MPI_Recv_init with MPI_Start and MPI_Startall over several rounds, the buffers refilled with
 * different data each round (compressed and incompressible), a persistent receive with
 * MPI_ANY_SOURCE and a larger buffer, persistent receives mixed with plain ones, a
 * persistent receive started after a probe pulled its message out early, one-double
 * persistent receives over many rounds, persistent receives freed while active (the next
 * receive gets the next message), and a persistent receive started and cancelled while a
 * probed message of another tag waits (then started again); persistent sends freed while
 * active (one double, then N compressible ones) and ready-mode persistent sends over many rounds.
 */
#include "p2p_common.h"

#define N 100000
#define ROUNDS 5

/* Both ranks of a pair got here (with 3 ranks the third has no peer: no MPI_Barrier). */
static void pair_barrier(int peer)
{
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 99, NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* One double per message (smaller than zip's envelope), 200 rounds of Startall. */
static void small_rounds(int peer)
{
    double v = 0.0, w = 0.0;
    MPI_Request req[2];
    MPI_Send_init(&v, 1, MPI_DOUBLE, peer, 60, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(&w, 1, MPI_DOUBLE, peer, 60, MPI_COMM_WORLD, &req[1]);
    int bad = 0;
    for (int round = 0; round < 200; ++round) {
        v = -(double)round - 0.5 * pt_rank;
        pt_call(MPI_Startall(2, req), "startall");
        MPI_Status st[2];
        pt_call(MPI_Waitall(2, req, st), "waitall");
        int c = -1;
        MPI_Get_count(&st[1], MPI_DOUBLE, &c);
        bad += w != -(double)round - 0.5 * peer || 1 != c || st[1].MPI_TAG != 60;
    }
    pt_check(0 == bad, "one-double persistent receives, 200 rounds");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

/* MPI_Request_free of an active persistent receive: it still takes the first message (one
 * double, then N compressible ones), and a plain receive after it gets the second. */
static void freed_while_active(int peer, double *s, double *r, double *ref)
{
    static double first; /* written by the freed receive: kept until the end */
    const int n[2] = {1, N};
    for (int k = 0; k < 2; ++k) {
        if (pt_rank & 1) {
            pair_barrier(peer);
            pt_fill_f64(s, N, pt_seed(pt_rank, 8, k, 0));
            MPI_Send(s, n[k], MPI_DOUBLE, peer, 70 + k, MPI_COMM_WORLD);
            pt_fill_f64(s, N, pt_seed(pt_rank, 8, k, 1));
            MPI_Send(s, n[k], MPI_DOUBLE, peer, 70 + k, MPI_COMM_WORLD);
        } else {
            MPI_Request pr;
            void *into = 0 == k ? (void *)&first : (void *)(r + 8);
            MPI_Recv_init(into, n[k], MPI_DOUBLE, peer, 70 + k, MPI_COMM_WORLD, &pr);
            pt_call(MPI_Start(&pr), "start");
            pt_call(MPI_Request_free(&pr), "free of an active persistent receive");
            pair_barrier(peer);
            double *second = 0 == k ? r : ref;
            MPI_Status st;
            pt_call(MPI_Recv(second, n[k], MPI_DOUBLE, peer, 70 + k, MPI_COMM_WORLD, &st),
                    "receive after the freed one");
            pt_fill_f64(s, N, pt_seed(peer, 8, k, 1));
            pt_check(pt_same(second, s, (size_t)n[k] * sizeof(double)),
                     0 == k
                         ? "freed active persistent receive (1 double): the next message next"
                         : "freed active persistent receive (compressed): the next message next");
        }
    }
    pair_barrier(peer);
}

/* A probe leaves a message of tag 81 waiting (compressible doubles: zip pulls such a message's
 * envelope into its stash); a persistent receive of tag 80 started then is cancelled before
 * anything of tag 80 was sent, started again, and gets its message. */
static void cancelled_beside_probed(int peer, double *s, double *r, double *ref)
{
    if (pt_rank & 1) {
        MPI_Request sr;
        pt_fill_f64(ref, N, pt_seed(pt_rank, 9, 9, 8));
        MPI_Isend(ref, N, MPI_DOUBLE, peer, 81, MPI_COMM_WORLD, &sr);
        pair_barrier(peer);
        pt_fill_f64(s, N, pt_seed(pt_rank, 9, 9, 9));
        MPI_Send(s, N, MPI_DOUBLE, peer, 80, MPI_COMM_WORLD);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Status st;
    MPI_Probe(peer, 81, MPI_COMM_WORLD, &st);
    MPI_Request pr;
    MPI_Recv_init(r, N, MPI_DOUBLE, peer, 80, MPI_COMM_WORLD, &pr);
    pt_call(MPI_Start(&pr), "start beside a probed message");
    pt_call(MPI_Cancel(&pr), "cancel");
    pt_call(MPI_Wait(&pr, &st), "wait for the cancelled receive");
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    pt_check(cancelled, "persistent receive beside a probed message cancelled");
    pair_barrier(peer);
    pt_call(MPI_Start(&pr), "start again");
    pt_call(MPI_Wait(&pr, &st), "wait");
    pt_fill_f64(ref, N, pt_seed(peer, 9, 9, 9));
    pt_check(pt_same(r, ref, N * sizeof(double)) && 80 == st.MPI_TAG,
             "persistent receive started again after its cancel");
    MPI_Request_free(&pr);
    MPI_Recv(r, N, MPI_DOUBLE, peer, 81, MPI_COMM_WORLD, &st);
    pt_fill_f64(ref, N, pt_seed(peer, 9, 9, 8));
    pt_check(pt_same(r, ref, N * sizeof(double)), "the probed message after them");
}

/* MPI_Request_free of an active persistent send: its message still goes, before the next. */
static void send_freed_while_active(int peer, double *s, double *r, double *ref)
{
    const int n[2] = {1, N};
    for (int k = 0; k < 2; ++k) {
        if (pt_rank & 1) {
            MPI_Request sr;
            pt_fill_f64(s, N, pt_seed(pt_rank, 10, k, 0));
            MPI_Send_init(s, n[k], MPI_DOUBLE, peer, 90 + k, MPI_COMM_WORLD, &sr);
            pt_call(MPI_Start(&sr), "start");
            pt_call(MPI_Request_free(&sr), "free of an active persistent send");
            /* The buffer may not change before the freed send is known to be done: the
             * receiver's acknowledgement says so. */
            MPI_Send(s + N / 2, n[k] > 1 ? N / 2 : 1, MPI_DOUBLE, peer, 92 + k, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 94, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Status st;
            pt_call(MPI_Recv(r, n[k], MPI_DOUBLE, peer, 90 + k, MPI_COMM_WORLD, &st),
                    "receive of the freed send's message");
            pt_call(
                MPI_Recv(ref, n[k] > 1 ? N / 2 : 1, MPI_DOUBLE, peer, 92 + k, MPI_COMM_WORLD, &st),
                "receive after it");
            MPI_Send(NULL, 0, MPI_BYTE, peer, 94, MPI_COMM_WORLD);
            pt_fill_f64(s, N, pt_seed(peer, 10, k, 0));
            pt_check(pt_same(r, s, (size_t)n[k] * sizeof(double)) &&
                         pt_same(ref, s + N / 2, (n[k] > 1 ? N / 2 : 1) * sizeof(double)),
                     0 == k ? "persistent send (1 double) freed while active: delivered"
                            : "persistent send (compressed) freed while active: delivered");
        }
    }
}

/* MPI_Rsend_init: each round the receiver starts its receive before the sender starts. */
static void ready_rounds(int peer, double *s, double *r, double *ref)
{
    const int sender = pt_rank & 1;
    MPI_Request req;
    if (sender)
        MPI_Rsend_init(s, N, MPI_DOUBLE, peer, 95, MPI_COMM_WORLD, &req);
    else
        MPI_Recv_init(r, N, MPI_DOUBLE, peer, 95, MPI_COMM_WORLD, &req);
    int bad = 0;
    for (int round = 0; round < 6; ++round) {
        const uint64_t seed = pt_seed(sender ? pt_rank : peer, 11, 0, round);
        if (sender) {
            pt_fill_f64(s, N, seed);
            pair_barrier(peer); /* the receive is posted */
            pt_call(MPI_Start(&req), "start rsend");
        } else {
            pt_call(MPI_Start(&req), "start receive");
            pair_barrier(peer);
        }
        pt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "wait");
        if (!sender) {
            pt_fill_f64(ref, N, seed);
            bad += !pt_same(r, ref, N * sizeof(double));
        }
    }
    pt_check(0 == bad, "ready-mode persistent sends, 6 rounds");
    MPI_Request_free(&req);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    int peer = pt_rank ^ 1;
    double *s = malloc(N * sizeof(double)), *r = malloc((N + 8) * sizeof(double));
    double *ref = malloc(N * sizeof(double));
    float *fs = malloc(N * sizeof(float)), *fr = malloc(N * sizeof(float)),
          *fref = malloc(N * sizeof(float));
    int bsize = 4 * N * (int)sizeof(double) + 16 * MPI_BSEND_OVERHEAD;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);

    if (peer < pt_size) {
        MPI_Request req[2];
        for (int mode = 0; mode < 3; ++mode) {
            int sender = (pt_rank & 1) == (mode & 1);
            if (sender) {
                if (0 == mode)
                    MPI_Send_init(s, N, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD, &req[0]);
                else if (1 == mode)
                    MPI_Ssend_init(s, N, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD, &req[0]);
                else
                    MPI_Bsend_init(s, N, MPI_DOUBLE, peer, 10 + mode, MPI_COMM_WORLD, &req[0]);
                MPI_Send_init(fs, N / 2, MPI_FLOAT, peer, 20 + mode, MPI_COMM_WORLD, &req[1]);
            } else {
                MPI_Recv_init(r, N + 8, MPI_DOUBLE, MPI_ANY_SOURCE, 10 + mode, MPI_COMM_WORLD,
                              &req[0]);
                MPI_Recv_init(fr, N, MPI_FLOAT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &req[1]);
            }
            for (int round = 0; round < ROUNDS; ++round) {
                uint64_t seed = pt_seed(sender ? pt_rank : peer, mode, 0, round);
                if (sender) {
                    pt_fill_f64(s, N, seed);
                    pt_fill_f32(fs, N / 2, seed);
                }
                MPI_Status st[2];
                if (round & 1) {
                    pt_call(MPI_Startall(2, req), "startall");
                } else {
                    pt_call(MPI_Start(&req[0]), "start");
                    pt_call(MPI_Start(&req[1]), "start");
                }
                pt_call(MPI_Waitall(2, req, st), "waitall");
                if (!sender) {
                    int c0 = -1, c1 = -1;
                    pt_fill_f64(ref, N, seed);
                    pt_fill_f32(fref, N / 2, seed);
                    MPI_Get_count(&st[0], MPI_DOUBLE, &c0);
                    MPI_Get_count(&st[1], MPI_FLOAT, &c1);
                    pt_check(c0 == N && pt_same(r, ref, N * sizeof(double)), "persistent double");
                    pt_check(c1 == N / 2 && pt_same(fr, fref, N / 2 * sizeof(float)),
                             "persistent float");
                    pt_check(st[0].MPI_SOURCE == peer && st[1].MPI_TAG == 20 + mode,
                             "persistent status");
                }
            }
            MPI_Request_free(&req[0]);
            MPI_Request_free(&req[1]);
            pt_check(MPI_REQUEST_NULL == req[0], "request freed");
        }

        /* A probe pulls the message out first; the persistent receive must still get it. */
        if (pt_rank & 1) {
            pt_fill_f64(s, N, pt_seed(pt_rank, 7, 7, 7));
            /* Nonblocking: the receiver probes the second before receiving the first. */
            int v = 12345;
            MPI_Request sr[2];
            MPI_Isend(s, N, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD, &sr[0]);
            MPI_Isend(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &sr[1]);
            MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
        } else {
            MPI_Status ps, st;
            MPI_Request pr;
            MPI_Probe(peer, 30, MPI_COMM_WORLD, &ps);
            MPI_Probe(peer, 31, MPI_COMM_WORLD, &ps);
            MPI_Recv_init(r, N, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD, &pr);
            MPI_Start(&pr);
            MPI_Wait(&pr, &st);
            pt_fill_f64(ref, N, pt_seed(peer, 7, 7, 7));
            pt_check(pt_same(r, ref, N * sizeof(double)), "persistent receive after probe");
            MPI_Request_free(&pr);
            int v = 0;
            MPI_Recv_init(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &pr);
            MPI_Start(&pr);
            MPI_Wait(&pr, &st);
            pt_check(12345 == v, "persistent int receive after probe");
            MPI_Request_free(&pr);
        }
        small_rounds(peer);
        freed_while_active(peer, s, r, ref);
        cancelled_beside_probed(peer, s, r, ref);
        send_freed_while_active(peer, s, r, ref);
        ready_rounds(peer, s, r, ref);
    }
    int sz;
    MPI_Buffer_detach(&bbuf, &sz);
    free(bbuf);
    free(s);
    free(r);
    free(ref);
    free(fs);
    free(fr);
    free(fref);
    return pt_finish("p2p_persistent");
}
