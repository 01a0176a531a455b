/*
 * Blocking point-to-point through pml/zip: every send mode, float and double, below and above
 * the threshold, smooth and random data, receive buffers larger than the message,
 * MPI_Get_count/MPI_Get_elements, raw (int) messages mixed in on the same tag, non-contiguous
 * types on either side, truncation, and collectives still correct (negative tags untouched).
 * Ranks pair up (0-1, 2-3, ...); an odd last rank only joins the collectives.
 */
#include "p2p_common.h"

static const size_t sizes[] = {0, 3, 1000, 8191, 70000, 300000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define SLACK 17

static void check_count(MPI_Status *st, MPI_Datatype t, size_t n, const char *what)
{
    int c = -1, e = -1;
    MPI_Get_count(st, t, &c);
    MPI_Get_elements(st, t, &e);
    pt_check(c == (int)n && e == (int)n, what);
}

/* One message each way per size, data set, element type and send mode. */
static void modes_and_sizes(int peer, int sender)
{
    const int modes = 4; /* send, ssend, bsend, rsend */
    size_t maxn = sizes[NSIZES - 1] + SLACK;
    double *d = malloc(maxn * sizeof(double)), *ref = malloc(maxn * sizeof(double));
    float *f = malloc(maxn * sizeof(float)), *fref = malloc(maxn * sizeof(float));
    int bsize = (int)(maxn * sizeof(double) * 2 + 4 * MPI_BSEND_OVERHEAD);
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);

    for (int mode = 0; mode < modes; ++mode) {
        for (size_t s = 0; s < NSIZES; ++s) {
            for (int round = 0; round < 2; ++round) { /* smooth, random */
                size_t n = sizes[s];
                int tag = (int)(s * 8 + mode * 2 + round);
                uint64_t seed =
                    pt_seed(sender ? pt_rank : peer, sender ? peer : pt_rank, tag, round);
                if (sender) {
                    pt_fill_f64(d, n, seed);
                    pt_fill_f32(f, n, seed);
                    if (3 == mode)
                        MPI_Recv(NULL, 0, MPI_INT, peer, 999, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE); /* receiver posted */
                    int rc1, rc2;
                    switch (mode) {
                    case 0:
                        rc1 = MPI_Send(d, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
                        rc2 = MPI_Send(f, (int)n, MPI_FLOAT, peer, tag, MPI_COMM_WORLD);
                        break;
                    case 1:
                        rc1 = MPI_Ssend(d, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
                        rc2 = MPI_Ssend(f, (int)n, MPI_FLOAT, peer, tag, MPI_COMM_WORLD);
                        break;
                    case 2:
                        /* Stock ob1's bsend allocator refuses single messages of a few
                         * MiB, whatever the attached size: the largest size uses MPI_Send. */
                        if (n > 100000) {
                            rc1 = MPI_Send(d, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
                            rc2 = MPI_Send(f, (int)n, MPI_FLOAT, peer, tag, MPI_COMM_WORLD);
                            break;
                        }
                        rc1 = MPI_Bsend(d, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
                        memset(d, 0, n * sizeof(double)); /* buffered: reusable at once */
                        rc2 = MPI_Bsend(f, (int)n, MPI_FLOAT, peer, tag, MPI_COMM_WORLD);
                        break;
                    default:
                        rc1 = MPI_Rsend(d, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
                        rc2 = MPI_Rsend(f, (int)n, MPI_FLOAT, peer, tag, MPI_COMM_WORLD);
                        break;
                    }
                    pt_call(rc1, "send double");
                    pt_call(rc2, "send float");
                } else {
                    MPI_Status st;
                    pt_fill_f64(ref, n, seed);
                    pt_fill_f32(fref, n, seed);
                    memset(d, 0xee, maxn * sizeof(double));
                    memset(f, 0xee, maxn * sizeof(float));
                    if (3 == mode) {
                        MPI_Request r[2];
                        MPI_Status sts[2];
                        MPI_Irecv(d, (int)(n + SLACK), MPI_DOUBLE, peer, tag, MPI_COMM_WORLD,
                                  &r[0]);
                        MPI_Irecv(f, (int)(n + SLACK), MPI_FLOAT, peer, tag, MPI_COMM_WORLD, &r[1]);
                        MPI_Send(NULL, 0, MPI_INT, peer, 999, MPI_COMM_WORLD);
                        pt_call(MPI_Waitall(2, r, sts), "waitall rsend");
                        check_count(&sts[0], MPI_DOUBLE, n, "rsend double count");
                        check_count(&sts[1], MPI_FLOAT, n, "rsend float count");
                    } else {
                        pt_call(MPI_Recv(d, (int)(n + SLACK), MPI_DOUBLE, peer, tag, MPI_COMM_WORLD,
                                         &st),
                                "recv double");
                        check_count(&st, MPI_DOUBLE, n, "double count");
                        pt_check(st.MPI_SOURCE == peer && st.MPI_TAG == tag, "double status");
                        pt_call(MPI_Recv(f, (int)(n + SLACK), MPI_FLOAT, peer, tag, MPI_COMM_WORLD,
                                         &st),
                                "recv float");
                        check_count(&st, MPI_FLOAT, n, "float count");
                    }
                    pt_check(pt_same(d, ref, n * sizeof(double)), "double data");
                    pt_check(pt_same(f, fref, n * sizeof(float)), "float data");
                    /* The slack past the message is untouched. */
                    unsigned char *tail = (unsigned char *)(d + n);
                    pt_check(tail[0] == 0xee && tail[SLACK * sizeof(double) - 1] == 0xee,
                             "bytes past the message untouched");
                }
            }
        }
    }
    int sz;
    MPI_Buffer_detach(&bbuf, &sz);
    free(bbuf);
    free(d);
    free(ref);
    free(f);
    free(fref);
}

/* Raw ints, doubles and a raw byte message interleaved on one tag: order and content. */
static void mixed(int peer, int sender)
{
    const int n = 50000, tag = 77;
    int *iv = malloc(n * sizeof(int));
    double *dv = malloc(n * sizeof(double)), *dref = malloc(n * sizeof(double));
    for (int k = 0; k < 3; ++k) {
        uint64_t seed = pt_seed(sender ? pt_rank : peer, 0, tag, 2 * k);
        if (sender) {
            for (int i = 0; i < n; ++i)
                iv[i] = i * 7 + k;
            pt_fill_f64(dv, n, seed);
            MPI_Send(iv, n, MPI_INT, peer, tag, MPI_COMM_WORLD);
            MPI_Send(dv, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
            MPI_Send(iv, n / 2, MPI_INT, peer, tag, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            int c;
            pt_fill_f64(dref, n, seed);
            MPI_Recv(iv, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &c);
            int ok = (c == n);
            for (int i = 0; i < n && ok; ++i)
                ok = (iv[i] == i * 7 + k);
            pt_check(ok, "mixed: int message first");
            MPI_Recv(dv, n, MPI_DOUBLE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &c);
            pt_check(c == n && pt_same(dv, dref, n * sizeof(double)), "mixed: double second");
            MPI_Recv(iv, n, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &c);
            pt_check(c == n / 2 && iv[n / 2 - 1] == (n / 2 - 1) * 7 + k, "mixed: int third");
        }
    }
    free(iv);
    free(dv);
    free(dref);
}

/* A vector of doubles received as contiguous doubles and the other way round. */
static void noncontiguous(int peer, int sender)
{
    const int blocks = 20000, tag = 88;
    MPI_Datatype vec;
    MPI_Type_vector(blocks, 2, 3, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double *strided = calloc(blocks * 3, sizeof(double));
    double *packed = malloc(blocks * 2 * sizeof(double));
    double *ref = malloc(blocks * 2 * sizeof(double));
    uint64_t seed = pt_seed(sender ? pt_rank : peer, 1, tag, 0);
    pt_fill_f64(ref, blocks * 2, seed);
    if (sender) {
        for (int b = 0; b < blocks; ++b) {
            strided[3 * b] = ref[2 * b];
            strided[3 * b + 1] = ref[2 * b + 1];
        }
        pt_call(MPI_Send(strided, 1, vec, peer, tag, MPI_COMM_WORLD), "send vector");
        pt_call(MPI_Send(ref, blocks * 2, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD), "send contig");
    } else {
        MPI_Status st;
        int c;
        pt_call(MPI_Recv(packed, blocks * 2, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &st),
                "recv contig");
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        pt_check(c == blocks * 2 && pt_same(packed, ref, blocks * 2 * sizeof(double)),
                 "vector received as contiguous");
        pt_call(MPI_Recv(strided, 1, vec, peer, tag, MPI_COMM_WORLD, &st), "recv vector");
        MPI_Get_count(&st, vec, &c);
        int ok = (c == 1);
        for (int b = 0; b < blocks && ok; ++b)
            ok = strided[3 * b] == ref[2 * b] && strided[3 * b + 1] == ref[2 * b + 1];
        pt_check(ok, "contiguous received as vector");
    }
    MPI_Type_free(&vec);
    free(strided);
    free(packed);
    free(ref);
}

/* A receive buffer smaller than the message is an error the application sees. */
static void truncation(int peer, int sender)
{
    const int n = 100000, tag = 99;
    double *d = malloc(n * sizeof(double));
    pt_fill_f64(d, n, pt_seed(pt_rank, peer, tag, 0));
    if (sender) {
        MPI_Send(d, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        int rc = MPI_Recv(d, n / 2, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &st);
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        pt_check(MPI_ERR_TRUNCATE == cls, "truncated receive reports MPI_ERR_TRUNCATE");
    }
    free(d);
}

/* Collectives run on negative tags and must be unaffected. */
static void collectives(void)
{
    const int n = 40000;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    pt_fill_f64(a, n, pt_seed(0, 0, 5, 0));
    MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    pt_fill_f64(b, n, pt_seed(0, 0, 5, 0));
    pt_check(pt_same(a, b, n * sizeof(double)), "bcast");

    int *cnt = malloc(pt_size * sizeof(int)), *dsp = malloc(pt_size * sizeof(int));
    int per = n / pt_size;
    for (int r = 0; r < pt_size; ++r) {
        cnt[r] = per;
        dsp[r] = r * per;
    }
    for (int i = 0; i < n; ++i)
        a[i] = pt_rank * 1e6 + i * 0.25;
    MPI_Alltoallv(a, cnt, dsp, MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    int ok = 1;
    for (int r = 0; r < pt_size && ok; ++r)
        for (int i = 0; i < per && ok; ++i)
            ok = b[r * per + i] == r * 1e6 + (pt_rank * per + i) * 0.25;
    pt_check(ok, "alltoallv");
    double s = pt_rank + 0.5, sum = 0;
    MPI_Allreduce(&s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    pt_check(sum == pt_size * (pt_size - 1) / 2.0 + 0.5 * pt_size, "allreduce");
    free(a);
    free(b);
    free(cnt);
    free(dsp);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    int peer = pt_rank ^ 1;
    if (peer < pt_size) {
        /* Both directions: each rank is sender once. */
        for (int phase = 0; phase < 2; ++phase) {
            int sender = ((pt_rank & 1) == phase);
            modes_and_sizes(peer, sender);
            mixed(peer, sender);
            noncontiguous(peer, sender);
            truncation(peer, sender);
        }
    }
    collectives();
    return pt_finish("p2p_basic");
}
