/*
 * pml_zip_temporal: messages coded against the previous message of their stream (communicator,
 * peer, tag, size) arrive exactly as sent, whatever the receive does with them. Every rank sends
 * to the next and receives from the one before; each message is a slowly changing array (a
 * smooth or a random field, about 1/32 of its values changed per step) that the receiver
 * regenerates and compares bit for bit. One case per name (all of them without one):
 *
 *   steps       many steps of three tags, one of two sizes alternating on its tag
 *   order       Irecv of a large then a small message of one channel, waited small first, and
 *               the reverse (payloads complete out of order; decoding must not)
 *   wildcard    MPI_ANY_SOURCE / MPI_ANY_TAG receives of interleaved streams
 *   mprobe      MPI_Mprobe of one message, MPI_Recv of the next of its stream, then MPI_Mrecv;
 *               MPI_Improbe; MPI_Probe then MPI_Recv
 *   cancel      MPI_Cancel of a stream message's send (refused under zip, or honoured by a PML
 *               that can: the receiver is told), then more of the stream
 *   truncate    a receive buffer too small for one step (MPI_ERR_TRUNCATE), then more steps
 *   types       sent as a vector type, received as doubles and as MPI_BYTE, and the reverse
 *   modes       persistent, buffered, ready and synchronous sends within one stream
 *   commfree    streams on a duplicate that is freed, then on a new duplicate
 *   bytes       one random field over many steps only (the harness compares wire bytes)
 *
 * P2P_TEMPORAL_INFO=V: every case's communicator is made with the Info key zip_p2p_temporal=V.
 */
#include "p2p_common.h"

#define STEPS 24

static int to, from;

/* Message `step` of stream `id` from src to dst: a field (random for odd ids, smooth for even
 * ones) of which about 1/32 of the values moved, a different 1/32 each step. */
static void gen(double *out, size_t n, int src, int dst, int id, int step)
{
    const char *set = (id & 1) ? "random" : "sincos-512";
    const uint64_t seed = pt_seed(src, dst, id, 0);
    if (ZIPDATA_OK != zipdata_fill(set, out, n, seed)) {
        fprintf(stderr, "zipdata_fill failed\n");
        abort();
    }
    for (size_t i = 0; i < n; ++i) {
        if (0 == (i * 2654435761u + (unsigned)step * 7u) % 32u)
            out[i] += 0.001 * step;
    }
}

static double *sendbuf(size_t n, int id, int step)
{
    double *b = malloc(n * sizeof(double));
    gen(b, n, pt_rank, to, id, step);
    return b;
}

/* Checks that got holds message `step` of stream id from `src` (count doubles of n). */
static void expect(const double *got, size_t n, int src, int id, int step, const char *what)
{
    double *want = malloc((n ? n : 1) * sizeof(double));
    gen(want, n, src, pt_rank, id, step);
    char msg[160];
    snprintf(msg, sizeof(msg), "%s: stream %d step %d from %d bit-exact", what, id, step, src);
    pt_check(pt_same(got, want, n * sizeof(double)), msg);
    free(want);
}

static void count_is(const MPI_Status *st, MPI_Datatype t, int n, const char *what)
{
    int c = -1;
    MPI_Get_count(st, t, &c);
    pt_check(c == n, what);
}

static void case_steps(MPI_Comm comm)
{
    const size_t sizes[3] = {32768, 20000, 12000};
    for (int step = 0; step < STEPS; ++step) {
        MPI_Request rq[6];
        double *s[3], *r[3];
        for (int t = 0; t < 3; ++t) {
            /* tag 2 alternates between two sizes: two streams of one channel */
            const size_t n = (2 == t && (step & 1)) ? 16000 : sizes[t];
            s[t] = sendbuf(n, t, step);
            r[t] = malloc(n * sizeof(double));
            MPI_Irecv(r[t], (int)n, MPI_DOUBLE, from, t, comm, &rq[t]);
            MPI_Isend(s[t], (int)n, MPI_DOUBLE, to, t, comm, &rq[3 + t]);
        }
        pt_call(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE), "waitall steps");
        for (int t = 0; t < 3; ++t) {
            const size_t n = (2 == t && (step & 1)) ? 16000 : sizes[t];
            expect(r[t], n, from, t, step, "steps");
            free(s[t]);
            free(r[t]);
        }
    }
}

