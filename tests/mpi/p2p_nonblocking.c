/*
 * Nonblocking point-to-point through pml/zip with many requests outstanding: every rank sends
 * ROUNDS messages of varying size, type and data set to every other rank, while receiving them
 * with specific, MPI_ANY_SOURCE and MPI_ANY_TAG receives into buffers larger than the messages.
 * A message's content is a function of (source, tag), so a wildcard receive checks what it got
 * from its status. Completion by MPI_Waitall, MPI_Testsome and MPI_Waitany.
 */
#include "p2p_common.h"

#define ROUNDS 12
#define MAXN 90000

static size_t msg_len(int tag)
{
    static const size_t lens[] = {0, 1, 700, 9000, 70000, 90000};
    return lens[tag % 6];
}

static int msg_is_float(int tag)
{
    return (tag / 6) & 1;
}

static void check_received(const void *buf, const MPI_Status *st, const char *what)
{
    int tag = st->MPI_TAG, src = st->MPI_SOURCE, c = -1;
    size_t n = msg_len(tag);
    uint64_t seed = pt_seed(src, pt_rank, tag, 0);
    if (msg_is_float(tag)) {
        float *ref = malloc((n + 1) * sizeof(float));
        pt_fill_f32(ref, n, seed);
        MPI_Get_count(st, MPI_FLOAT, &c);
        pt_check(c == (int)n && pt_same(buf, ref, n * sizeof(float)), what);
        free(ref);
    } else {
        double *ref = malloc((n + 1) * sizeof(double));
        pt_fill_f64(ref, n, seed);
        MPI_Get_count(st, MPI_DOUBLE, &c);
        pt_check(c == (int)n && pt_same(buf, ref, n * sizeof(double)), what);
        free(ref);
    }
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    const int peers = pt_size - 1;
    const int nmsg = peers * ROUNDS;
    void **sbufs = malloc(nmsg * sizeof(void *)), **rbufs = malloc(nmsg * sizeof(void *));
    MPI_Request *sreq = malloc(nmsg * sizeof(MPI_Request)),
                *rreq = malloc(nmsg * sizeof(MPI_Request));
    MPI_Status *st = malloc(nmsg * sizeof(MPI_Status));

    /* Phase 1: receives first (specific source and tag, float tags get float buffers). */
    int k = 0;
    for (int p = 0; p < pt_size; ++p) {
        if (p == pt_rank)
            continue;
        for (int t = 0; t < ROUNDS; ++t, ++k) {
            rbufs[k] = malloc((MAXN + 32) * sizeof(double));
            MPI_Irecv(rbufs[k], MAXN + 32, msg_is_float(t) ? MPI_FLOAT : MPI_DOUBLE, p, t,
                      MPI_COMM_WORLD, &rreq[k]);
        }
    }
    k = 0;
    for (int p = 0; p < pt_size; ++p) {
        if (p == pt_rank)
            continue;
        for (int t = 0; t < ROUNDS; ++t, ++k) {
            size_t n = msg_len(t);
            sbufs[k] = malloc((MAXN + 1) * sizeof(double)); /* reused for other tags later */
            uint64_t seed = pt_seed(pt_rank, p, t, 0);
            if (msg_is_float(t))
                pt_fill_f32(sbufs[k], n, seed);
            else
                pt_fill_f64(sbufs[k], n, seed);
            pt_call(MPI_Isend(sbufs[k], (int)n, msg_is_float(t) ? MPI_FLOAT : MPI_DOUBLE, p, t,
                              MPI_COMM_WORLD, &sreq[k]),
                    "isend");
        }
    }
    pt_call(MPI_Waitall(nmsg, rreq, st), "waitall recv");
    for (int i = 0; i < nmsg; ++i)
        check_received(rbufs[i], &st[i], "specific irecv");
    pt_call(MPI_Waitall(nmsg, sreq, MPI_STATUSES_IGNORE), "waitall send");

    /* Phase 2: wildcard receives. Doubles only (a wildcard receive cannot know the type), so
     * resend the double tags; receive with ANY_SOURCE/ANY_TAG alternately, complete by
     * Testsome. */
    MPI_Barrier(MPI_COMM_WORLD);
    int nd = 0;
    for (int t = 0; t < ROUNDS; ++t)
        nd += !msg_is_float(t);
    nd *= peers;
    k = 0;
    for (int i = 0; i < nd; ++i) {
        MPI_Irecv(rbufs[i], MAXN + 32, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &rreq[i]);
    }
    int ns = 0;
    for (int p = 0; p < pt_size; ++p) {
        if (p == pt_rank)
            continue;
        for (int t = 0; t < ROUNDS; ++t) {
            if (msg_is_float(t))
                continue;
            size_t n = msg_len(t);
            pt_fill_f64(sbufs[ns], n, pt_seed(pt_rank, p, t, 0));
            MPI_Isend(sbufs[ns], (int)n, MPI_DOUBLE, p, t, MPI_COMM_WORLD, &sreq[ns]);
            ++ns;
        }
    }
    int done = 0;
    int *idx = malloc(nd * sizeof(int));
    while (done < nd) {
        int outc = 0;
        pt_call(MPI_Testsome(nd, rreq, &outc, idx, st), "testsome");
        if (MPI_UNDEFINED == outc)
            break;
        for (int j = 0; j < outc; ++j)
            check_received(rbufs[idx[j]], &st[j], "wildcard irecv");
        done += outc;
    }
    pt_check(done == nd, "all wildcard receives completed");
    for (int i = 0; i < ns; ++i) {
        int which;
        MPI_Waitany(ns, sreq, &which, MPI_STATUS_IGNORE);
    }

    /* Phase 3: ANY_SOURCE with a specific tag, blocking receive, one tag at a time. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < ROUNDS; ++t) {
        if (msg_is_float(t))
            continue;
        int s = 0;
        for (int p = 0; p < pt_size; ++p) {
            if (p == pt_rank)
                continue;
            pt_fill_f64(sbufs[s], msg_len(t), pt_seed(pt_rank, p, t, 0));
            MPI_Isend(sbufs[s], (int)msg_len(t), MPI_DOUBLE, p, t, MPI_COMM_WORLD, &sreq[s]);
            ++s;
        }
        for (int i = 0; i < peers; ++i) {
            MPI_Status one;
            pt_call(
                MPI_Recv(rbufs[0], MAXN + 32, MPI_DOUBLE, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &one),
                "recv any source");
            check_received(rbufs[0], &one, "ANY_SOURCE recv");
        }
        MPI_Waitall(s, sreq, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < nmsg; ++i) {
        free(sbufs[i]);
        free(rbufs[i]);
    }
    free(idx);
    free(sbufs);
    free(rbufs);
    free(sreq);
    free(rreq);
    free(st);
    return pt_finish("p2p_nonblocking");
}