static void case_order(MPI_Comm comm)
{
    const size_t big = 131072, small = 300; /* 2400 bytes: eager everywhere */
    for (int step = 0; step < STEPS; ++step) {
        /* Each step both ways round: big then small, and small then big, on one channel. */
        const int big_first = step & 1;
        const size_t n1 = big_first ? big : small, n2 = big_first ? small : big;
        double *s1 = sendbuf(n1, 11 + 2 * big_first, step),
               *s2 = sendbuf(n2, 13 - 2 * big_first, step);
        double *r1 = malloc(n1 * sizeof(double)), *r2 = malloc(n2 * sizeof(double));
        MPI_Request rr[2], sr[2];
        MPI_Irecv(r1, (int)n1, MPI_DOUBLE, from, 20, comm, &rr[0]);
        MPI_Irecv(r2, (int)n2, MPI_DOUBLE, from, 20, comm, &rr[1]);
        MPI_Isend(s1, (int)n1, MPI_DOUBLE, to, 20, comm, &sr[0]);
        MPI_Isend(s2, (int)n2, MPI_DOUBLE, to, 20, comm, &sr[1]);
        /* The second first: its payload may be in before the first's. */
        MPI_Status st;
        pt_call(MPI_Wait(&rr[1], &st), "wait second");
        count_is(&st, MPI_DOUBLE, (int)n2, "order: second's count");
        expect(r2, n2, from, 13 - 2 * big_first, step, "order second");
        pt_call(MPI_Wait(&rr[0], &st), "wait first");
        count_is(&st, MPI_DOUBLE, (int)n1, "order: first's count");
        expect(r1, n1, from, 11 + 2 * big_first, step, "order first");
        pt_call(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE), "waitall order sends");
        free(s1);
        free(s2);
        free(r1);
        free(r2);
    }
    /* Many of one stream outstanding at once, completed in any order. */
    enum { K = 6 };
    const size_t n = 24000;
    double *s[K], *r[K];
    MPI_Request rq[2 * K];
    for (int k = 0; k < K; ++k) {
        r[k] = malloc(n * sizeof(double));
        MPI_Irecv(r[k], (int)n, MPI_DOUBLE, from, 21, comm, &rq[k]);
    }
    for (int k = 0; k < K; ++k) {
        s[k] = sendbuf(n, 15, k);
        MPI_Isend(s[k], (int)n, MPI_DOUBLE, to, 21, comm, &rq[K + k]);
    }
    for (int done = 0; done < K;) {
        int idx[K], nd = 0;
        const int rc = MPI_Testsome(K, rq, &nd, idx, MPI_STATUSES_IGNORE);
        if (MPI_SUCCESS != rc) {
            pt_call(rc, "testsome");
            MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
            break;
        }
        done += nd > 0 ? nd : 0;
    }
    pt_call(MPI_Waitall(K, rq + K, MPI_STATUSES_IGNORE), "waitall K sends");
    for (int k = 0; k < K; ++k) {
        expect(r[k], n, from, 15, k, "order: outstanding");
        free(s[k]);
        free(r[k]);
    }
}

static void case_wildcard(MPI_Comm comm)
{
    const size_t n = 20000;
    for (int step = 0; step < STEPS; ++step) {
        double *s[3], *r[3];
        MPI_Request rq[6];
        MPI_Status st[3];
        for (int t = 0; t < 3; ++t) {
            r[t] = malloc(n * sizeof(double));
            MPI_Irecv(r[t], (int)n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq[t]);
        }
        for (int t = 0; t < 3; ++t) {
            s[t] = sendbuf(n, 30 + t, step);
            MPI_Isend(s[t], (int)n, MPI_DOUBLE, to, 30 + t, comm, &rq[3 + t]);
        }
        pt_call(MPI_Waitall(3, rq, st), "waitall wildcard");
        pt_call(MPI_Waitall(3, rq + 3, MPI_STATUSES_IGNORE), "waitall wildcard sends");
        for (int t = 0; t < 3; ++t) {
            /* Non-overtaking: the receives match the messages in the order they were sent. */
            pt_check(st[t].MPI_SOURCE == from && st[t].MPI_TAG == 30 + t, "wildcard: order");
            expect(r[t], n, st[t].MPI_SOURCE, st[t].MPI_TAG, step, "wildcard");
            free(s[t]);
            free(r[t]);
        }
    }
}

static void case_mprobe(MPI_Comm comm)
{
    const size_t n = 30000;
    double *r1 = malloc(n * sizeof(double)), *r2 = malloc(n * sizeof(double));
    for (int step = 0; step < STEPS; step += 2) {
        double *s1 = sendbuf(n, 41, step), *s2 = sendbuf(n, 41, step + 1);
        MPI_Request sr[2];
        MPI_Isend(s1, (int)n, MPI_DOUBLE, to, 40, comm, &sr[0]);
        MPI_Isend(s2, (int)n, MPI_DOUBLE, to, 40, comm, &sr[1]);
        MPI_Message msg;
        MPI_Status st;
        int c = -1;
        switch ((step / 2) % 3) {
        case 0: /* Mprobe the first, receive the second, then Mrecv the first */
            pt_call(MPI_Mprobe(from, 40, comm, &msg, &st), "mprobe");
            MPI_Get_count(&st, MPI_DOUBLE, &c);
            pt_check(c == (int)n, "mprobe count");
            pt_call(MPI_Recv(r2, (int)n, MPI_DOUBLE, from, 40, comm, &st), "recv after mprobe");
            pt_call(MPI_Mrecv(r1, (int)n, MPI_DOUBLE, &msg, &st), "mrecv");
            break;
        case 1: { /* Improbe until matched, Imrecv */
            int flag = 0;
            while (!flag)
                pt_call(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg, &st),
                        "improbe");
            MPI_Request rq;
            pt_call(MPI_Imrecv(r1, (int)n, MPI_DOUBLE, &msg, &rq), "imrecv");
            pt_call(MPI_Recv(r2, (int)n, MPI_DOUBLE, from, 40, comm, &st), "recv after improbe");
            pt_call(MPI_Wait(&rq, &st), "wait imrecv");
            break;
        }
        default: /* Probe, then receive both */
            pt_call(MPI_Probe(from, 40, comm, &st), "probe");
            MPI_Get_count(&st, MPI_DOUBLE, &c);
            pt_check(c == (int)n, "probe count");
            pt_call(MPI_Recv(r1, (int)n, MPI_DOUBLE, from, 40, comm, &st), "recv after probe");
            pt_call(MPI_Recv(r2, (int)n, MPI_DOUBLE, from, 40, comm, &st), "recv 2 after probe");
        }
        pt_call(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE), "waitall mprobe sends");
        expect(r1, n, from, 41, step, "mprobe first");
        expect(r2, n, from, 41, step + 1, "mprobe second");
        free(s1);
        free(s2);
    }
    free(r1);
    free(r2);
}

static void case_cancel(MPI_Comm comm)
{
    const size_t n = 30000;
    double *r = malloc(n * sizeof(double));
    for (int step = 0; step < STEPS; ++step) {
        double *s = sendbuf(n, 51, step);
        MPI_Request sr, rr;
        MPI_Status st;
        /* Posted first: the send of the peer completes whether or not it is cancelled. */
        MPI_Irecv(r, (int)n, MPI_DOUBLE, from, 50, comm, &rr);
        MPI_Isend(s, (int)n, MPI_DOUBLE, to, 50, comm, &sr);
        int cancelled = 0;
        if (step % 3 == 1) {
            pt_call(MPI_Cancel(&sr), "cancel send");
            pt_call(MPI_Wait(&sr, &st), "wait cancelled send");
            MPI_Test_cancelled(&st, &cancelled);
        } else {
            pt_call(MPI_Wait(&sr, MPI_STATUS_IGNORE), "wait send");
        }
        int peer_cancelled = 0;
        MPI_Sendrecv(&cancelled, 1, MPI_INT, to, 52, &peer_cancelled, 1, MPI_INT, from, 52, comm,
                     MPI_STATUS_IGNORE);
        if (peer_cancelled) {
            MPI_Cancel(&rr);
            pt_call(MPI_Wait(&rr, &st), "wait receive of a cancelled send");
        } else {
            pt_call(MPI_Wait(&rr, &st), "recv cancel case");
            expect(r, n, from, 51, step, "cancel");
        }
        free(s);
    }
    free(r);
}

static void case_truncate(MPI_Comm comm)
{
    const size_t n = 30000;
    double *r = malloc(n * sizeof(double));
    for (int step = 0; step < STEPS; ++step) {
        double *s = sendbuf(n, 61, step);
        MPI_Request sr;
        MPI_Status st;
        MPI_Isend(s, (int)n, MPI_DOUBLE, to, 60, comm, &sr);
        if (step % 5 == 2) {
            const int part = (int)n / 2;
            const int rc = MPI_Recv(r, part, MPI_DOUBLE, from, 60, comm, &st);
            int cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            /* (What lands in the buffer MPI leaves open: pml/ucx writes nothing; zip the part
             * that fits, which p2p_semantics checks.) */
            pt_check(MPI_ERR_TRUNCATE == cls, "truncate: MPI_ERR_TRUNCATE");
        } else {
            pt_call(MPI_Recv(r, (int)n, MPI_DOUBLE, from, 60, comm, &st), "recv truncate case");
            expect(r, n, from, 61, step, "after truncation");
        }
        pt_call(MPI_Wait(&sr, MPI_STATUS_IGNORE), "wait truncate send");
        free(s);
    }
    free(r);
}

static void case_types(MPI_Comm comm)
{
    const size_t n = 25000;
    MPI_Datatype vec; /* n doubles, every other one of 2n */
    MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double *wide = malloc(2 * n * sizeof(double)), *r = malloc(2 * n * sizeof(double));
    for (int step = 0; step < STEPS; ++step) {
        double *s = sendbuf(n, 71, step);
        MPI_Request sr;
        MPI_Status st;
        const int way = step % 3;
        if (0 == way) { /* vector -> doubles */
            for (size_t i = 0; i < n; ++i)
                wide[2 * i] = s[i], wide[2 * i + 1] = -1.0;
            MPI_Isend(wide, 1, vec, to, 70, comm, &sr);
            pt_call(MPI_Recv(r, (int)n, MPI_DOUBLE, from, 70, comm, &st), "recv types 0");
            expect(r, n, from, 71, step, "types: vector sent, doubles received");
        } else if (1 == way) { /* doubles -> MPI_BYTE */
            MPI_Isend(s, (int)n, MPI_DOUBLE, to, 70, comm, &sr);
            pt_call(MPI_Recv(r, (int)(n * sizeof(double)), MPI_BYTE, from, 70, comm, &st),
                    "recv types 1");
            count_is(&st, MPI_BYTE, (int)(n * sizeof(double)), "types: byte count");
            expect(r, n, from, 71, step, "types: doubles sent, bytes received");
        } else { /* doubles -> vector */
            MPI_Isend(s, (int)n, MPI_DOUBLE, to, 70, comm, &sr);
            for (size_t i = 0; i < 2 * n; ++i)
                r[i] = -2.0;
            pt_call(MPI_Recv(r, 1, vec, from, 70, comm, &st), "recv types 2");
            double *packed = malloc(n * sizeof(double));
            int holes = 1;
            for (size_t i = 0; i < n; ++i) {
                packed[i] = r[2 * i];
                holes &= r[2 * i + 1] == -2.0;
            }
            expect(packed, n, from, 71, step, "types: doubles sent, vector received");
            pt_check(holes, "types: the vector's gaps untouched");
            free(packed);
        }
        pt_call(MPI_Wait(&sr, MPI_STATUS_IGNORE), "wait types send");
        free(s);
    }
    MPI_Type_free(&vec);
    free(wide);
    free(r);
}

static void case_modes(MPI_Comm comm)
{
    const size_t n = 30000;
    double *s = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double));
    int bsize = (int)(n * sizeof(double)) + 4 * MPI_BSEND_OVERHEAD;
    void *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);
    MPI_Request ps, pr;
    MPI_Send_init(s, (int)n, MPI_DOUBLE, to, 80, comm, &ps);
    MPI_Recv_init(r, (int)n, MPI_DOUBLE, from, 80, comm, &pr);
    for (int step = 0; step < STEPS; ++step) {
        gen(s, n, pt_rank, to, 81, step);
        const int mode = step % 5;
        if (mode <= 1) { /* persistent (twice as often) */
            MPI_Start(&pr);
            MPI_Start(&ps);
            pt_call(MPI_Wait(&ps, MPI_STATUS_IGNORE), "wait persistent send");
            pt_call(MPI_Wait(&pr, MPI_STATUS_IGNORE), "wait persistent recv");
        } else {
            MPI_Request rq;
            MPI_Irecv(r, (int)n, MPI_DOUBLE, from, 80, comm, &rq);
            MPI_Barrier(comm); /* every receive is posted: ready mode may be used */
            if (2 == mode)
                pt_call(MPI_Bsend(s, (int)n, MPI_DOUBLE, to, 80, comm), "bsend");
            else if (3 == mode)
                pt_call(MPI_Rsend(s, (int)n, MPI_DOUBLE, to, 80, comm), "rsend");
            else
                pt_call(MPI_Ssend(s, (int)n, MPI_DOUBLE, to, 80, comm), "ssend");
            pt_call(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait modes recv");
        }
        expect(r, n, from, 81, step, "modes");
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);
    free(s);
    free(r);
}

static void case_commfree(MPI_Comm comm)
{
    const size_t n = 30000;
    double *r = malloc(n * sizeof(double));
    for (int round = 0; round < 3; ++round) {
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        for (int step = 0; step < 6; ++step) {
            double *s = sendbuf(n, 91, step); /* each duplicate starts the stream over */
            MPI_Request sr;
            MPI_Isend(s, (int)n, MPI_DOUBLE, to, 90, dup, &sr);
            pt_call(MPI_Recv(r, (int)n, MPI_DOUBLE, from, 90, dup, MPI_STATUS_IGNORE),
                    "recv commfree");
            expect(r, n, from, 91, step, "commfree");
            pt_call(MPI_Wait(&sr, MPI_STATUS_IGNORE), "wait commfree send");
            free(s);
        }
        MPI_Comm_free(&dup);
    }
    free(r);
}

static void case_bytes(MPI_Comm comm)
{
    const size_t n = 65536;
    double *r = malloc(n * sizeof(double));
    for (int step = 0; step < 2 * STEPS; ++step) {
        double *s = sendbuf(n, 101, step);
        MPI_Request sr;
        MPI_Isend(s, (int)n, MPI_DOUBLE, to, 100, comm, &sr);
        pt_call(MPI_Recv(r, (int)n, MPI_DOUBLE, from, 100, comm, MPI_STATUS_IGNORE), "recv bytes");
        expect(r, n, from, 101, step, "bytes");
        pt_call(MPI_Wait(&sr, MPI_STATUS_IGNORE), "wait bytes send");
        free(s);
    }
    free(r);
}

static const struct {
    const char *name;
    void (*run)(MPI_Comm);
} cases[] = {
    {"steps", case_steps},   {"order", case_order},   {"wildcard", case_wildcard},
    {"mprobe", case_mprobe}, {"cancel", case_cancel}, {"truncate", case_truncate},
    {"types", case_types},   {"modes", case_modes},   {"commfree", case_commfree},
    {"bytes", case_bytes},
};

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    to = (pt_rank + 1) % pt_size;
    from = (pt_rank + pt_size - 1) % pt_size;
    int ran = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        if (argc > 1 ? 0 != strcmp(argv[1], cases[i].name) : 0 == strcmp("bytes", cases[i].name))
            continue;
        /* Each case on its own duplicate (errors returned, as on MPI_COMM_WORLD); with
         * P2P_TEMPORAL_INFO=V made with the Info key zip_p2p_temporal=V. */
        MPI_Comm comm;
        const char *key = getenv("P2P_TEMPORAL_INFO");
        if (NULL != key) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "zip_p2p_temporal", key);
            MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
            MPI_Info_free(&info);
        } else {
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        }
        cases[i].run(comm);
        MPI_Comm_free(&comm);
        ++ran;
    }
    pt_check(ran > 0, "a known case");
    return pt_finish(argc > 1 ? argv[1] : "p2p_temporal");
}
